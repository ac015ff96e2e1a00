//! Random alloc/free/record_stream/empty_cache sequences, checking every invariant per step.

use super::*;

/// xorshift64: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A request size: mostly small, some up to the small limit, some large.
fn size(r: &mut Rng) -> usize {
    match r.below(10) {
        0..=5 => 1 + r.below(16 * KIB as u64) as usize,
        6..=7 => 1 + r.below(MIB as u64) as usize,
        _ => 1 + r.below(16 * MIB as u64) as usize,
    }
}

/// Live allocations never overlap, and each holds at least what was asked.
fn check_live(live: &[super::super::Allocation]) {
    let mut v: Vec<_> = live.iter().map(|x| (x.ptr, x.size, x.requested)).collect();
    v.sort();
    for w in v.windows(2) {
        assert!(
            w[0].0 + w[0].1 as u64 <= w[1].0,
            "live blocks overlap: {w:?}"
        );
    }
    assert!(v
        .iter()
        .all(|&(_, size, req)| size >= req && size % 512 == 0));
}

#[test]
fn random_sequences_keep_every_invariant() {
    // (retries, ooms, events): the runs must reach the OOM and record_stream paths.
    let mut reached = (0, 0, 0);
    for seed in 1..=6u64 {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
        let (a, dev) = setup(96 * MIB);
        let mut live = vec![];
        for _ in 0..600 {
            match r.below(20) {
                0..=9 => match a.malloc(size(&mut r), r.below(3)) {
                    Ok(x) => live.push(x),
                    Err(e) => assert!(matches!(e, crate::Error::DeviceOutOfMemory(_))),
                },
                10..=16 if !live.is_empty() => {
                    let x = live.swap_remove(r.below(live.len() as u64) as usize);
                    a.free(x.ptr).unwrap();
                }
                17 if !live.is_empty() => {
                    let x = live[r.below(live.len() as u64) as usize];
                    a.record_stream(x.ptr, r.below(4));
                }
                18 => dev.complete(r.below(4)),
                19 => a.empty_cache(),
                _ => {}
            }
            check(&a);
            check_live(&live);
        }
        for x in live.drain(..) {
            a.free(x.ptr).unwrap();
        }
        (0..4).for_each(|s| dev.complete(s));
        a.empty_cache();
        check(&a);
        assert_eq!((a.memory_allocated(), a.memory_reserved()), (0, 0));
        let s = a.stats();
        reached.0 += s.num_alloc_retries;
        reached.1 += s.num_ooms;
        reached.2 += dev.state().next_event;
        let f = dev.state();
        assert_eq!(
            (f.used, f.live.len(), f.events.len()),
            (0, 0, 0),
            "seed {seed}"
        );
    }
    eprintln!("retries, ooms, events: {reached:?}");
    assert!(
        reached.0 > 0 && reached.1 > 0 && reached.2 > 0,
        "{reached:?}"
    );
}

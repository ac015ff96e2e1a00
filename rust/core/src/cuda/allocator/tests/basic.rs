//! Rounding, pools, reuse, best fit, splitting, coalescing, empty_cache, bad frees.

use super::*;

#[test]
fn rounds_sizes_to_512() {
    let (a, _) = setup(64 * MIB);
    for (n, want) in [
        (1, 512),
        (512, 512),
        (513, 1024),
        (1000, 1024),
        (4096, 4096),
    ] {
        let x = a.malloc(n, 0).unwrap();
        assert_eq!((x.size, x.requested), (want, n));
        assert_eq!(x.ptr % 512, 0);
    }
    assert_eq!(
        a.stats().requested_bytes.all.current,
        1 + 512 + 513 + 1000 + 4096
    );
    check(&a);
}

#[test]
fn zero_bytes_is_null_without_a_block() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(0, 0).unwrap();
    assert_eq!((x.ptr, x.size), (0, 0));
    a.free(0).unwrap();
    assert_eq!(dev.state().raw_allocs, 0);
    assert_eq!(a.stats().allocation.all.allocated, 0);
}

#[test]
fn small_and_large_pools_get_their_segment_sizes() {
    let (a, _) = setup(256 * MIB);
    a.malloc(MIB, 0).unwrap(); // the largest small request
    assert_eq!(a.memory_reserved(), 2 * MIB);
    a.malloc(MIB + 1, 0).unwrap(); // large, under 10 MiB: a 20 MiB segment
    a.malloc(20 * MIB + 1, 0).unwrap(); // large, too big for the cached rest: 22 MiB
    let s = a.stats();
    assert_eq!(s.reserved_bytes.small_pool.current as usize, 2 * MIB);
    assert_eq!(
        s.reserved_bytes.large_pool.current as usize,
        20 * MIB + 22 * MIB
    );
    assert_eq!(
        (s.segment.small_pool.current, s.segment.large_pool.current),
        (1, 2)
    );
    assert_eq!(s.allocated_bytes.small_pool.current as usize, MIB);
    check(&a);
}

#[test]
fn a_freed_block_is_reused() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(3000, 0).unwrap();
    a.free(x.ptr).unwrap();
    let y = a.malloc(2900, 0).unwrap();
    assert_eq!(y.ptr, x.ptr);
    let big = a.malloc(15 * MIB, 0).unwrap();
    a.free(big.ptr).unwrap();
    assert_eq!(a.malloc(15 * MIB, 0).unwrap().ptr, big.ptr);
    assert_eq!(dev.state().raw_allocs, 2);
    check(&a);
}

#[test]
fn best_fit_takes_the_smallest_block_that_fits() {
    let (a, _) = setup(64 * MIB);
    // Three free holes of 8, 2 and 4 KiB, kept apart by live guards.
    let mut holes = vec![];
    for n in [8 * KIB, 2 * KIB, 4 * KIB] {
        holes.push(a.malloc(n, 0).unwrap().ptr);
        a.malloc(512, 0).unwrap();
    }
    for &p in &holes {
        a.free(p).unwrap();
    }
    check(&a);
    assert_eq!(a.malloc(2 * KIB, 0).unwrap().ptr, holes[1]);
    assert_eq!(a.malloc(3 * KIB, 0).unwrap().ptr, holes[2]);
    assert_eq!(a.malloc(5 * KIB, 0).unwrap().ptr, holes[0]);
    check(&a);
}

#[test]
fn splitting_leaves_a_reusable_remainder() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    let y = a.malloc(KIB, 0).unwrap();
    assert_eq!(y.ptr, x.ptr + KIB as u64);
    let l1 = a.malloc(2 * MIB, 0).unwrap();
    let l2 = a.malloc(3 * MIB, 0).unwrap();
    assert_eq!(l2.ptr, l1.ptr + 2 * MIB as u64);
    assert_eq!(dev.state().raw_allocs, 2);
    assert_eq!(a.stats().segment.all.current, 2);
    check(&a);
}

#[test]
fn large_remainders_of_1mib_or_less_are_not_split() {
    let (a, _) = setup(64 * MIB);
    let x = a.malloc(2 * MIB, 0).unwrap(); // 20 MiB segment, 18 MiB left
    let y = a.malloc(17 * MIB + 512, 0).unwrap(); // would leave 1 MiB - 512: handed out whole
    assert_eq!(y.size, 18 * MIB);
    assert_eq!(a.memory_allocated(), 20 * MIB);
    a.free(x.ptr).unwrap();
    a.free(y.ptr).unwrap();
    check(&a);
}

#[test]
fn freed_neighbours_coalesce_and_empty_cache_returns_the_segment() {
    let (a, dev) = setup(64 * MIB);
    let xs: Vec<_> = (0..3)
        .map(|_| a.malloc(100 * KIB, 0).unwrap().ptr)
        .collect();
    for p in [xs[0], xs[2], xs[1]] {
        a.free(p).unwrap();
        check(&a);
    }
    // One free block spanning the whole 2 MiB segment.
    assert_eq!(a.lock().pools.blocks.len(), 1);
    a.empty_cache();
    let f = dev.state();
    assert_eq!((f.raw_frees, f.used), (1, 0));
    drop(f);
    let s = a.stats();
    assert_eq!((s.num_device_alloc, s.num_device_free), (1, 1));
    assert_eq!(s.reserved_bytes.all.current, 0);
    check(&a);
}

#[test]
fn empty_cache_keeps_segments_with_live_blocks() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    let big = a.malloc(12 * MIB, 0).unwrap();
    a.free(big.ptr).unwrap();
    a.empty_cache();
    assert_eq!(a.memory_reserved(), 2 * MIB);
    assert_eq!(dev.state().raw_frees, 1);
    a.free(x.ptr).unwrap();
    a.empty_cache();
    assert_eq!((a.memory_reserved(), dev.state().used), (0, 0));
    check(&a);
}

#[test]
fn bad_frees_are_errors_that_change_nothing() {
    let (a, _) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    let y = a.malloc(KIB, 0).unwrap();
    assert!(a.free(0xdead_beef).is_err());
    assert!(
        a.free(x.ptr + 512).is_err(),
        "an interior pointer is not a block"
    );
    a.free(x.ptr).unwrap();
    let before = a.stats();
    assert!(matches!(a.free(x.ptr), Err(crate::Error::Runtime(_))));
    assert_eq!(a.stats(), before);
    check(&a);
    a.free(y.ptr).unwrap();
    assert_eq!(a.memory_allocated(), 0);
    check(&a);
}

#[test]
fn dropping_the_allocator_returns_its_cache() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    a.malloc(KIB, 1).unwrap();
    a.free(x.ptr).unwrap();
    drop(a);
    assert_eq!(
        dev.state().used,
        2 * MIB,
        "only the live block's segment is left"
    );
}

//! Per-stream pools and record_stream's deferred reuse.

use super::*;

#[test]
fn a_block_freed_on_one_stream_is_not_reused_on_another() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 1).unwrap();
    a.free(x.ptr).unwrap();
    let y = a.malloc(KIB, 2).unwrap();
    assert_ne!(y.ptr, x.ptr);
    assert_eq!(dev.state().raw_allocs, 2, "stream 2 gets its own segment");
    assert_eq!(a.malloc(KIB, 1).unwrap().ptr, x.ptr);
    check(&a);
}

#[test]
fn record_stream_defers_reuse_until_the_event_completes() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    a.record_stream(x.ptr, 7);
    a.free(x.ptr).unwrap();
    // No longer allocated, but still active until stream 7 is done with it.
    assert_eq!(a.memory_allocated(), 0);
    assert_eq!(a.stats().active_bytes.all.current as usize, KIB);
    check(&a);
    let y = a.malloc(KIB, 0).unwrap();
    assert_ne!(y.ptr, x.ptr);
    dev.complete(7);
    assert_eq!(a.malloc(KIB, 0).unwrap().ptr, x.ptr);
    assert!(dev.state().events.is_empty(), "done events are destroyed");
    check(&a);
}

#[test]
fn every_recorded_stream_must_finish() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    a.record_stream(x.ptr, 1);
    a.record_stream(x.ptr, 2);
    a.record_stream(x.ptr, 2);
    a.free(x.ptr).unwrap();
    assert_eq!(dev.state().events.len(), 2);
    dev.complete(1);
    assert_ne!(a.malloc(KIB, 0).unwrap().ptr, x.ptr);
    dev.complete(2);
    assert_eq!(a.malloc(KIB, 0).unwrap().ptr, x.ptr);
    check(&a);
}

#[test]
fn recording_the_own_stream_needs_no_event() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 3).unwrap();
    a.record_stream(x.ptr, 3);
    a.record_stream(0xbad, 1); // unknown pointers are ignored
    a.free(x.ptr).unwrap();
    assert_eq!(dev.state().events.len(), 0);
    assert_eq!(a.malloc(KIB, 3).unwrap().ptr, x.ptr);
    check(&a);
}

#[test]
fn empty_cache_keeps_pending_blocks() {
    let (a, dev) = setup(64 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    a.record_stream(x.ptr, 5);
    a.free(x.ptr).unwrap();
    a.empty_cache();
    assert_eq!(a.memory_reserved(), 2 * MIB);
    check(&a);
    dev.complete(5);
    a.empty_cache();
    assert_eq!((a.memory_reserved(), dev.state().used), (0, 0));
    check(&a);
}

#[test]
fn the_allocator_is_shared_by_threads() {
    let (a, _) = setup(256 * MIB);
    let a = Arc::new(a);
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let a = Arc::clone(&a);
            std::thread::spawn(move || {
                for i in 0..200 {
                    let x = a.malloc(512 * (1 + (i % 7)), t).unwrap();
                    a.free(x.ptr).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(a.memory_allocated(), 0);
    assert_eq!(a.stats().allocation.all.allocated, 800);
    check(&a);
}

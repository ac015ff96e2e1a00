//! A full device: release the cache and retry, else DeviceOutOfMemory.

use super::*;
use crate::Error;

#[test]
fn a_failed_device_alloc_releases_the_cache_and_retries() {
    let (a, dev) = setup(24 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    let y = a.malloc(12 * MIB, 1).unwrap();
    a.free(x.ptr).unwrap();
    a.free(y.ptr).unwrap();
    assert_eq!(dev.state().used, 14 * MIB);
    // 14 MiB cached + a new 20 MiB segment exceed 24 MiB, until the cache goes.
    let z = a.malloc(2 * MIB, 0).unwrap();
    let s = a.stats();
    assert_eq!((s.num_alloc_retries, s.num_ooms), (1, 0));
    assert_eq!((s.num_device_alloc, s.num_device_free), (3, 2));
    assert_eq!(a.memory_reserved(), 20 * MIB);
    a.free(z.ptr).unwrap();
    check(&a);
}

#[test]
fn out_of_memory_after_the_retry_is_an_error_naming_the_sizes() {
    let (a, dev) = setup(16 * MIB);
    a.malloc(MIB, 0).unwrap(); // small: 1 MiB of its 2 MiB segment stays cached
    a.malloc(12 * MIB, 0).unwrap();
    let err = a.malloc(4 * MIB, 0).unwrap_err();
    let Error::DeviceOutOfMemory(msg) = &err else {
        panic!("wrong error {err:?}")
    };
    assert!(msg.starts_with("Tried to allocate 4.00 MiB."), "{msg}");
    assert!(
        msg.contains("13.00 MiB is allocated by the allocator"),
        "{msg}"
    );
    assert!(
        msg.contains("1024.00 KiB is reserved by the allocator but unallocated"),
        "{msg}"
    );
    assert!(err
        .to_string()
        .starts_with("CUDA out of memory. Tried to allocate"));
    let s = a.stats();
    assert_eq!((s.num_alloc_retries, s.num_ooms), (1, 1));
    assert_eq!(dev.state().used, 14 * MIB, "live segments are untouched");
    check(&a);
    // The allocator still works after the failure.
    a.malloc(512 * KIB, 0).unwrap();
    check(&a);
}

#[test]
fn an_impossible_size_is_out_of_memory_not_a_panic() {
    let (a, _) = setup(16 * MIB);
    for n in [usize::MAX, usize::MAX - 600, usize::MAX / 2] {
        assert!(matches!(a.malloc(n, 0), Err(Error::DeviceOutOfMemory(_))));
    }
    assert_eq!(a.stats().num_ooms, 3);
    check(&a);
}

//! Counters, peaks and the memory_stats keys.

use super::super::format_size;
use super::*;

#[test]
fn current_and_peak_follow_allocations() {
    let (a, _) = setup(256 * MIB);
    let x = a.malloc(KIB, 0).unwrap();
    let y = a.malloc(12 * MIB, 0).unwrap();
    assert_eq!(a.memory_allocated(), 12 * MIB + KIB);
    assert_eq!(a.memory_reserved(), 14 * MIB);
    a.free(y.ptr).unwrap();
    assert_eq!(a.memory_allocated(), KIB);
    assert_eq!(a.max_memory_allocated(), 12 * MIB + KIB);
    a.empty_cache();
    assert_eq!(
        (a.memory_reserved(), a.max_memory_reserved()),
        (2 * MIB, 14 * MIB)
    );
    a.reset_peak_stats();
    assert_eq!(a.max_memory_allocated(), KIB);
    assert_eq!(a.max_memory_reserved(), 2 * MIB);
    let s = a.stats();
    assert_eq!(s.active_bytes.all.peak as usize, KIB);
    assert_eq!(s.allocated_bytes.all.allocated as usize, 12 * MIB + KIB);
    assert_eq!(s.allocated_bytes.all.freed as usize, 12 * MIB);
    assert_eq!(s.allocated_bytes.large_pool.freed as usize, 12 * MIB);
    a.free(x.ptr).unwrap();
    a.reset_accumulated_stats();
    let s = a.stats();
    assert_eq!(
        (s.allocated_bytes.all.allocated, s.num_device_alloc),
        (0, 0)
    );
    check(&a);
}

#[test]
fn memory_stats_has_pytorchs_keys_and_agrees_with_stats() {
    let (a, _) = setup(256 * MIB);
    let x = a.malloc(1000, 0).unwrap();
    a.malloc(3 * MIB, 0).unwrap();
    a.free(x.ptr).unwrap();
    let pairs = a.memory_stats();
    let map: HashMap<_, _> = pairs.iter().cloned().collect();
    assert_eq!(map.len(), pairs.len(), "keys are unique");
    assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0), "keys are sorted");
    let get = |k: &str| *map.get(k).unwrap_or_else(|| panic!("missing key {k}"));
    for name in [
        "allocated_bytes",
        "reserved_bytes",
        "active_bytes",
        "requested_bytes",
    ] {
        for field in ["current", "peak", "allocated", "freed"] {
            let all = get(&format!("{name}.all.{field}"));
            let small = get(&format!("{name}.small_pool.{field}"));
            assert_eq!(all, small + get(&format!("{name}.large_pool.{field}")));
        }
    }
    for k in ["allocation", "segment", "active"] {
        get(&format!("{k}.all.current"));
    }
    let s = a.stats();
    assert_eq!(get("allocated_bytes.all.current"), 3 * MIB as i64);
    assert_eq!(get("allocated_bytes.small_pool.peak"), 1024);
    assert_eq!(get("requested_bytes.small_pool.freed"), 1000);
    assert_eq!(
        get("reserved_bytes.all.current"),
        s.reserved_bytes.all.current
    );
    assert_eq!(get("allocation.all.current"), 1);
    assert_eq!(get("segment.all.current"), 2);
    assert_eq!(get("num_device_alloc"), 2);
    for k in ["num_alloc_retries", "num_ooms", "num_device_free"] {
        assert_eq!(get(k), 0);
    }
}

#[test]
fn sizes_print_as_pytorch_prints_them() {
    assert_eq!(format_size(512), "512 bytes");
    assert_eq!(format_size(1536), "1.50 KiB");
    assert_eq!(format_size(20 * MIB), "20.00 MiB");
    assert_eq!(format_size(3 << 29), "1.50 GiB");
}

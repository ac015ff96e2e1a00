//! A fake device (a byte counter with a capacity, fake addresses, events the test completes)
//! and the allocator's tests against it.

mod basic;
mod oom;
mod random;
mod stats;
mod streams;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::block::BlockState;
use super::{CachingAllocator, DeviceMemory, StreamId};

pub(super) const KIB: usize = 1 << 10;
pub(super) const MIB: usize = 1 << 20;

/// The fake device's state; tests read it through a clone of the handle.
#[derive(Default)]
pub(super) struct Fake {
    pub capacity: usize,
    pub used: usize,
    next_addr: u64,
    pub live: HashMap<u64, usize>,
    pub raw_allocs: usize,
    pub raw_frees: usize,
    /// token -> (stream, done)
    pub events: HashMap<u64, (StreamId, bool)>,
    next_event: u64,
}

/// A device with `capacity` bytes. Clones share the state, so a test keeps one.
#[derive(Clone, Default)]
pub(super) struct FakeDevice(Arc<Mutex<Fake>>);

impl FakeDevice {
    pub fn new(capacity: usize) -> Self {
        FakeDevice(Arc::new(Mutex::new(Fake {
            capacity,
            next_addr: 0x7f00_0000_0000,
            ..Fake::default()
        })))
    }

    pub fn state(&self) -> MutexGuard<'_, Fake> {
        self.0.lock().unwrap()
    }

    /// The work queued so far on `stream` finishes: its events become done.
    pub fn complete(&self, stream: StreamId) {
        for (s, done) in self.state().events.values_mut() {
            *done |= *s == stream;
        }
    }
}

impl DeviceMemory for FakeDevice {
    fn raw_alloc(&self, nbytes: usize) -> Option<u64> {
        let mut f = self.state();
        if f.used.checked_add(nbytes).is_none_or(|n| n > f.capacity) {
            return None;
        }
        let ptr = f.next_addr;
        // A gap after each segment, so neighbours in memory are never one segment.
        f.next_addr += (nbytes + 2 * MIB) as u64;
        f.used += nbytes;
        f.raw_allocs += 1;
        f.live.insert(ptr, nbytes);
        Some(ptr)
    }

    fn raw_free(&self, ptr: u64) {
        let mut f = self.state();
        let n = f
            .live
            .remove(&ptr)
            .expect("raw_free of a pointer not from raw_alloc");
        f.used -= n;
        f.raw_frees += 1;
    }

    fn record_event(&self, stream: StreamId) -> u64 {
        let mut f = self.state();
        f.next_event += 1;
        let token = f.next_event;
        f.events.insert(token, (stream, false));
        token
    }

    fn event_done(&self, token: u64) -> bool {
        self.state()
            .events
            .get(&token)
            .expect("query of a destroyed event")
            .1
    }

    fn destroy_event(&self, token: u64) {
        self.state()
            .events
            .remove(&token)
            .expect("double destroy of an event");
    }
}

pub(super) type Alloc = CachingAllocator<FakeDevice>;

/// An allocator over a fresh fake device of `capacity` bytes, and the device's handle.
pub(super) fn setup(capacity: usize) -> (Alloc, FakeDevice) {
    let dev = FakeDevice::new(capacity);
    (CachingAllocator::new(dev.clone()), dev)
}

/// Every invariant: the block structure, and the counters agreeing with the blocks and
/// with the device.
pub(super) fn check(a: &Alloc) {
    let st = a.lock();
    st.pools.check().unwrap();
    let (mut allocated, mut active, mut requested, mut n_alloc, mut n_active) = (0, 0, 0, 0, 0);
    let mut pending = 0;
    for b in st.pools.blocks.values() {
        match b.state {
            BlockState::Allocated => {
                allocated += b.size;
                requested += b.requested;
                n_alloc += 1;
            }
            BlockState::PendingFree(_) => pending += 1,
            BlockState::Free => continue,
        }
        active += b.size;
        n_active += 1;
    }
    let reserved: usize = st.pools.segments.values().map(|s| s.size).sum();
    let s = &st.stats;
    assert_eq!(s.allocated_bytes.all.current as usize, allocated);
    assert_eq!(s.requested_bytes.all.current as usize, requested);
    assert_eq!(s.active_bytes.all.current as usize, active);
    assert_eq!(s.reserved_bytes.all.current as usize, reserved);
    assert_eq!(s.allocation.all.current, n_alloc);
    assert_eq!(s.active.all.current, n_active);
    assert_eq!(s.segment.all.current as usize, st.pools.segments.len());
    assert_eq!(st.pending.len(), pending);
    assert!(allocated <= active && active <= reserved);
    assert_eq!(
        a.device().state().used,
        reserved,
        "device and allocator disagree"
    );
    for set in [
        &s.allocated_bytes,
        &s.reserved_bytes,
        &s.active_bytes,
        &s.requested_bytes,
    ] {
        assert_eq!(
            set.all.current,
            set.small_pool.current + set.large_pool.current
        );
        assert!(set.all.peak >= set.all.current);
    }
}

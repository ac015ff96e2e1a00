//! The few driver calls the caching allocator needs. The CUDA runtime implements this trait
//! with cuMemAlloc/cuMemFree and events; the tests implement it with a fake device.

/// A CUDA stream, as the allocator sees it: an opaque id (0 is the default stream).
pub type StreamId = u64;

/// What the allocator asks of a device. Calls happen under the allocator's lock, one at a
/// time, so an implementation needs no ordering of its own beyond being `Send + Sync`.
pub trait DeviceMemory: Send + Sync {
    /// cuMemAlloc: a device pointer to `nbytes` bytes, or `None` when the device is out of
    /// memory. Pointers are never 0 (0 is the allocator's null, returned for 0-byte requests).
    fn raw_alloc(&self, nbytes: usize) -> Option<u64>;
    /// cuMemFree of a pointer `raw_alloc` returned (always a whole segment).
    fn raw_free(&self, ptr: u64);
    /// Records a marker on `stream` after the work queued so far (cuEventRecord); returns a
    /// token that `event_done` and `destroy_event` take.
    fn record_event(&self, stream: StreamId) -> u64;
    /// Whether the marker's work has finished (cuEventQuery). Once it answers true the
    /// allocator calls `destroy_event` and forgets the token.
    fn event_done(&self, token: u64) -> bool;
    /// Releases the marker (cuEventDestroy).
    fn destroy_event(&self, token: u64);
}

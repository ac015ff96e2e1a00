//! The CUDA build's answers to `cuda::api` (filled in as the runtime lands).

use crate::cuda::api::*;
use crate::Result;
pub fn is_available() -> bool {
    false
}
pub fn device_count() -> usize {
    0
}
/// Loads the driver and creates the contexts; the error says why CUDA cannot be used.
pub fn init() -> Result<()> {
    Err(not_compiled())
}
pub fn current_device() -> Result<usize> {
    Err(not_compiled())
}
pub fn set_device(_device: usize) -> Result<()> {
    Err(not_compiled())
}
pub fn device_properties(_device: usize) -> Result<DeviceProperties> {
    Err(not_compiled())
}
/// Waits for every stream of the device.
pub fn synchronize(_device: usize) -> Result<()> {
    Err(not_compiled())
}
pub fn manual_seed(_device: usize, _seed: u64) -> Result<()> {
    Err(not_compiled())
}
pub fn initial_seed(_device: usize) -> Result<u64> {
    Err(not_compiled())
}
pub fn memory_stats(_device: usize) -> Result<MemoryStats> {
    Err(not_compiled())
}
pub fn reset_peak_memory_stats(_device: usize) -> Result<()> {
    Err(not_compiled())
}
/// Returns the allocator's cached, unused blocks to the driver.
pub fn empty_cache() -> Result<()> {
    Err(not_compiled())
}
/// `(free, total)` bytes as the driver reports them.
pub fn mem_get_info(_device: usize) -> Result<(usize, usize)> {
    Err(not_compiled())
}
/// A new stream; `priority` as PyTorch's (0 default, -1 high).
pub fn stream_create(_device: usize, _priority: i32) -> Result<Handle> {
    Err(not_compiled())
}
pub fn current_stream(_device: usize) -> Result<Handle> {
    Err(not_compiled())
}
pub fn set_current_stream(_device: usize, _stream: Handle) -> Result<()> {
    Err(not_compiled())
}
pub fn stream_synchronize(_device: usize, _stream: Handle) -> Result<()> {
    Err(not_compiled())
}
/// True when all work queued on the stream has finished.
pub fn stream_query(_device: usize, _stream: Handle) -> Result<bool> {
    Err(not_compiled())
}
pub fn stream_wait_event(_device: usize, _stream: Handle, _event: Handle) -> Result<()> {
    Err(not_compiled())
}
pub fn event_create(_device: usize, _enable_timing: bool) -> Result<Handle> {
    Err(not_compiled())
}
pub fn event_record(_device: usize, _event: Handle, _stream: Handle) -> Result<()> {
    Err(not_compiled())
}
pub fn event_synchronize(_device: usize, _event: Handle) -> Result<()> {
    Err(not_compiled())
}
pub fn event_query(_device: usize, _event: Handle) -> Result<bool> {
    Err(not_compiled())
}
/// Milliseconds between two recorded timing events.
pub fn event_elapsed_ms(_device: usize, _start: Handle, _end: Handle) -> Result<f32> {
    Err(not_compiled())
}
pub fn event_destroy(_device: usize, _event: Handle) -> Result<()> {
    Err(not_compiled())
}
/// Marks the tensor's memory as used by `stream`: the allocator will not reuse it until
/// the work queued there so far has finished.
pub fn record_stream(_tensor: &crate::Tensor, _stream: Handle) -> Result<()> {
    Err(not_compiled())
}

//! What the Python `ferrotorch.cuda` module asks of the backend. Without the `cuda` feature,
//! or without a driver, `is_available()` is false and every other call is a clear error.

use crate::Error;

/// A stream or event handle: an index into the backend's registry (0 is a device's default
/// stream; events start at 1).
pub type Handle = u64;

/// The properties `torch.cuda.get_device_properties` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceProperties {
    pub name: String,
    pub major: u32,
    pub minor: u32,
    pub total_memory: usize,
    pub multi_processor_count: u32,
}

/// The allocator's counters, as `(PyTorch's memory_stats key, value)` pairs, e.g.
/// `("allocated_bytes.all.current", 1024)`.
pub type MemoryStats = Vec<(String, i64)>;

#[cfg_attr(feature = "cuda", allow(dead_code))]
pub(crate) fn not_compiled() -> Error {
    Error::runtime(
        "Torch not compiled with CUDA enabled (this ferrotorch build lacks the `cuda` feature)",
    )
}

/// The interface both builds share; the CUDA build answers from the driver.
#[cfg(not(feature = "cuda"))]
mod imp {
    use super::*;
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
    /// The current stream of the device as a DLPack consumer passes it to a producer (1 for
    /// the legacy default stream, else the `CUstream` address).
    pub fn dlpack_stream(_device: usize) -> Result<i64> {
        Err(not_compiled())
    }
    /// Makes a DLPack consumer's stream (1 legacy default, 2 per-thread default, else a
    /// `CUstream` address; -1 for none) wait for the device's current stream.
    pub fn dlpack_sync_to(_device: usize, _stream: i64) -> Result<()> {
        Err(not_compiled())
    }
    /// A storage over device memory owned elsewhere (an imported DLPack tensor).
    ///
    /// # Safety
    /// `ptr` must be device memory of `device`, valid for `nbytes` while `owner` lives.
    pub unsafe fn foreign_storage(
        _device: usize,
        _ptr: u64,
        _nbytes: usize,
        _owner: Box<dyn std::any::Any + Send + Sync>,
        _readonly: bool,
    ) -> Result<crate::Storage> {
        Err(not_compiled())
    }
}

#[cfg(feature = "cuda")]
mod imp {
    pub use super::super::runtime::api_impl::*;
}

pub use imp::*;

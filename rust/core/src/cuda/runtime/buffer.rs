//! Device memory: the driver as the caching allocator sees it, and the buffer a storage owns.
//! A buffer goes back to the allocator (not the driver) when the last tensor viewing it dies.

use super::device::DeviceState;
use super::streams::StreamRegistry;
use crate::cuda::allocator::{DeviceMemory, StreamId};
use crate::Result;
use cudarc::driver::{CudaContext, CudaEvent};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// cuMemAlloc/cuMemFree and stream markers for the allocator.
pub struct DriverMemory {
    ctx: Arc<CudaContext>,
    streams: StreamRegistry,
    markers: Mutex<(u64, HashMap<u64, CudaEvent>)>,
}

impl DriverMemory {
    pub fn new(ctx: Arc<CudaContext>, streams: StreamRegistry) -> DriverMemory {
        DriverMemory {
            ctx,
            streams,
            markers: Mutex::new((1, HashMap::new())),
        }
    }
    fn markers(&self) -> std::sync::MutexGuard<'_, (u64, HashMap<u64, CudaEvent>)> {
        self.markers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl DeviceMemory for DriverMemory {
    fn raw_alloc(&self, nbytes: usize) -> Option<u64> {
        self.ctx.bind_to_thread().ok()?;
        unsafe { cudarc::driver::result::malloc_sync(nbytes) }.ok()
    }
    fn raw_free(&self, ptr: u64) {
        if self.ctx.bind_to_thread().is_ok() {
            // Freeing synchronizes the device, so queued kernels using the block finish first.
            let _ = unsafe { cudarc::driver::result::free_sync(ptr) };
        }
    }
    fn record_event(&self, stream: StreamId) -> u64 {
        let ev = self.streams.get(stream).ok().and_then(|s| {
            let ev = self
                .ctx
                .new_event(Some(
                    cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING,
                ))
                .ok()?;
            ev.record(&s).ok()?;
            Some(ev)
        });
        let mut m = self.markers();
        let token = m.0;
        m.0 += 1;
        if let Some(ev) = ev {
            m.1.insert(token, ev);
        }
        token
    }
    fn event_done(&self, token: u64) -> bool {
        // A marker that could not be recorded is treated as done only after a full sync.
        match self.markers().1.get(&token) {
            Some(ev) => ev.is_complete(),
            None => self.ctx.synchronize().is_ok(),
        }
    }
    fn destroy_event(&self, token: u64) {
        self.markers().1.remove(&token);
    }
}

/// Device bytes owned by one storage; freed into the caching allocator on drop.
pub struct CudaBuffer {
    pub dev: Arc<DeviceState>,
    pub ptr: u64,
    pub nbytes: usize,
}

impl CudaBuffer {
    /// `nbytes` on `dev` for work on its current stream.
    pub fn alloc(dev: &Arc<DeviceState>, nbytes: usize) -> Result<CudaBuffer> {
        let stream = dev.streams.current_handle();
        let a = dev.allocator.malloc(nbytes, stream)?;
        Ok(CudaBuffer {
            dev: dev.clone(),
            ptr: a.ptr,
            nbytes,
        })
    }
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        if self.ptr != 0 {
            let _ = self.dev.allocator.free(self.ptr);
        }
    }
}

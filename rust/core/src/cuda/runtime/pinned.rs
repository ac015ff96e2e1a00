//! Page-locked ("pinned") host memory: `Tensor.pin_memory()` and the destination of
//! `.to("cpu", non_blocking=True)`. The device reads and writes it directly, so copies to and
//! from it run asynchronously on a stream instead of being staged by the driver.

use super::device::DeviceState;
use super::{driver_err, with_context};
use crate::Result;
use std::sync::Arc;

/// Host bytes allocated with `cuMemHostAlloc` in GPU `dev`'s context.
pub struct PinnedHost {
    pub dev: Arc<DeviceState>,
    pub ptr: *mut u8,
    pub nbytes: usize,
}

// The pointer is plain host memory owned by this value; access is governed by the tensors.
unsafe impl Send for PinnedHost {}
unsafe impl Sync for PinnedHost {}

impl PinnedHost {
    /// `nbytes` of page-locked host memory (contents unspecified).
    pub fn alloc(dev: &Arc<DeviceState>, nbytes: usize) -> Result<PinnedHost> {
        let ptr = if nbytes == 0 {
            std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut u8
        } else {
            with_context(dev, || {
                unsafe { cudarc::driver::result::malloc_host(nbytes, 0) }
                    .map_err(driver_err("allocating pinned host memory"))
            })? as *mut u8
        };
        Ok(PinnedHost {
            dev: dev.clone(),
            ptr,
            nbytes,
        })
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        if self.nbytes == 0 || self.dev.ctx.bind_to_thread().is_err() {
            return;
        }
        // An asynchronous copy may still read or write these bytes: let queued work finish.
        let _ = self.dev.ctx.synchronize();
        let _ = unsafe { cudarc::driver::result::free_host(self.ptr as *mut std::ffi::c_void) };
    }
}

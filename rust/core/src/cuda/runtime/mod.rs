//! The driver side of the backend: contexts, streams, events, device buffers, kernel loading.
//! Nothing here runs until a CUDA tensor or `ferrotorch.cuda` call asks for it.
// Kernel docs write index math (`out[i]`, `C[b]`) in brackets: those are not doc links.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod api_impl;
pub mod blas;
pub mod buffer;
pub mod copy;
pub mod device;
pub mod dlpack_streams;
pub mod kernels;
pub mod pinned;
pub mod streams;

pub use buffer::CudaBuffer;
pub use device::{device, DeviceState};

use crate::{Error, Result};

/// A driver error as ours, naming what was being done.
pub(crate) fn driver_err(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::runtime(format!("CUDA error during {what}: {e}"))
}

/// Runs `f` with the device's context current on this thread (driver calls need one).
pub(crate) fn with_context<T>(dev: &DeviceState, f: impl FnOnce() -> Result<T>) -> Result<T> {
    dev.ctx
        .bind_to_thread()
        .map_err(driver_err("binding the context"))?;
    f()
}

pub(crate) fn check(
    r: std::result::Result<(), cudarc::driver::DriverError>,
    what: &str,
) -> Result<()> {
    r.map_err(driver_err(what))
}

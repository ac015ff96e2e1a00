//! Bytes between host and device, and between devices. Host-to-device from pageable memory
//! is synchronous with respect to the host buffer (the driver stages it), so the source may
//! be dropped right after; from pinned memory it is asynchronous (callers wait unless asked
//! not to). Device-to-host waits for the stream, as `.cpu()` must, except into pinned memory
//! with `non_blocking=True`.

use super::device::DeviceState;
use super::{check, with_context};
use crate::Result;
use std::sync::Arc;

/// Copies `bytes` to device address `dst` on the current stream.
pub fn host_to_device(dev: &Arc<DeviceState>, dst: u64, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    with_context(dev, || {
        let s = dev.streams.current()?;
        // Pageable source: the driver copies it into staging before returning.
        check(
            unsafe { cudarc::driver::result::memcpy_htod_async(dst, bytes, s.cu_stream()) },
            "a host-to-device copy",
        )
    })
}

/// Copies device bytes at `src` into `out`, waiting for the current stream first.
pub fn device_to_host(dev: &Arc<DeviceState>, src: u64, out: &mut [u8]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    // SAFETY: `out` outlives the copy: the stream is waited for before returning.
    unsafe { device_to_host_async(dev, src, out)? };
    synchronize_current(dev)
}

/// Enqueues device bytes at `src` into `out` on the current stream and returns: `out` holds
/// them once the stream reaches this point (asynchronous only into pinned memory, as
/// `.to("cpu", non_blocking=True)` uses it).
///
/// # Safety
/// `out` must live until the stream has run the copy.
pub unsafe fn device_to_host_async(dev: &Arc<DeviceState>, src: u64, out: &mut [u8]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    with_context(dev, || {
        let s = dev.streams.current()?;
        check(
            cudarc::driver::result::memcpy_dtoh_async(out, src, s.cu_stream()),
            "a device-to-host copy",
        )
    })
}

/// Waits for the work queued on `dev`'s current stream.
pub fn synchronize_current(dev: &Arc<DeviceState>) -> Result<()> {
    with_context(dev, || {
        check(dev.streams.current()?.synchronize(), "stream synchronize")
    })
}

/// Device-to-device bytes on the current stream of `dev` (same device).
pub fn device_to_device(dev: &Arc<DeviceState>, dst: u64, src: u64, nbytes: usize) -> Result<()> {
    if nbytes == 0 {
        return Ok(());
    }
    with_context(dev, || {
        let s = dev.streams.current()?;
        check(
            unsafe { cudarc::driver::result::memcpy_dtod_async(dst, src, nbytes, s.cu_stream()) },
            "a device-to-device copy",
        )
    })
}

/// Between two GPUs: peer copy ordered after both devices' current streams.
pub fn peer(
    dst_dev: &Arc<DeviceState>,
    dst: u64,
    src_dev: &Arc<DeviceState>,
    src: u64,
    nbytes: usize,
) -> Result<()> {
    if nbytes == 0 {
        return Ok(());
    }
    let src_stream = src_dev.streams.current()?;
    check(src_stream.synchronize(), "synchronizing before a peer copy")?;
    with_context(dst_dev, || {
        let s = dst_dev.streams.current()?;
        check(
            unsafe {
                cudarc::driver::result::memcpy_peer_async(
                    dst_dev.ctx.cu_ctx(),
                    dst,
                    src_dev.ctx.cu_ctx(),
                    src,
                    nbytes,
                    s.cu_stream(),
                )
            },
            "a peer copy between GPUs",
        )
    })
}

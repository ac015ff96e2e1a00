//! The CUDA build's answers to `cuda::api`, from the driver and the per-device state.

use super::device::{available, device, device_count as count};
use super::{check, driver_err, with_context};
use crate::cuda::api::*;
use crate::{Error, Result};
use std::sync::atomic::Ordering;

pub fn is_available() -> bool {
    available().is_ok()
}
pub fn device_count() -> usize {
    count()
}
pub fn init() -> Result<()> {
    available()
}

thread_local! {
    static CURRENT_DEVICE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub fn current_device() -> Result<usize> {
    available()?;
    Ok(CURRENT_DEVICE.with(|c| c.get()))
}
pub fn set_device(d: usize) -> Result<()> {
    device(d)?;
    CURRENT_DEVICE.with(|c| c.set(d));
    Ok(())
}
pub fn device_properties(d: usize) -> Result<DeviceProperties> {
    let dev = device(d)?;
    let (major, minor) = dev
        .ctx
        .compute_capability()
        .map_err(driver_err("reading properties"))?;
    let sms = dev
        .ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .map_err(driver_err("reading properties"))?;
    Ok(DeviceProperties {
        name: dev
            .ctx
            .name()
            .map_err(driver_err("reading the device name"))?,
        major: major as u32,
        minor: minor as u32,
        total_memory: dev
            .ctx
            .total_mem()
            .map_err(driver_err("reading the memory size"))?,
        multi_processor_count: sms as u32,
    })
}
pub fn synchronize(d: usize) -> Result<()> {
    let dev = device(d)?;
    with_context(&dev, || check(dev.ctx.synchronize(), "synchronize"))
}
pub fn manual_seed(d: usize, seed: u64) -> Result<()> {
    let dev = device(d)?;
    dev.seed.store(seed, Ordering::Relaxed);
    dev.rng_offset.store(0, Ordering::Relaxed);
    Ok(())
}
pub fn initial_seed(d: usize) -> Result<u64> {
    Ok(device(d)?.seed.load(Ordering::Relaxed))
}
pub fn memory_stats(d: usize) -> Result<MemoryStats> {
    Ok(device(d)?.allocator.memory_stats())
}
pub fn reset_peak_memory_stats(d: usize) -> Result<()> {
    device(d)?.allocator.reset_peak_stats();
    Ok(())
}
pub fn empty_cache() -> Result<()> {
    for d in 0..count() {
        let dev = device(d)?;
        with_context(&dev, || {
            dev.allocator.empty_cache();
            Ok(())
        })?;
    }
    Ok(())
}
pub fn mem_get_info(d: usize) -> Result<(usize, usize)> {
    let dev = device(d)?;
    with_context(&dev, || {
        dev.ctx.mem_get_info().map_err(driver_err("cuMemGetInfo"))
    })
}
pub fn stream_create(d: usize, priority: i32) -> Result<Handle> {
    device(d)?.streams.create(priority)
}
pub fn current_stream(d: usize) -> Result<Handle> {
    Ok(device(d)?.streams.current_handle())
}
pub fn set_current_stream(d: usize, s: Handle) -> Result<()> {
    device(d)?.streams.set_current(s)
}
pub fn stream_synchronize(d: usize, s: Handle) -> Result<()> {
    let dev = device(d)?;
    let st = dev.streams.get(s)?;
    with_context(&dev, || check(st.synchronize(), "stream synchronize"))
}
pub fn stream_query(d: usize, s: Handle) -> Result<bool> {
    let dev = device(d)?;
    let st = dev.streams.get(s)?;
    with_context(&dev, || {
        match unsafe { cudarc::driver::sys::cuStreamQuery(st.cu_stream()) } {
            cudarc::driver::sys::CUresult::CUDA_SUCCESS => Ok(true),
            cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(Error::runtime(format!(
                "CUDA error during stream query: {e:?}"
            ))),
        }
    })
}
pub fn stream_wait_event(d: usize, s: Handle, e: Handle) -> Result<()> {
    let dev = device(d)?;
    let (st, ev) = (dev.streams.get(s)?, dev.streams.event(e)?);
    with_context(&dev, || check(st.wait(&ev), "stream wait_event"))
}
pub fn event_create(d: usize, enable_timing: bool) -> Result<Handle> {
    let dev = device(d)?;
    with_context(&dev, || dev.streams.event_create(enable_timing))
}
pub fn event_record(d: usize, e: Handle, s: Handle) -> Result<()> {
    let dev = device(d)?;
    let (st, ev) = (dev.streams.get(s)?, dev.streams.event(e)?);
    with_context(&dev, || check(ev.record(&st), "event record"))
}
pub fn event_synchronize(d: usize, e: Handle) -> Result<()> {
    let dev = device(d)?;
    let ev = dev.streams.event(e)?;
    with_context(&dev, || check(ev.synchronize(), "event synchronize"))
}
pub fn event_query(d: usize, e: Handle) -> Result<bool> {
    let dev = device(d)?;
    let ev = dev.streams.event(e)?;
    with_context(&dev, || {
        ev.try_is_complete().map_err(driver_err("event query"))
    })
}
pub fn event_elapsed_ms(d: usize, start: Handle, end: Handle) -> Result<f32> {
    let dev = device(d)?;
    let (a, b) = (dev.streams.event(start)?, dev.streams.event(end)?);
    with_context(&dev, || {
        a.elapsed_ms(&b).map_err(driver_err("event elapsed_time"))
    })
}
pub fn event_destroy(d: usize, e: Handle) -> Result<()> {
    device(d)?.streams.event_destroy(e);
    Ok(())
}
pub use super::dlpack_streams::{dlpack_stream, dlpack_sync_to};

/// # Safety
/// As `Storage::cuda_foreign`.
pub unsafe fn foreign_storage(
    d: usize,
    ptr: u64,
    nbytes: usize,
    owner: Box<dyn std::any::Any + Send + Sync>,
    readonly: bool,
) -> Result<crate::Storage> {
    crate::Storage::cuda_foreign(d, ptr, nbytes, owner, readonly)
}

pub fn record_stream(t: &crate::Tensor, s: Handle) -> Result<()> {
    match t.storage().cuda_buffer() {
        Some(buf) => {
            buf.dev.allocator.record_stream(buf.ptr, s);
            Ok(())
        }
        None => Err(Error::runtime("record_stream: expected a CUDA tensor")),
    }
}

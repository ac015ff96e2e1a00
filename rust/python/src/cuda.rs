//! `ferrotorch.cuda`'s primitives: one thin function per call of `ferrotorch::cuda::api`.
//! The Python package `ferrotorch/cuda/` builds PyTorch's API (lazy init, device arguments,
//! Stream and Event objects) on top of these.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::cuda::api::{self, Handle};
use pyo3::prelude::*;

/// Whether this build has the CUDA backend compiled in (the `cuda` feature).
#[pyfunction]
fn _cuda_is_compiled() -> bool {
    cfg!(feature = "cuda")
}

#[pyfunction]
fn _cuda_is_available() -> bool {
    api::is_available()
}

#[pyfunction]
fn _cuda_device_count() -> usize {
    api::device_count()
}

/// Loads the driver and creates the contexts (without the GIL: this can take a while).
#[pyfunction]
fn _cuda_init(py: Python<'_>) -> PyResult<()> {
    py.detach(api::init).py()
}

#[pyfunction]
fn _cuda_current_device() -> PyResult<usize> {
    api::current_device().py()
}

#[pyfunction]
fn _cuda_set_device(device: usize) -> PyResult<()> {
    api::set_device(device).py()
}

/// `(name, major, minor, total_memory, multi_processor_count)`.
#[pyfunction]
fn _cuda_device_properties(device: usize) -> PyResult<(String, u32, u32, usize, u32)> {
    let p = api::device_properties(device).py()?;
    Ok((
        p.name,
        p.major,
        p.minor,
        p.total_memory,
        p.multi_processor_count,
    ))
}

#[pyfunction]
fn _cuda_synchronize(py: Python<'_>, device: usize) -> PyResult<()> {
    py.detach(|| api::synchronize(device)).py()
}

#[pyfunction]
fn _cuda_manual_seed(device: usize, seed: u64) -> PyResult<()> {
    api::manual_seed(device, seed).py()
}

#[pyfunction]
fn _cuda_initial_seed(device: usize) -> PyResult<u64> {
    api::initial_seed(device).py()
}

/// The allocator's counters as `(key, value)` pairs with PyTorch's key names.
#[pyfunction]
fn _cuda_memory_stats(device: usize) -> PyResult<Vec<(String, i64)>> {
    api::memory_stats(device).py()
}

#[pyfunction]
fn _cuda_reset_peak_memory_stats(device: usize) -> PyResult<()> {
    api::reset_peak_memory_stats(device).py()
}

#[pyfunction]
fn _cuda_empty_cache() -> PyResult<()> {
    api::empty_cache().py()
}

/// `(free, total)` bytes.
#[pyfunction]
fn _cuda_mem_get_info(device: usize) -> PyResult<(usize, usize)> {
    api::mem_get_info(device).py()
}

#[pyfunction]
fn _cuda_stream_create(device: usize, priority: i32) -> PyResult<Handle> {
    api::stream_create(device, priority).py()
}

#[pyfunction]
fn _cuda_current_stream(device: usize) -> PyResult<Handle> {
    api::current_stream(device).py()
}

#[pyfunction]
fn _cuda_set_current_stream(device: usize, stream: Handle) -> PyResult<()> {
    api::set_current_stream(device, stream).py()
}

#[pyfunction]
fn _cuda_stream_synchronize(py: Python<'_>, device: usize, stream: Handle) -> PyResult<()> {
    py.detach(|| api::stream_synchronize(device, stream)).py()
}

#[pyfunction]
fn _cuda_stream_query(device: usize, stream: Handle) -> PyResult<bool> {
    api::stream_query(device, stream).py()
}

#[pyfunction]
fn _cuda_stream_wait_event(device: usize, stream: Handle, event: Handle) -> PyResult<()> {
    api::stream_wait_event(device, stream, event).py()
}

#[pyfunction]
fn _cuda_event_create(device: usize, enable_timing: bool) -> PyResult<Handle> {
    api::event_create(device, enable_timing).py()
}

#[pyfunction]
fn _cuda_event_record(device: usize, event: Handle, stream: Handle) -> PyResult<()> {
    api::event_record(device, event, stream).py()
}

#[pyfunction]
fn _cuda_event_synchronize(py: Python<'_>, device: usize, event: Handle) -> PyResult<()> {
    py.detach(|| api::event_synchronize(device, event)).py()
}

#[pyfunction]
fn _cuda_event_query(device: usize, event: Handle) -> PyResult<bool> {
    api::event_query(device, event).py()
}

#[pyfunction]
fn _cuda_event_elapsed_ms(device: usize, start: Handle, end: Handle) -> PyResult<f32> {
    api::event_elapsed_ms(device, start, end).py()
}

#[pyfunction]
fn _cuda_event_destroy(device: usize, event: Handle) -> PyResult<()> {
    api::event_destroy(device, event).py()
}

/// `Tensor.record_stream`: the allocator keeps the tensor's memory until `stream` is past it.
#[pyfunction]
fn _cuda_record_stream(tensor: PyRef<'_, PyTensor>, stream: Handle) -> PyResult<()> {
    api::record_stream(&tensor.t, stream).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_cuda_is_compiled, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_is_available, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_device_count, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_init, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_current_device, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_set_device, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_device_properties, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_initial_seed, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_memory_stats, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_reset_peak_memory_stats, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_empty_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_mem_get_info, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_stream_create, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_current_stream, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_set_current_stream, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_stream_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_stream_query, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_stream_wait_event, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_create, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_record, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_query, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_elapsed_ms, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_event_destroy, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_record_stream, m)?)?;
    Ok(())
}

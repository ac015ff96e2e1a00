//! Autocast bindings: the per-thread state behind `torch.autocast` and `torch.*autocast*`, and
//! the input cast that ops written in Python ask for (ops bound here call the core directly).

use crate::dtype::{dtype_obj, extract_dtype, PyDType};
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::autocast::{self, DeviceType};
use ferrotorch::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::borrow::Cow;

fn device_type(name: &str) -> PyResult<DeviceType> {
    DeviceType::parse(name).ok_or_else(|| {
        PyRuntimeError::new_err(format!(
            "autocast: no autocast state for device type '{name}' (expected 'cpu' or 'cuda')"
        ))
    })
}

/// `op`'s inputs as autocast would run them, or the same inputs when it leaves them alone.
pub fn cast_inputs(op: &str, inputs: &[&Tensor]) -> PyResult<Option<Vec<Tensor>>> {
    autocast::cast_inputs(op, inputs).py()
}

/// `(a, b)` after autocast for `op`; borrowed as they are when autocast leaves them alone
/// (the fast path is one atomic load: no reference counting, no error plumbing).
#[inline(always)]
pub fn cast_pair<'a>(
    op: &str,
    a: &'a Tensor,
    b: &'a Tensor,
) -> PyResult<(Cow<'a, Tensor>, Cow<'a, Tensor>)> {
    if !autocast::is_active() {
        return Ok((Cow::Borrowed(a), Cow::Borrowed(b)));
    }
    cast_pair_active(op, a, b)
}

#[cold]
#[inline(never)]
fn cast_pair_active<'a>(
    op: &str,
    a: &'a Tensor,
    b: &'a Tensor,
) -> PyResult<(Cow<'a, Tensor>, Cow<'a, Tensor>)> {
    let (a, b) = autocast::cast_pair(op, a, b).py()?;
    Ok((Cow::Owned(a), Cow::Owned(b)))
}

/// The one input of `op` after autocast (borrowed when autocast leaves it alone).
#[inline(always)]
pub fn cast_one<'a>(op: &str, t: &'a Tensor) -> PyResult<Cow<'a, Tensor>> {
    if !autocast::is_active() {
        return Ok(Cow::Borrowed(t));
    }
    cast_one_active(op, t)
}

#[cold]
#[inline(never)]
fn cast_one_active<'a>(op: &str, t: &'a Tensor) -> PyResult<Cow<'a, Tensor>> {
    Ok(match cast_inputs(op, &[t])? {
        Some(mut v) => Cow::Owned(v.pop().expect("one input")),
        None => Cow::Borrowed(t),
    })
}

/// [`cast_one`] for ops with an optional output dtype: an explicit dtype wins over autocast.
#[inline(always)]
pub fn cast_unless_dtype<'a>(
    op: &str,
    t: &'a Tensor,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Cow<'a, Tensor>> {
    match dtype {
        Some(d) if !d.is_none() => Ok(Cow::Borrowed(t)),
        _ => cast_one(op, t),
    }
}

/// A list input (`cat`, `stack`) after autocast.
pub fn cast_list(op: &str, ts: Vec<Tensor>) -> PyResult<Vec<Tensor>> {
    if !autocast::is_active() {
        return Ok(ts);
    }
    let refs: Vec<&Tensor> = ts.iter().collect();
    Ok(cast_inputs(op, &refs)?.unwrap_or(ts))
}

#[pyfunction]
fn _is_autocast_enabled(device_type_name: &str) -> PyResult<bool> {
    Ok(autocast::is_enabled(device_type(device_type_name)?))
}

#[pyfunction]
fn _set_autocast_enabled(device_type_name: &str, enabled: bool) -> PyResult<()> {
    autocast::set_enabled(device_type(device_type_name)?, enabled);
    Ok(())
}

#[pyfunction]
fn _get_autocast_dtype(py: Python<'_>, device_type_name: &str) -> PyResult<Py<PyDType>> {
    Ok(dtype_obj(
        py,
        autocast::dtype(device_type(device_type_name)?),
    ))
}

#[pyfunction]
fn _set_autocast_dtype(device_type_name: &str, dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    autocast::set_dtype(device_type(device_type_name)?, extract_dtype(dtype)?);
    Ok(())
}

#[pyfunction]
fn is_autocast_cache_enabled() -> bool {
    autocast::is_cache_enabled()
}

#[pyfunction]
fn set_autocast_cache_enabled(enabled: bool) {
    autocast::set_cache_enabled(enabled)
}

#[pyfunction]
fn autocast_increment_nesting() -> i64 {
    autocast::increment_nesting()
}

#[pyfunction]
fn autocast_decrement_nesting() -> i64 {
    autocast::decrement_nesting()
}

#[pyfunction]
fn clear_autocast_cache() {
    autocast::clear_cache()
}

/// Whether any autocast region is on (the check Python-level ops make first).
#[pyfunction]
fn _autocast_active() -> bool {
    autocast::is_active()
}

/// Turns autocast off on this thread and returns the state for `_autocast_restore`.
#[pyfunction]
fn _autocast_suspend() -> u8 {
    autocast::suspend()
}

#[pyfunction]
fn _autocast_restore(state: u8) {
    autocast::restore(state)
}

/// The tensors `op` should run on, in order, or None when autocast leaves them alone.
#[pyfunction]
#[pyo3(signature = (op, *tensors))]
fn _autocast_inputs<'py>(
    py: Python<'py>,
    op: &str,
    tensors: Vec<PyRef<'py, PyTensor>>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let inputs: Vec<&Tensor> = tensors.iter().map(|t| &t.t).collect();
    match cast_inputs(op, &inputs)? {
        None => Ok(None),
        Some(cast) => {
            let objs = cast
                .into_iter()
                .map(|t| Py::new(py, PyTensor::new(t)))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Some(PyTuple::new(py, objs)?))
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_is_autocast_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_autocast_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_get_autocast_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(_set_autocast_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(is_autocast_cache_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(set_autocast_cache_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autocast_increment_nesting, m)?)?;
    m.add_function(wrap_pyfunction!(autocast_decrement_nesting, m)?)?;
    m.add_function(wrap_pyfunction!(clear_autocast_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_active, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_suspend, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_restore, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_inputs, m)?)?;
    Ok(())
}

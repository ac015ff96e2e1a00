//! Raw storage access for checkpoint files: the size of the storage under a tensor, and
//! views of any layout and dtype over it (what PyTorch's `set_(storage, offset, size, stride)`
//! gives), so loaded tensors that share a record share memory as they did when saved.

use crate::dtype::extract_dtype;
use crate::tensor::PyTensor;
use ferrotorch::{DType, Device, Layout, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// Bytes in the storage under `t` (all of it, not just the part `t` views).
#[pyfunction]
fn _storage_nbytes(t: PyRef<'_, PyTensor>) -> usize {
    t.t.storage().nbytes()
}

/// One past the last element a layout touches, in elements (None on overflow).
fn layout_end(shape: &[usize], strides: &[usize], offset: usize) -> Option<usize> {
    if shape.contains(&0) {
        return Some(offset);
    }
    shape
        .iter()
        .zip(strides)
        .try_fold(offset + 1, |end, (&n, &s)| {
            (n - 1)
                .checked_mul(s)
                .and_then(|span| end.checked_add(span))
        })
}

/// A tensor of `dtype` (default: `t`'s) over `t`'s storage with the given shape, strides and
/// offset (in elements of `dtype`), detached from autograd. Host bytes read as bool must be 0 or 1.
#[pyfunction]
#[pyo3(signature = (t, shape, strides, offset, dtype=None))]
fn _storage_view(
    t: PyRef<'_, PyTensor>,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let src = t.t.dtype();
    let dt = match dtype {
        Some(d) => extract_dtype(d)?,
        None => src,
    };
    if shape.len() != strides.len() {
        return Err(PyValueError::new_err(format!(
            "_storage_view: {} sizes but {} strides",
            shape.len(),
            strides.len()
        )));
    }
    let storage = t.t.storage();
    let item = dt.size();
    let end_bytes = layout_end(&shape, &strides, offset).and_then(|e| e.checked_mul(item));
    match end_bytes {
        Some(end) if end <= storage.nbytes() => {}
        _ => {
            return Err(PyRuntimeError::new_err(format!(
                "setStorage: sizes {shape:?}, strides {strides:?}, storage offset {offset}, and itemsize {item} \
                 are out of bounds for storage of size {}",
                storage.nbytes()
            )))
        }
    }
    let end = end_bytes.unwrap_or(0);
    if dt != src {
        if storage.device() != Device::Cpu {
            return Err(PyRuntimeError::new_err(
                "_storage_view: reinterpreting the dtype of a storage needs it on the CPU",
            ));
        }
        if !(storage.ptr() as usize).is_multiple_of(item.min(8)) {
            return Err(PyRuntimeError::new_err(format!(
                "_storage_view: storage address is not aligned for {dt:?}"
            )));
        }
        if dt == DType::Bool && end > offset {
            // Only 0 and 1 are valid bools; anything else would be undefined behaviour to read.
            let bytes =
                unsafe { std::slice::from_raw_parts(storage.ptr().add(offset), end - offset) };
            if bytes.iter().any(|&b| b > 1) {
                return Err(PyRuntimeError::new_err(
                    "_storage_view: bytes other than 0 and 1 cannot be read as bool",
                ));
            }
        }
    }
    let layout = Layout {
        shape,
        strides,
        offset,
    };
    Ok(PyTensor::new(Tensor::from_parts(
        storage.clone(),
        layout,
        dt,
    )))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_storage_nbytes, m)?)?;
    m.add_function(wrap_pyfunction!(_storage_view, m)?)?;
    Ok(())
}

//! Views with explicit geometry (`unfold`, `as_strided`) and the in-place view ops, which
//! rebind this tensor object to the view as PyTorch's do.

use crate::convert::int_list;
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::{Result, Tensor};
use pyo3::prelude::*;

/// Runs `f` on the tensor and rebinds `slf` to its result after the in-place checks.
fn rebind<'py>(
    mut slf: PyRefMut<'py, PyTensor>,
    op: &str,
    f: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> PyResult<PyRefMut<'py, PyTensor>> {
    let view = f(&slf.t).py()?;
    slf.t.begin_inplace_view(op).py()?;
    slf.t = view;
    Ok(slf)
}

#[pymethods]
impl PyTensor {
    /// `unfold(dimension, size, step)`: the windows of `size` along `dimension`, as a view.
    fn unfold(&self, dimension: i64, size: i64, step: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.unfold(dimension, size, step).py()?))
    }
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided(
        &self,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        storage_offset: Option<i64>,
    ) -> PyResult<PyTensor> {
        let (size, stride) = (int_list(size)?, int_list(stride)?);
        Ok(PyTensor::new(
            self.t.as_strided(&size, &stride, storage_offset).py()?,
        ))
    }
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided_<'py>(
        slf: PyRefMut<'py, Self>,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        storage_offset: Option<i64>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let (size, stride) = (int_list(size)?, int_list(stride)?);
        rebind(slf, "as_strided_", |t| {
            t.as_strided(&size, &stride, storage_offset)
        })
    }
    fn t_(slf: PyRefMut<'_, Self>) -> PyResult<PyRefMut<'_, Self>> {
        rebind(slf, "t_", |t| t.t())
    }
    fn transpose_(slf: PyRefMut<'_, Self>, dim0: i64, dim1: i64) -> PyResult<PyRefMut<'_, Self>> {
        rebind(slf, "transpose_", |t| t.transpose(dim0, dim1))
    }
    fn swapaxes_(slf: PyRefMut<'_, Self>, axis0: i64, axis1: i64) -> PyResult<PyRefMut<'_, Self>> {
        rebind(slf, "swapaxes_", |t| t.transpose(axis0, axis1))
    }
    fn swapdims_(slf: PyRefMut<'_, Self>, dim0: i64, dim1: i64) -> PyResult<PyRefMut<'_, Self>> {
        rebind(slf, "swapdims_", |t| t.transpose(dim0, dim1))
    }
    #[pyo3(signature = (dim=None))]
    fn squeeze_<'py>(
        slf: PyRefMut<'py, Self>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let dims = dim.map(int_list).transpose()?;
        rebind(slf, "squeeze_", |t| t.squeeze(dims.as_deref()))
    }
    fn unsqueeze_(slf: PyRefMut<'_, Self>, dim: i64) -> PyResult<PyRefMut<'_, Self>> {
        rebind(slf, "unsqueeze_", |t| t.unsqueeze(dim))
    }
}

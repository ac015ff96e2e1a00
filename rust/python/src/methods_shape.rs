//! View and shape methods: view, reshape, permute, transpose, squeeze, narrow, split ...

use crate::convert::{int_list, sizes_from_args};
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn wrap_all(ts: Vec<Tensor>) -> Vec<PyTensor> {
    ts.into_iter().map(PyTensor::new).collect()
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (*shape))]
    fn view(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        if shape.len() == 1 {
            if let Ok(d) = crate::dtype::extract_dtype(&shape.get_item(0)?) {
                return Ok(PyTensor::new(self.t.view_dtype(d).py()?));
            }
        }
        Ok(PyTensor::new(self.t.view(&sizes_from_args(shape)?).py()?))
    }
    fn view_as(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        Ok(PyTensor::new(self.t.view(&s).py()?))
    }
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.reshape(&sizes_from_args(shape)?).py()?,
        ))
    }
    fn reshape_as(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        Ok(PyTensor::new(self.t.reshape(&s).py()?))
    }
    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    fn flatten(&self, start_dim: i64, end_dim: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.flatten(start_dim, end_dim).py()?))
    }
    fn ravel(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.reshape(&[-1]).py()?))
    }
    fn unflatten(&self, dim: i64, sizes: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.unflatten(dim, &int_list(sizes)?).py()?,
        ))
    }
    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        if dims.is_empty() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "permute() missing 1 required positional arguments: \"dims\"",
            ));
        }
        Ok(PyTensor::new(self.t.permute(&sizes_from_args(dims)?).py()?))
    }
    fn transpose(&self, dim0: i64, dim1: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.transpose(dim0, dim1).py()?))
    }
    fn swapaxes(&self, axis0: i64, axis1: i64) -> PyResult<PyTensor> {
        self.transpose(axis0, axis1)
    }
    fn swapdims(&self, dim0: i64, dim1: i64) -> PyResult<PyTensor> {
        self.transpose(dim0, dim1)
    }
    fn t(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.t().py()?))
    }
    /// `T`: all dims reversed.
    #[getter(T)]
    fn t_all(&self) -> PyResult<PyTensor> {
        let n = self.t.ndim() as i64;
        let dims: Vec<i64> = (0..n).rev().collect();
        Ok(PyTensor::new(self.t.permute(&dims).py()?))
    }
    /// `mT`: the last two dims swapped.
    #[getter(mT)]
    fn m_t(&self) -> PyResult<PyTensor> {
        if self.t.ndim() < 2 {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                self.t.ndim()
            )));
        }
        Ok(PyTensor::new(self.t.transpose(-2, -1).py()?))
    }
    /// `H`: the conjugate transpose of a matrix (a transpose for real tensors; a 0-d
    /// tensor is its own transpose).
    #[getter(H)]
    fn h(&self) -> PyResult<PyTensor> {
        match self.t.ndim() {
            0 => conj_if_complex(self.t.clone()),
            2 => conj_if_complex(self.t.t().py()?),
            n => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{}",
                if n > 2 {
                    " For batches of matrices, consider using tensor.mH"
                } else {
                    ""
                }
            ))),
        }
    }
    /// `mH`: the last two dims swapped and, for complex tensors, conjugated.
    #[getter(mH)]
    fn m_h(&self) -> PyResult<PyTensor> {
        adjoint_of(&self.t, "tensor.mH")
    }
    /// `adjoint()`: the same as `mH`.
    fn adjoint(&self) -> PyResult<PyTensor> {
        adjoint_of(&self.t, "tensor.adjoint()")
    }
    #[pyo3(signature = (*sizes))]
    fn expand(&self, sizes: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        if sizes.is_empty() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expand() missing 1 required positional arguments: \"size\"",
            ));
        }
        Ok(PyTensor::new(self.t.expand(&sizes_from_args(sizes)?).py()?))
    }
    fn expand_as(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.broadcast_to(other.t.shape()).py()?))
    }
    fn broadcast_to(&self, size: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.expand(&int_list(size)?).py()?))
    }
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let dims = match dim {
            None => None,
            Some(d) => Some(int_list(d)?),
        };
        Ok(PyTensor::new(self.t.squeeze(dims.as_deref()).py()?))
    }
    fn unsqueeze(&self, dim: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.unsqueeze(dim).py()?))
    }
    fn narrow(&self, dim: i64, start: i64, length: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.narrow(dim, start, length).py()?))
    }
    fn select(&self, dim: i64, index: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.select(dim, index).py()?))
    }
    #[pyo3(signature = (offset=0, dim1=0, dim2=1))]
    fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.diagonal(offset, dim1, dim2).py()?))
    }
    #[pyo3(signature = (dim=0))]
    fn unbind(&self, dim: i64) -> PyResult<Vec<PyTensor>> {
        Ok(wrap_all(self.t.unbind(dim).py()?))
    }
    #[pyo3(signature = (split_size_or_sections, dim=0))]
    fn split(
        &self,
        split_size_or_sections: &Bound<'_, PyAny>,
        dim: i64,
    ) -> PyResult<Vec<PyTensor>> {
        if let Ok(n) = split_size_or_sections.extract::<i64>() {
            if n < 0 {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "split expects split_size be non-negative, but got split_size={n}"
                )));
            }
            return Ok(wrap_all(self.t.split(n as usize, dim).py()?));
        }
        let sizes: Vec<usize> = int_list(split_size_or_sections)?
            .iter()
            .map(|&s| s.max(0) as usize)
            .collect();
        Ok(wrap_all(self.t.split_with_sizes(&sizes, dim).py()?))
    }
    #[pyo3(signature = (chunks, dim=0))]
    fn chunk(&self, chunks: i64, dim: i64) -> PyResult<Vec<PyTensor>> {
        if chunks <= 0 {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "chunk expects `chunks` to be greater than 0, got: {chunks}"
            )));
        }
        Ok(wrap_all(self.t.chunk(chunks as usize, dim).py()?))
    }
    #[pyo3(signature = (*dims))]
    fn flip(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.flip(&sizes_from_args(dims)?).py()?))
    }
    fn gather(&self, dim: i64, index: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.gather(dim, &index.t).py()?))
    }
    fn index_select(&self, dim: i64, index: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.index_select(dim, &index.t).py()?))
    }
}

/// The conjugate of a complex tensor (a lazy view), the tensor itself otherwise.
fn conj_if_complex(t: ferrotorch::Tensor) -> PyResult<PyTensor> {
    Ok(PyTensor::new(if t.dtype().is_complex() {
        t.conj().py()?
    } else {
        t
    }))
}

/// `mH` / `adjoint()`: the conjugate transpose of (batches of) matrices; a 0-d tensor is
/// only conjugated, as PyTorch still allows.
fn adjoint_of(t: &ferrotorch::Tensor, what: &str) -> PyResult<PyTensor> {
    if t.ndim() == 0 {
        return conj_if_complex(t.clone());
    }
    if t.ndim() < 2 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{what} is only supported on matrices or batches of matrices. Got {}-D tensor.",
            t.ndim()
        )));
    }
    conj_if_complex(t.transpose(-2, -1).py()?)
}

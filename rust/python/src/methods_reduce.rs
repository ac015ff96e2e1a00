//! Reductions as methods: `t.sum(dim, keepdim)`, `t.mean()`, `t.max(dim)` ...

use crate::convert::extract_dims;
use crate::dtype::extract_dtype;
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use pyo3::prelude::*;

fn cast_opt(
    t: &ferrotorch::Tensor,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<ferrotorch::Tensor> {
    match dtype {
        Some(d) if !d.is_none() => t.to_dtype(extract_dtype(d)?).py(),
        _ => Ok(t.clone()),
    }
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn sum(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let dims = extract_dims(dim)?;
        let src = crate::autocast::cast_unless_dtype("sum", &self.t, dtype)?;
        let t = cast_opt(&src, dtype)?;
        let r = ferrotorch::profiler::run("aten::sum", &[&t], || {
            py.detach(|| t.sum_dims(&dims, keepdim))
        });
        Ok(PyTensor::new(cast_result(r.py()?, dtype)?))
    }
    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn mean(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let dims = extract_dims(dim)?;
        let t = cast_opt(&self.t, dtype)?;
        let r = ferrotorch::profiler::run("aten::mean", &[&t], || {
            py.detach(|| t.mean_dims(&dims, keepdim))
        });
        Ok(PyTensor::new(r.py()?))
    }
    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn prod(
        &self,
        dim: Option<i64>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        // CPU autocast runs prod in float32 whatever `dtype` says; CUDA lets `dtype` win.
        let src = match self.t.device() {
            ferrotorch::Device::Cpu => crate::autocast::cast_one("prod", &self.t)?,
            _ => crate::autocast::cast_unless_dtype("prod", &self.t, dtype)?,
        };
        let t = cast_opt(&src, dtype)?;
        let dims: Vec<i64> = dim.into_iter().collect();
        let r = ferrotorch::profiler::run("aten::prod", &[&t], || t.prod_dims(&dims, keepdim));
        Ok(PyTensor::new(cast_result(r.py()?, dtype)?))
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amax(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.amax_dims(&extract_dims(dim)?, keepdim, true).py()?,
        ))
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amin(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.amax_dims(&extract_dims(dim)?, keepdim, false).py()?,
        ))
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmax(&self, dim: Option<i64>, keepdim: bool) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.argmax(dim, keepdim, true).py()?))
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmin(&self, dim: Option<i64>, keepdim: bool) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.argmax(dim, keepdim, false).py()?))
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn all(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        all_any(&self.t, dim, keepdim, true)
    }
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn any(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<PyTensor> {
        all_any(&self.t, dim, keepdim, false)
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let src = crate::autocast::cast_unless_dtype("cumsum", &self.t, dtype)?;
        let r = cast_opt(&src, dtype)?.cumsum(dim).py()?;
        Ok(PyTensor::new(cast_result(r, dtype)?))
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(&self, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let src = crate::autocast::cast_unless_dtype("cumprod", &self.t, dtype)?;
        let r = cast_opt(&src, dtype)?.cumprod(dim).py()?;
        Ok(PyTensor::new(cast_result(r, dtype)?))
    }
}

/// An explicit `dtype=` is the result dtype too (integer scans accumulate in int64).
fn cast_result(
    r: ferrotorch::Tensor,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<ferrotorch::Tensor> {
    match dtype {
        Some(d) if !d.is_none() => {
            let dt = crate::dtype::extract_dtype(d)?;
            if r.dtype() == dt {
                Ok(r)
            } else {
                r.to_dtype(dt).py()
            }
        }
        _ => Ok(r),
    }
}

/// `all`/`any`: an explicit empty dim list reduces nothing (each element tested on its own),
/// unlike `sum(dim=())`, which PyTorch still treats as a full reduction.
fn all_any(
    t: &ferrotorch::Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    all: bool,
) -> PyResult<PyTensor> {
    let empty = dim.is_some_and(|d| !d.is_none() && d.len().is_ok_and(|n| n == 0));
    if empty {
        let b = t.to_dtype(ferrotorch::DType::Bool).py()?;
        let out_dt = if t.dtype() == ferrotorch::DType::U8 {
            ferrotorch::DType::U8
        } else {
            ferrotorch::DType::Bool
        };
        return Ok(PyTensor::new(b.to_dtype(out_dt).py()?));
    }
    Ok(PyTensor::new(
        t.all_any(&extract_dims(dim)?, keepdim, all).py()?,
    ))
}

//! Tensor methods of the special functions (`t.lgamma()`, `t.polygamma(n)`, `t.mvlgamma(p)`,
//! `t.igamma(other)`, ...) and their in-place forms.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::ops::special::SpecialOp;
use ferrotorch::ops::special_binary::SpecialBinaryOp;
use pyo3::prelude::*;

macro_rules! special_methods {
    ($($name:ident, $name_:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>) -> PyResult<PyTensor> {
                    let t = &self.t;
                    Ok(PyTensor::new(py.detach(|| t.special($op)).py()?))
                }
                fn $name_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
                    slf.t.apply_inplace(stringify!($name_), &[], |s| s.special($op)).py()?;
                    Ok(slf)
                }
            )*
        }
    };
}

special_methods! {
    lgamma, lgamma_ => SpecialOp::Lgamma;
    digamma, digamma_ => SpecialOp::Digamma;
    erfc, erfc_ => SpecialOp::Erfc;
    i0, i0_ => SpecialOp::I0;
    sinc, sinc_ => SpecialOp::Sinc;
}

#[pymethods]
impl PyTensor {
    fn polygamma(&self, n: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.polygamma(n).py()?))
    }
    fn polygamma_(slf: PyRef<'_, Self>, n: i64) -> PyResult<PyRef<'_, Self>> {
        slf.t
            .apply_inplace("polygamma_", &[], |s| s.polygamma(n))
            .py()?;
        Ok(slf)
    }
    fn mvlgamma(&self, p: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.mvlgamma(p).py()?))
    }
    fn mvlgamma_(slf: PyRef<'_, Self>, p: i64) -> PyResult<PyRef<'_, Self>> {
        slf.t
            .apply_inplace("mvlgamma_", &[], |s| s.mvlgamma(p))
            .py()?;
        Ok(slf)
    }
    fn igamma(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.igamma(&other.t).py()?))
    }
    fn igamma_<'py>(
        slf: PyRef<'py, Self>,
        other: PyRef<'py, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let o = other.t.clone();
        slf.t
            .apply_inplace("igamma_", &[&o], |s| {
                s.special_binary(SpecialBinaryOp::Gammainc, &o)
            })
            .py()?;
        Ok(slf)
    }
    fn igammac(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.igammac(&other.t).py()?))
    }
    fn igammac_<'py>(
        slf: PyRef<'py, Self>,
        other: PyRef<'py, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let o = other.t.clone();
        slf.t
            .apply_inplace("igammac_", &[&o], |s| {
                s.special_binary(SpecialBinaryOp::Gammaincc, &o)
            })
            .py()?;
        Ok(slf)
    }
}

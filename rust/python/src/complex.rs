//! Complex numbers: `Tensor.real`/`.imag`, `conj`, `angle`, `sgn`, and the functions
//! `torch.complex`, `torch.polar`, `torch.view_as_real`, `torch.view_as_complex`.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyComplex;

#[pymethods]
impl PyTensor {
    /// The real parts, a view sharing memory (the tensor itself when it is not complex).
    #[getter]
    fn real(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.real().py()?))
    }
    #[setter(real)]
    fn set_real(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let view = self.t.real().py()?;
        PyTensor::new(view).copy_from_value(value, "real")
    }
    /// The imaginary parts of a complex tensor, a view sharing memory.
    #[getter]
    fn imag(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.imag().py()?))
    }
    #[setter(imag)]
    fn set_imag(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let view = self.t.imag().py()?;
        PyTensor::new(view).copy_from_value(value, "imag")
    }
    fn conj(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.conj().py()?))
    }
    fn conj_physical(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.conj().py()?))
    }
    fn conj_physical_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        slf.t
            .apply_inplace("conj_physical_", &[], |s| s.conj())
            .py()?;
        Ok(slf)
    }
    /// Conjugation is always materialized here, so there is no lazy bit to resolve.
    fn resolve_conj(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn resolve_neg(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn is_conj(&self) -> bool {
        false
    }
    fn is_neg(&self) -> bool {
        false
    }
    fn angle(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.angle().py()?))
    }
    fn sgn(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.sgn().py()?))
    }
    fn sgn_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        slf.t.apply_inplace("sgn_", &[], |s| s.sgn()).py()?;
        Ok(slf)
    }
    fn is_complex(&self) -> bool {
        self.t.dtype().is_complex()
    }
    fn __complex__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let (re, im) = self.t.item().py()?.to_complex();
        Ok(PyComplex::from_doubles(py, re, im).into_any().unbind())
    }
}

impl PyTensor {
    /// `t.real = value`: writes a tensor or number into the view.
    fn copy_from_value(&self, value: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
        let src = match value.cast::<PyTensor>() {
            Ok(v) => v.borrow().t.clone(),
            Err(_) => match crate::convert::extract_scalar(value)? {
                Some(s) => ferrotorch::Tensor::scalar(s, self.t.dtype()),
                None => {
                    return Err(PyTypeError::new_err(format!(
                        "{what}: expected a Tensor or a number, got {}",
                        value.get_type().name()?
                    )))
                }
            },
        };
        self.t
            .apply_inplace("copy_", &[&src], |_| {
                src.to_dtype(self.t.dtype())?.broadcast_to(self.t.shape())
            })
            .py()
    }
}

/// `torch.complex(real, imag)`.
#[pyfunction]
fn complex(real: PyRef<'_, PyTensor>, imag: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        ferrotorch::Tensor::complex(&real.t, &imag.t).py()?,
    ))
}

/// `torch.polar(abs, angle)`.
#[pyfunction]
fn polar(abs: PyRef<'_, PyTensor>, angle: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        ferrotorch::Tensor::polar(&abs.t, &angle.t).py()?,
    ))
}

/// `torch.view_as_real(input)`.
#[pyfunction]
fn view_as_real(input: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.view_as_real().py()?))
}

/// `torch.view_as_complex(input)`.
#[pyfunction]
fn view_as_complex(input: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.view_as_complex().py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(complex, m)?)?;
    m.add_function(wrap_pyfunction!(polar, m)?)?;
    m.add_function(wrap_pyfunction!(view_as_real, m)?)?;
    m.add_function(wrap_pyfunction!(view_as_complex, m)?)?;
    Ok(())
}

//! `torch.fft`: one entry point for every transform (the Python module names them).

use crate::convert::int_list;
use crate::errors::IntoPy;
use crate::tensor::{default_dtype, PyTensor};
use ferrotorch::ops::fft::FftKind;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Sizes or dims: None, one int, or a sequence of ints.
fn opt_ints(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match ob {
        Some(o) if !o.is_none() => Ok(Some(int_list(o)?)),
        _ => Ok(None),
    }
}

/// `_fft(input, kind, op, s, dim, norm)`: `kind` is one of "fft", "ifft", "rfft", "irfft",
/// "hfft", "ihfft"; `s` and `dim` as `fftn` takes them.
#[pyfunction]
#[pyo3(signature = (input, kind, op, s=None, dim=None, norm=None))]
fn _fft(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kind: &str,
    op: &str,
    s: Option<&Bound<'_, PyAny>>,
    dim: Option<&Bound<'_, PyAny>>,
    norm: Option<&str>,
) -> PyResult<PyTensor> {
    let kind = match kind {
        "fft" => FftKind::Complex { forward: true },
        "ifft" => FftKind::Complex { forward: false },
        "rfft" => FftKind::Real,
        "irfft" => FftKind::InverseReal,
        "hfft" => FftKind::Hermitian,
        "ihfft" => FftKind::InverseHermitian,
        other => return Err(PyValueError::new_err(format!("_fft: unknown kind {other}"))),
    };
    let (s, dim) = (opt_ints(s)?, opt_ints(dim)?);
    let x = input.t.clone();
    let dt = default_dtype();
    let out = crate::tensor::maybe_detach(py, x.numel(), || {
        x.fft_transform(op, kind, s.as_deref(), dim.as_deref(), norm, dt)
    });
    Ok(PyTensor::new(out.py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fft, m)?)
}

//! Type-promotion queries and broadcasting helpers (`torch.promote_types`, `result_type`,
//! `can_cast`, `broadcast_shapes`).

use crate::convert::{extract_scalar, int_list};
use crate::dtype::{dtype_obj, extract_dtype, PyDType};
use crate::errors::IntoPy;
use crate::tensor::{default_dtype, PyTensor};
use ferrotorch::dtype::{promote_types as promote, result_type as result, Category, Operand};
use ferrotorch::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

#[pyfunction]
pub fn promote_types(
    py: Python<'_>,
    type1: &Bound<'_, PyAny>,
    type2: &Bound<'_, PyAny>,
) -> PyResult<Py<PyDType>> {
    Ok(dtype_obj(
        py,
        promote(extract_dtype(type1)?, extract_dtype(type2)?),
    ))
}

fn operand(ob: &Bound<'_, PyAny>) -> PyResult<Operand> {
    if let Ok(t) = ob.cast::<PyTensor>() {
        let t = &t.borrow().t;
        return Ok(if t.ndim() == 0 {
            Operand::ZeroDim(t.dtype())
        } else {
            Operand::Dim(t.dtype())
        });
    }
    match extract_scalar(ob)? {
        Some(s) => Ok(Operand::Scalar(s.category())),
        None => Err(PyTypeError::new_err(
            "result_type(): arguments must be Tensors or Numbers",
        )),
    }
}

#[pyfunction]
pub fn result_type(
    py: Python<'_>,
    tensor1: &Bound<'_, PyAny>,
    tensor2: &Bound<'_, PyAny>,
) -> PyResult<Py<PyDType>> {
    Ok(dtype_obj(
        py,
        result(&[operand(tensor1)?, operand(tensor2)?], default_dtype()),
    ))
}

/// `can_cast(from, to)`: casting may not lower the category (float -> int, int -> bool).
#[pyfunction]
pub fn can_cast(from_: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (a, b) = (extract_dtype(from_)?, extract_dtype(to)?);
    Ok(a.category() <= b.category() || (a.category() == Category::Bool && b == DType::Bool))
}

/// `broadcast_shapes(*shapes)` -> Size.
#[pyfunction]
#[pyo3(signature = (*shapes))]
pub fn broadcast_shapes(py: Python<'_>, shapes: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes.iter() {
        let dims: Vec<usize> = int_list(&s)?.iter().map(|&d| d.max(0) as usize).collect();
        out = ferrotorch::layout::broadcast_shapes("broadcast_shapes", &out, &dims).py()?;
    }
    crate::size::make_size(py, &out)
}

/// Caps the SIMD level of the CPU kernels ("baseline", "avx2", "avx512"); returns the level
/// now in use. For tests that compare the vector paths with the reference path.
#[pyfunction]
pub fn _set_simd_level(name: &str) -> PyResult<String> {
    ferrotorch::cpu::simd::set_level(name)
        .map(|l| format!("{l:?}").to_lowercase())
        .ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("unknown SIMD level {name:?}"))
        })
}

/// The SIMD level the CPU kernels use.
#[pyfunction]
pub fn _simd_level() -> String {
    format!("{:?}", ferrotorch::cpu::simd::level()).to_lowercase()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(_simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(result_type, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_shapes, m)?)?;
    Ok(())
}

//! Conversions of Python arguments: scalars, shapes, dims, tensor-or-scalar operands.

use crate::tensor::PyTensor;
use ferrotorch::{Scalar, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PySequence, PyTuple};

/// A Python number as a core scalar (bool before int: bool is an int subclass).
pub fn extract_scalar(ob: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if ob.is_instance_of::<PyBool>() {
        return Ok(Some(Scalar::Bool(ob.extract()?)));
    }
    if ob.is_instance_of::<PyInt>() {
        return match ob.extract::<i64>() {
            Ok(v) => Ok(Some(Scalar::Int(v))),
            // PyTorch takes ints up to 2**64 - 1 (as uint64); anything wider does not convert.
            Err(_) => match ob.extract::<u64>() {
                Ok(v) => Ok(Some(Scalar::Float(v as f64))),
                Err(_) => Err(pyo3::exceptions::PyOverflowError::new_err(
                    "int too big to convert",
                )),
            },
        };
    }
    if ob.is_instance_of::<PyFloat>() {
        return Ok(Some(Scalar::Float(ob.extract()?)));
    }
    if let Ok(c) = ob.cast::<PyComplex>() {
        return Ok(Some(Scalar::Complex(c.real(), c.imag())));
    }
    // NumPy scalars and other number-likes.
    let ty = ob.get_type().name()?.to_string();
    if ty.starts_with("bool") {
        return Ok(Some(Scalar::Bool(ob.is_truthy()?)));
    }
    if ty.starts_with("int") || ty.starts_with("uint") {
        if let Ok(v) = ob
            .call_method0("__index__")
            .and_then(|v| v.extract::<i64>())
        {
            return Ok(Some(Scalar::Int(v)));
        }
    }
    if ty.starts_with("float") {
        if let Ok(v) = ob
            .call_method0("__float__")
            .and_then(|v| v.extract::<f64>())
        {
            return Ok(Some(Scalar::Float(v)));
        }
    }
    if ty.starts_with("complex") {
        if let Ok(c) = ob.call_method0("__complex__") {
            if let Ok(c) = c.cast::<PyComplex>() {
                return Ok(Some(Scalar::Complex(c.real(), c.imag())));
            }
        }
    }
    Ok(None)
}

pub fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Scalar::Complex(re, im) => PyComplex::from_doubles(py, re, im).into_any().unbind(),
    })
}

/// The right operand of an arithmetic op.
pub enum Operand {
    T(Tensor),
    S(Scalar),
}

pub fn extract_operand(ob: &Bound<'_, PyAny>) -> PyResult<Option<Operand>> {
    if let Ok(t) = ob.cast::<PyTensor>() {
        return Ok(Some(Operand::T(t.borrow().t.clone())));
    }
    Ok(extract_scalar(ob)?.map(Operand::S))
}

/// A tensor argument, where a Python number is also accepted (as a 0-d tensor).
#[allow(dead_code)] // for ops that accept a Python number where a tensor is expected
pub fn extract_tensor_like(ob: &Bound<'_, PyAny>, op: &str) -> PyResult<Tensor> {
    if let Ok(t) = ob.cast::<PyTensor>() {
        return Ok(t.borrow().t.clone());
    }
    if let Some(s) = extract_scalar(ob)? {
        let dt = match s {
            Scalar::Bool(_) => ferrotorch::DType::Bool,
            Scalar::Int(_) => ferrotorch::DType::I64,
            Scalar::Float(_) => crate::tensor::default_dtype(),
            Scalar::Complex(..) => crate::tensor::default_complex_dtype(),
        };
        return Ok(Tensor::scalar(s, dt));
    }
    Err(PyTypeError::new_err(format!(
        "{op}(): argument must be Tensor, not {}",
        ob.get_type().name()?
    )))
}

/// A factory's sizes (`torch.ones(2, 3)`): as `sizes_from_args`, but no argument at all is
/// PyTorch's TypeError (`torch.ones([])` is a 0-d tensor; `torch.ones()` is an error).
pub fn factory_sizes(op: &str, args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "{op}() missing 1 required positional arguments: \"size\""
        )));
    }
    sizes_from_args(args)
}

/// Sizes from `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(torch.Size([2, 3]))`.
pub fn sizes_from_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if a.is_instance_of::<PyTuple>() || a.is_instance_of::<PyList>() {
            return int_list(&a);
        }
    }
    int_list(args.as_any())
}

pub fn int_list(ob: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(i) = ob.extract::<i64>() {
        return Ok(vec![i]);
    }
    let seq = ob.cast::<PySequence>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a sequence of ints, got {}",
            ob.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let mut out = Vec::with_capacity(seq.len()?);
    for item in seq.try_iter()? {
        let item = item?;
        if item.is_instance_of::<PyFloat>() {
            return Err(PyTypeError::new_err(
                "expected a sequence of integers, but got a float",
            ));
        }
        let v = if let Ok(t) = item.cast::<PyTensor>() {
            t.borrow().t.item().map_err(crate::errors::to_py)?.to_i64()
        } else {
            item.call_method0("__index__")?.extract::<i64>()?
        };
        out.push(v);
    }
    Ok(out)
}

pub fn to_usize_shape(op: &str, sizes: &[i64]) -> PyResult<Vec<usize>> {
    // Refuse shapes whose byte size cannot be addressed instead of overflowing later.
    let mut n: u128 = 1;
    for &s in sizes {
        n = n.saturating_mul(s.max(0) as u128);
    }
    if n * 8 > isize::MAX as u128 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{op}(): the requested shape {sizes:?} has too many elements ({n}) to allocate"
        )));
    }
    sizes
        .iter()
        .map(|&s| {
            if s < 0 {
                Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "{op}(): Trying to create tensor with negative dimension {s}: {sizes:?}"
                )))
            } else {
                Ok(s as usize)
            }
        })
        .collect()
}

/// `dim` arguments: None (all), an int, or a tuple/list of ints.
pub fn extract_dims(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<i64>> {
    match ob {
        None => Ok(vec![]),
        Some(o) if o.is_none() => Ok(vec![]),
        Some(o) => int_list(o),
    }
}

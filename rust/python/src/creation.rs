//! Creating tensors from Python data and turning them back into Python lists.

use crate::convert::{extract_scalar, int_list, scalar_to_py, to_usize_shape};
use crate::dtype::extract_dtype;
use crate::errors::IntoPy;
use crate::tensor::{default_dtype, PyTensor};
use ferrotorch::dtype::Category;
use ferrotorch::error::InOp;
use ferrotorch::{with_dtype, DType, Scalar, Tensor};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySequence, PyString, PyTuple};

/// Walks nested sequences, recording the shape and the flattened scalars.
fn walk(
    ob: &Bound<'_, PyAny>,
    depth: usize,
    shape: &mut Vec<usize>,
    out: &mut Vec<Scalar>,
    cat: &mut Category,
    float_dt: &mut Option<DType>,
    big_int: &mut bool,
) -> PyResult<()> {
    // An int beyond int64 is read as a float; PyTorch stores it only into a float dtype.
    let beyond_i64 = ob.is_instance_of::<pyo3::types::PyInt>()
        && !ob.is_instance_of::<pyo3::types::PyBool>()
        && ob.extract::<i64>().is_err();
    *big_int |= beyond_i64;
    let scalar = if beyond_i64 {
        Some(Scalar::Float(ob.extract::<f64>()?))
    } else {
        extract_scalar(ob)?
    };
    if let Some(s) = scalar {
        if depth != shape.len() {
            return Err(PyValueError::new_err(format!(
                "tensor(): expected sequence of length {} at dim {depth} (got a number)",
                shape.get(depth).copied().unwrap_or(0)
            )));
        }
        *cat = (*cat).max(s.category());
        out.push(s);
        return Ok(());
    }
    if let Ok(t) = ob.cast::<PyTensor>() {
        let t = t.borrow().t.clone();
        if t.numel() == 1 && t.ndim() == 0 {
            let s = t.item().py()?;
            if t.dtype().is_float() {
                *float_dt = Some(t.dtype());
            }
            *cat = (*cat).max(s.category());
            out.push(s);
            return Ok(());
        }
        let l = crate::creation::to_list(ob.py(), &t)?;
        return walk(l.bind(ob.py()), depth, shape, out, cat, float_dt, big_int);
    }
    if ob.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("new(): invalid data type 'str'"));
    }
    if ob.hasattr("__array__")? && !ob.is_instance_of::<PyList>() && !ob.is_instance_of::<PyTuple>()
    {
        let l = ob.call_method0("tolist")?;
        return walk(&l, depth, shape, out, cat, float_dt, big_int);
    }
    let seq = ob.cast::<PySequence>().map_err(|_| {
        PyTypeError::new_err(format!(
            "tensor(): could not infer dtype of {}",
            ob.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let n = seq.len()?;
    if depth == shape.len() {
        if !out.is_empty() {
            return Err(PyValueError::new_err(format!(
                "tensor(): expected a number at dim {depth}, got a sequence"
            )));
        }
        shape.push(n);
    } else if shape[depth] != n {
        return Err(PyValueError::new_err(format!(
            "expected sequence of length {} at dim {depth} (got {n})",
            shape[depth]
        )));
    }
    for item in seq.try_iter()? {
        walk(&item?, depth + 1, shape, out, cat, float_dt, big_int)?;
    }
    Ok(())
}

/// `ferrotorch.tensor(data)`: bools give bool, ints int64, any float the default float type.
pub fn tensor_from_data(data: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Some(t) = crate::interop::from_array_like(data)? {
        return Ok(match dtype {
            Some(d) => t.copy_as(d).py()?,
            None => t.contiguous_copy().py()?,
        });
    }
    let mut shape = Vec::new();
    let mut vals = Vec::new();
    let mut cat = Category::Bool;
    let mut float_dt = None;
    let mut big_int = false;
    walk(
        data,
        0,
        &mut shape,
        &mut vals,
        &mut cat,
        &mut float_dt,
        &mut big_int,
    )?;
    if big_int && !dtype.is_some_and(|d| d.is_float() || d.is_complex()) {
        return Err(PyValueError::new_err(
            "tensor(): Overflow when unpacking long long (an int beyond int64)",
        ));
    }
    let inferred = match cat {
        _ if vals.is_empty() => default_dtype(),
        Category::Bool => DType::Bool,
        Category::Int => DType::I64,
        Category::Float => float_dt.unwrap_or_else(default_dtype),
        Category::Complex => crate::tensor::default_complex_dtype(),
    };
    let dt = dtype.unwrap_or(inferred);
    if cat == Category::Complex && !dt.is_complex() {
        return Err(PyTypeError::new_err("must be real number, not complex"));
    }
    if dt.is_complex() {
        let v: Vec<(f64, f64)> = vals.iter().map(|s| s.to_complex()).collect();
        return Tensor::from_complex_vec(&v, &shape, dt).py();
    }
    if !dt.is_float() && dt != DType::Bool {
        // PyTorch stores each number into an integer dtype with a checked conversion
        // (-1 may wrap into uint8; -0.5 or 300 may not).
        for s in &vals {
            ferrotorch::scalar_range::check_fits("tensor", *s, dt).py()?;
        }
    }
    (|| -> ferrotorch::Result<Tensor> {
        with_dtype!(dt, T => {
            let v: Vec<T> = vals.iter().map(|s| s.to_elem::<T>()).collect();
            Tensor::from_vec(v, &shape)
        })
    })()
    .py()
}

fn list_rec<T>(
    py: Python<'_>,
    data: &[T],
    shape: &[usize],
    scalar: impl Fn(&T) -> Scalar + Copy,
) -> PyResult<Py<PyAny>> {
    if shape.is_empty() {
        return scalar_to_py(py, scalar(&data[0]));
    }
    let n = shape[0];
    let step: usize = shape[1..].iter().product();
    let items: Vec<Py<PyAny>> = (0..n)
        .map(|i| list_rec(py, &data[i * step..(i + 1) * step], &shape[1..], scalar))
        .collect::<PyResult<_>>()?;
    Ok(PyList::new(py, items)?.into_any().unbind())
}

/// `tolist()`: nested Python lists (a plain number for a 0-d tensor).
pub fn to_list(py: Python<'_>, t: &Tensor) -> PyResult<Py<PyAny>> {
    if t.device() != ferrotorch::Device::Cpu {
        // Device values come to the host first (this waits for the stream).
        let host = t.copy_to_device(ferrotorch::Device::Cpu).py()?;
        return to_list(py, &host);
    }
    if t.numel() == 0 {
        return list_rec_empty(py, t.shape());
    }
    if t.dtype().is_complex() {
        let data: Vec<Scalar> = t
            .to_complex_vec()
            .py()?
            .into_iter()
            .map(|(re, im)| Scalar::Complex(re, im))
            .collect();
        return list_rec(py, &data, t.shape(), |&s| s);
    }
    let scalars = || -> ferrotorch::Result<Vec<Scalar>> {
        with_dtype!(t.dtype(), T => {
            let data = t.contiguous_data::<T>()?;
            Ok(data.iter().map(|&v| Scalar::from_elem(v)).collect())
        })
    };
    list_rec(py, &scalars().py()?, t.shape(), |&s| s)
}

fn list_rec_empty(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyAny>> {
    if shape.first().copied().unwrap_or(0) == 0 {
        return Ok(PyList::empty(py).into_any().unbind());
    }
    let items: Vec<Py<PyAny>> = (0..shape[0])
        .map(|_| list_rec_empty(py, &shape[1..]))
        .collect::<PyResult<_>>()?;
    Ok(PyList::new(py, items)?.into_any().unbind())
}

fn opt_dtype(d: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match d {
        Some(d) if !d.is_none() => Ok(Some(extract_dtype(d)?)),
        _ => Ok(None),
    }
}

/// The `device=` argument, checked usable (None when not given).
pub(crate) fn check_device(d: Option<&Bound<'_, PyAny>>) -> PyResult<Option<ferrotorch::Device>> {
    match d {
        Some(d) if !d.is_none() => {
            let dev = crate::device::extract_device(d)?;
            crate::device::ensure_available(d.py(), dev)?;
            Ok(Some(dev))
        }
        _ => Ok(None),
    }
}

/// Moves a freshly made tensor to the requested device, then sets requires_grad.
pub(crate) fn finish(
    t: Tensor,
    device: Option<ferrotorch::Device>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let t = match device {
        Some(d) if d != t.device() => t.copy_to_device(d).py()?,
        _ => t,
    };
    if requires_grad {
        t.set_requires_grad(true).py()?;
    }
    Ok(PyTensor::new(t))
}

#[pyfunction]
#[pyo3(signature = (data, *, dtype=None, device=None, requires_grad=false, pin_memory=false))]
pub fn tensor(
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<PyTensor> {
    let _ = pin_memory;
    let dev = check_device(device)?;
    let dt = opt_dtype(dtype)?;
    let t = if let Ok(src) = data.cast::<PyTensor>() {
        let s = src.borrow().t.clone();
        s.copy_as(dt.unwrap_or(s.dtype())).py()?
    } else {
        tensor_from_data(data, dt)?
    };
    finish(t, dev, requires_grad)
}

fn shape_arg(op: &str, size: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    let sizes = crate::convert::factory_sizes(op, size)?;
    to_usize_shape(op, &sizes)
}

macro_rules! filled {
    ($name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (*size, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false, memory_format=None))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(size: &Bound<'_, PyTuple>, out: Option<&Bound<'_, PyAny>>, dtype: Option<&Bound<'_, PyAny>>, layout: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>, requires_grad: bool, pin_memory: bool, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
            let _ = (out, layout, pin_memory, memory_format);
            let dev = check_device(device)?;
            let shape = shape_arg(stringify!($name), size)?;
            let dt = opt_dtype(dtype)?.unwrap_or_else(default_dtype);
            let on = dev.unwrap_or(ferrotorch::Device::Cpu);
            finish(Tensor::full_on(&shape, $value, dt, on).op(stringify!($name)).py()?, dev, requires_grad)
        }
    };
}
filled!(zeros, Scalar::Int(0));
filled!(ones, Scalar::Int(1));
filled!(empty, Scalar::Int(0));

#[pyfunction]
#[pyo3(signature = (size, fill_value, *, dtype=None, device=None, requires_grad=false, layout=None))]
pub fn full(
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let _ = layout;
    let dev = check_device(device)?;
    // PyTorch parses every argument (an int beyond 64 bits: OverflowError) before it
    // looks at the size.
    let size = int_list(size)?;
    let v = extract_scalar(fill_value)?
        .ok_or_else(|| PyTypeError::new_err("full(): fill_value must be a number"))?;
    let shape = to_usize_shape("full", &size)?;
    let dt = opt_dtype(dtype)?.unwrap_or(match v {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => default_dtype(),
        Scalar::Complex(..) => crate::tensor::default_complex_dtype(),
    });
    let n = shape.iter().product();
    ferrotorch::scalar_range::check_fill("full", v, dt, n).py()?;
    let on = dev.unwrap_or(ferrotorch::Device::Cpu);
    finish(
        Tensor::full_on(&shape, v, dt, on).op("full").py()?,
        dev,
        requires_grad,
    )
}

macro_rules! filled_like {
    ($name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (input, *, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
        pub fn $name(input: PyRef<'_, PyTensor>, dtype: Option<&Bound<'_, PyAny>>, layout: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>, requires_grad: bool, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
            let _ = (layout, memory_format);
            let dev = check_device(device)?.or(Some(input.t.device()));
            let dt = opt_dtype(dtype)?.unwrap_or(input.t.dtype());
            let on = dev.unwrap_or(ferrotorch::Device::Cpu);
            finish(Tensor::full_on(input.t.shape(), $value, dt, on).py()?, dev, requires_grad)
        }
    };
}
filled_like!(zeros_like, Scalar::Int(0));
filled_like!(ones_like, Scalar::Int(1));
filled_like!(empty_like, Scalar::Int(0));

#[pyfunction]
#[pyo3(signature = (input, fill_value, *, dtype=None, device=None, requires_grad=false))]
pub fn full_like(
    input: PyRef<'_, PyTensor>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?.or(Some(input.t.device()));
    let v = extract_scalar(fill_value)?
        .ok_or_else(|| PyTypeError::new_err("full_like(): fill_value must be a number"))?;
    let dt = opt_dtype(dtype)?.unwrap_or(input.t.dtype());
    ferrotorch::scalar_range::check_fill("full_like", v, dt, input.t.numel()).py()?;
    let on = dev.unwrap_or(ferrotorch::Device::Cpu);
    finish(
        Tensor::full_on(input.t.shape(), v, dt, on).py()?,
        dev,
        requires_grad,
    )
}

/// `arange(end)`, `arange(start, end)`, `arange(start, end, step)`; ints give int64.
#[pyfunction]
#[pyo3(signature = (*args, dtype=None, device=None, requires_grad=false, out=None, layout=None))]
pub fn arange(
    args: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    out: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let _ = (out, layout);
    let dev = check_device(device)?;
    let vals: Vec<Scalar> = args
        .iter()
        .map(|a| {
            extract_scalar(&a)?
                .ok_or_else(|| PyTypeError::new_err("arange(): arguments must be numbers"))
        })
        .collect::<PyResult<_>>()?;
    let (start, end, step) = match vals.len() {
        1 => (Scalar::Int(0), vals[0], Scalar::Int(1)),
        2 => (vals[0], vals[1], Scalar::Int(1)),
        3 => (vals[0], vals[1], vals[2]),
        n => {
            return Err(PyTypeError::new_err(format!(
                "arange() takes 1 to 3 positional arguments but {n} were given"
            )))
        }
    };
    let any_float = vals.iter().any(|v| matches!(v, Scalar::Float(_)));
    let dt = opt_dtype(dtype)?.unwrap_or(if any_float {
        default_dtype()
    } else {
        DType::I64
    });
    finish(
        Tensor::arange_scalars(start, end, step, dt).py()?,
        dev,
        requires_grad,
    )
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, *, dtype=None, device=None, requires_grad=false))]
pub fn linspace(
    start: f64,
    end: f64,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?;
    if steps < 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "linspace(): number of steps must be non-negative",
        ));
    }
    let dt = opt_dtype(dtype)?.unwrap_or_else(default_dtype);
    finish(
        Tensor::linspace(start, end, steps as usize, dt).py()?,
        dev,
        requires_grad,
    )
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=false))]
#[allow(clippy::too_many_arguments)]
pub fn logspace(
    start: f64,
    end: f64,
    steps: i64,
    base: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?;
    if steps < 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "logspace(): number of steps must be non-negative",
        ));
    }
    let dt = opt_dtype(dtype)?.unwrap_or_else(default_dtype);
    let lin = Tensor::linspace(start, end, steps as usize, DType::F64).py()?;
    // The exponents are replaced by the powers in place: no second buffer of `steps`.
    let pow: &mut [f64] = unsafe { lin.contiguous_slice_mut() };
    for e in pow.iter_mut() {
        *e = base.powf(*e);
    }
    finish(lin.copy_as(dt).py()?, dev, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (n, m=None, *, dtype=None, device=None, requires_grad=false))]
pub fn eye(
    n: i64,
    m: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?;
    let m = m.unwrap_or(n);
    if n < 0 || m < 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "eye(): n and m must be non-negative, got {n} and {m}"
        )));
    }
    let dt = opt_dtype(dtype)?.unwrap_or_else(default_dtype);
    finish(
        Tensor::eye(n as usize, m as usize, dt).op("eye").py()?,
        dev,
        requires_grad,
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tensor, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(logspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    Ok(())
}

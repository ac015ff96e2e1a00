//! Zero-copy exchange with NumPy through the array interface: a tensor made from an array
//! keeps the array alive, and an array made from a tensor keeps the storage alive.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::layout::Layout;
use ferrotorch::{DType, Storage, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Keeps a Python object (the NumPy array) alive for as long as the storage lives.
struct PyOwner(#[allow(dead_code)] Py<PyAny>);

fn dtype_of_typestr(ts: &str) -> PyResult<DType> {
    let (order, kind) = (ts.as_bytes()[0], &ts[1..]);
    if order == b'>' && !kind.ends_with('1') {
        return Err(PyTypeError::new_err(format!("from_numpy: big-endian arrays ({ts}) are not supported; convert with arr.astype(arr.dtype.newbyteorder('='))")));
    }
    Ok(match kind {
        "f4" => DType::F32,
        "f8" => DType::F64,
        "f2" => DType::F16,
        "i8" => DType::I64,
        "i4" => DType::I32,
        "i2" => DType::I16,
        "i1" => DType::I8,
        "u1" => DType::U8,
        "b1" => DType::Bool,
        "c8" => DType::C64,
        "c16" => DType::C128,
        other => {
            return Err(PyTypeError::new_err(format!(
                "can't convert np.ndarray of type {other} (typestr '{ts}'). The only supported types are: complex128, complex64, float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
            )))
        }
    })
}

fn typestr_of(d: DType) -> PyResult<&'static str> {
    Ok(match d {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::F16 => "<f2",
        DType::I64 => "<i8",
        DType::I32 => "<i4",
        DType::I16 => "<i2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::Bool => "|b1",
        DType::C64 => "<c8",
        DType::C128 => "<c16",
        DType::BF16 => return Err(PyTypeError::new_err("Got unsupported ScalarType BFloat16: NumPy has no bfloat16; convert with .float() first")),
    })
}

/// A tensor sharing memory with an object exposing `__array_interface__`, if `ob` has one.
pub fn view_array(ob: &Bound<'_, PyAny>) -> PyResult<Option<Tensor>> {
    let Ok(ai) = ob.getattr("__array_interface__") else {
        return Ok(None);
    };
    let ai = ai.cast_into::<PyDict>()?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        ai.get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("__array_interface__ lacks '{k}'")))
    };
    let typestr: String = get("typestr")?.extract()?;
    let dtype = dtype_of_typestr(&typestr)?;
    let shape: Vec<usize> = get("shape")?.extract()?;
    let (ptr, readonly): (usize, bool) = get("data")?.extract()?;
    let item = dtype.size() as isize;
    let strides: Vec<usize> = match ai.get_item("strides")? {
        Some(s) if !s.is_none() => {
            let bs: Vec<isize> = s.extract()?;
            if bs.iter().any(|&b| b < 0) {
                return Err(PyValueError::new_err("At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().)"));
            }
            if bs.iter().any(|&b| b % item != 0) {
                return Err(PyValueError::new_err("given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate the memory."));
            }
            bs.iter().map(|&b| (b / item) as usize).collect()
        }
        _ => ferrotorch::layout::contiguous_strides(&shape),
    };
    let layout = Layout {
        shape,
        strides,
        offset: 0,
    };
    let nbytes = layout.storage_span() * dtype.size();
    let owner = Box::new(PyOwner(ob.clone().unbind()));
    // The array (kept alive by `owner`) owns `nbytes` bytes from `ptr`.
    let storage = unsafe { Storage::from_foreign(ptr as *mut u8, nbytes, owner, readonly) };
    Ok(Some(Tensor::from_parts(storage, layout, dtype)))
}

/// Used by `tensor(data)`: a view of array-likes (the caller copies).
pub fn from_array_like(ob: &Bound<'_, PyAny>) -> PyResult<Option<Tensor>> {
    if ob.cast::<PyTensor>().is_ok() {
        return Ok(None);
    }
    match view_array(ob) {
        // A copy is wanted anyway: let NumPy lay out negatively strided arrays first.
        Err(e) if e.is_instance_of::<PyValueError>(ob.py()) => {
            let c = ob
                .py()
                .import("numpy")?
                .getattr("ascontiguousarray")?
                .call1((ob,))?;
            view_array(&c)
        }
        r => r,
    }
}

/// `torch.from_numpy(ndarray)`: shares memory with the array.
#[pyfunction]
pub fn from_numpy(ndarray: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let np_type = ndarray.py().import("numpy")?.getattr("ndarray")?;
    if !ndarray.is_instance(&np_type)? {
        return Err(PyTypeError::new_err(format!(
            "expected np.ndarray (got {})",
            ndarray.get_type().name()?
        )));
    }
    view_array(ndarray)?
        .map(PyTensor::new)
        .ok_or_else(|| PyTypeError::new_err("from_numpy: object has no __array_interface__"))
}

/// The object NumPy wraps when a tensor is exported: it holds the tensor (and so its storage).
#[pyclass(module = "ferrotorch._core", frozen)]
pub struct ArrayExport {
    t: Tensor,
}

#[pymethods]
impl ArrayExport {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let t = &self.t;
        let item = t.dtype().size();
        d.set_item("version", 3)?;
        d.set_item("typestr", typestr_of(t.dtype())?)?;
        d.set_item("shape", PyTuple::new(py, t.shape())?)?;
        d.set_item(
            "strides",
            PyTuple::new(py, t.strides().iter().map(|s| s * item))?,
        )?;
        d.set_item("data", (t.data_ptr(), t.storage().is_readonly()))?;
        Ok(d)
    }
}

#[pymethods]
impl PyTensor {
    /// `numpy(force=False)`: an ndarray viewing this tensor's memory (same strides).
    #[pyo3(signature = (*, force=false))]
    fn numpy(&self, py: Python<'_>, force: bool) -> PyResult<Py<PyAny>> {
        if self.t.requires_grad() && !force {
            return Err(PyRuntimeError::new_err("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."));
        }
        if self.t.device() != ferrotorch::Device::Cpu {
            if !force {
                return Err(PyTypeError::new_err(format!(
                    "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the \
                     tensor to host memory first.",
                    self.t.device()
                )));
            }
            let host = self
                .t
                .detach()
                .copy_to_device(ferrotorch::Device::Cpu)
                .py()?;
            return PyTensor::new(host).numpy(py, true);
        }
        typestr_of(self.t.dtype())?;
        let exp = Py::new(py, ArrayExport { t: self.t.detach() })?;
        Ok(py
            .import("numpy")?
            .getattr("asarray")?
            .call1((exp,))?
            .unbind())
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__(
        &self,
        py: Python<'_>,
        dtype: Option<&Bound<'_, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let arr = self.numpy(py, true)?;
        let arr = arr.bind(py);
        let out = match dtype {
            Some(d) if !d.is_none() => arr.call_method1("astype", (d,))?,
            _ if copy == Some(true) => arr.call_method0("copy")?,
            _ => arr.clone(),
        };
        Ok(out.unbind())
    }

    #[getter]
    fn __array_priority__(&self) -> i64 {
        1000
    }
}

/// `torch.as_tensor(data, dtype=None)`: shares memory with arrays and tensors when it can.
#[pyfunction]
#[pyo3(signature = (data, dtype=None, device=None))]
pub fn as_tensor(
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    if let Some(d) = device {
        if !d.is_none() {
            let dev = crate::device::extract_device(d)?;
            crate::device::ensure_available(d.py(), dev)?;
        }
    }
    let dt = match dtype {
        Some(d) if !d.is_none() => Some(crate::dtype::extract_dtype(d)?),
        _ => None,
    };
    let base = if let Ok(t) = data.cast::<PyTensor>() {
        Some(t.borrow().t.clone())
    } else {
        view_array(data)?
    };
    let t = match base {
        Some(t) => match dt {
            Some(d) if d != t.dtype() => t.to_dtype(d).py()?,
            _ => t,
        },
        None => crate::creation::tensor_from_data(data, dt)?,
    };
    Ok(PyTensor::new(t))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrayExport>()?;
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    Ok(())
}

//! `ferrotorch.dtype` objects (`ferrotorch.float32`, ...), one per element type.

use ferrotorch::DType;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyType};
use std::sync::OnceLock;

#[pyclass(
    name = "dtype",
    module = "ferrotorch",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub d: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("torch.{}", self.d.name())
    }
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.d.is_float()
    }
    #[getter]
    fn is_complex(&self) -> bool {
        self.d.is_complex()
    }
    /// The type of a complex dtype's parts (real dtypes map to themselves).
    fn to_real(&self, py: Python<'_>) -> Py<PyDType> {
        dtype_obj(py, self.d.to_real())
    }
    /// The complex dtype whose parts have this floating type.
    fn to_complex(&self, py: Python<'_>) -> PyResult<Py<PyDType>> {
        match self.d.to_complex() {
            Some(d) => Ok(dtype_obj(py, d)),
            None => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "Unknown Complex ScalarType for {}",
                self.d.scalar_type_name()
            ))),
        }
    }
    #[getter]
    fn is_signed(&self) -> bool {
        !matches!(self.d, DType::U8 | DType::Bool)
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.d.size()
    }
    /// The element type's name without the module prefix, e.g. `float32`.
    #[getter]
    fn name(&self) -> &'static str {
        self.d.name()
    }
    /// Pickles as a call that returns the singleton, so `loads(dumps(d)) is d`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let rebuild = py.import("ferrotorch._core")?.getattr("_dtype_from_name")?;
        Ok((rebuild.unbind(), (self.d.name().into(),)))
    }
}

static DTYPES: OnceLock<Vec<Py<PyDType>>> = OnceLock::new();

/// The singleton dtype object for `d` (so `t.dtype is ferrotorch.float32` holds).
pub fn dtype_obj(py: Python<'_>, d: DType) -> Py<PyDType> {
    let all = DTYPES.get_or_init(|| {
        DType::ALL
            .iter()
            .map(|&d| Py::new(py, PyDType { d }).unwrap())
            .collect()
    });
    let i = DType::ALL.iter().position(|&x| x == d).unwrap();
    all[i].clone_ref(py)
}

/// Accepts a ferrotorch dtype, a Python type (`float` is float64, as in PyTorch), a NumPy
/// dtype or a dtype name.
pub fn extract_dtype(ob: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = ob.cast::<PyDType>() {
        return Ok(d.get().d);
    }
    if let Ok(t) = ob.cast::<PyType>() {
        if t.is(ob.py().get_type::<PyBool>()) {
            return Ok(DType::Bool);
        }
        if t.is(ob.py().get_type::<PyInt>()) {
            return Ok(DType::I64);
        }
        if t.is(ob.py().get_type::<PyFloat>()) {
            return Ok(DType::F64);
        }
        if t.is(ob.py().get_type::<PyComplex>()) {
            return Ok(DType::C128);
        }
    }
    let name: String = if let Ok(s) = ob.extract::<String>() {
        s
    } else if let Ok(n) = ob.getattr("name") {
        n.str()?.to_string()
    } else {
        ob.str()?.to_string()
    };
    let name = name
        .trim_start_matches("torch.")
        .trim_start_matches("ferrotorch.");
    let alias = match name {
        "float" => "float32",
        "double" => "float64",
        "half" => "float16",
        "long" => "int64",
        "int" => "int32",
        "short" => "int16",
        "cfloat" => "complex64",
        "cdouble" => "complex128",
        other => other,
    };
    DType::from_name(alias).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "dtype: expected a ferrotorch dtype, got {}",
            ob.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

#[pyfunction]
pub fn _dtype_from_name(py: Python<'_>, name: &str) -> PyResult<Py<PyDType>> {
    DType::from_name(name)
        .map(|d| dtype_obj(py, d))
        .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("unknown dtype {name}")))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyDType>()?;
    m.add_function(wrap_pyfunction!(_dtype_from_name, m)?)?;
    for &d in DType::ALL.iter() {
        m.add(d.name(), dtype_obj(py, d))?;
    }
    for (alias, d) in [
        ("float", DType::F32),
        ("double", DType::F64),
        ("half", DType::F16),
        ("long", DType::I64),
        ("int", DType::I32),
        ("short", DType::I16),
        ("cfloat", DType::C64),
        ("cdouble", DType::C128),
    ] {
        m.add(alias, dtype_obj(py, d))?;
    }
    Ok(())
}

//! `Tensor.shape` returns `ferrotorch.Size`, a tuple subclass defined in Python and handed
//! to the extension at import time.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

static SIZE_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

#[pyfunction]
pub fn _set_size_class(py: Python<'_>, cls: Py<PyAny>) {
    let _ = SIZE_CLASS.set(py, cls);
}

pub fn make_size(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyAny>> {
    let tup = PyTuple::new(py, shape)?;
    match SIZE_CLASS.get(py) {
        Some(cls) => Ok(cls.call1(py, (tup,))?),
        None => Ok(tup.into_any().unbind()),
    }
}

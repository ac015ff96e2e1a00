//! Bindings for safetensors files: the Python side encodes nested structures as metadata.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::serialize;
use ferrotorch::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::HashMap;
use std::path::PathBuf;

fn named(tensors: Vec<(String, PyRef<'_, PyTensor>)>) -> Vec<(String, Tensor)> {
    tensors.into_iter().map(|(n, t)| (n, t.t.clone())).collect()
}

type PyLoaded = (Vec<(String, PyTensor)>, HashMap<String, String>);

fn wrap(r: serialize::Loaded) -> PyLoaded {
    (
        r.0.into_iter()
            .map(|(n, t)| (n, PyTensor::new(t)))
            .collect(),
        r.1,
    )
}

#[pyfunction]
pub fn _save_file(
    py: Python<'_>,
    path: PathBuf,
    tensors: Vec<(String, PyRef<'_, PyTensor>)>,
    metadata: HashMap<String, String>,
) -> PyResult<()> {
    let ts = named(tensors);
    py.detach(|| serialize::save_file(&path, &ts, metadata))
        .py()
}

#[pyfunction]
pub fn _save_bytes<'py>(
    py: Python<'py>,
    tensors: Vec<(String, PyRef<'_, PyTensor>)>,
    metadata: HashMap<String, String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = serialize::to_bytes(&named(tensors), metadata).py()?;
    Ok(PyBytes::new(py, &bytes))
}

#[pyfunction]
pub fn _load_file(py: Python<'_>, path: PathBuf) -> PyResult<PyLoaded> {
    Ok(wrap(py.detach(|| serialize::load_file(&path)).py()?))
}

#[pyfunction]
pub fn _load_bytes(data: &[u8], what: &str) -> PyResult<PyLoaded> {
    Ok(wrap(serialize::from_bytes(data, what).py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_save_file, m)?)?;
    m.add_function(wrap_pyfunction!(_save_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(_load_file, m)?)?;
    m.add_function(wrap_pyfunction!(_load_bytes, m)?)?;
    Ok(())
}

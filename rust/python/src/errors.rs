//! The one place where core errors become Python exceptions, as PyTorch would raise them.

use ferrotorch::Error;
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::PyErr;

// `torch.OutOfMemoryError`: a RuntimeError, so `except RuntimeError` still catches it.
pyo3::create_exception!(
    ferrotorch,
    OutOfMemoryError,
    PyRuntimeError,
    "An allocation that could not be satisfied (CPU memory, or a size no machine holds)."
);

pub fn to_py(e: Error) -> PyErr {
    match e {
        e @ Error::OutOfMemory { .. } => OutOfMemoryError::new_err(e.to_string()),
        Error::Runtime(m) => PyRuntimeError::new_err(m),
        Error::Type(m) => PyTypeError::new_err(m),
        Error::Value(m) => PyValueError::new_err(m),
        Error::Index(m) => PyIndexError::new_err(m),
    }
}

/// `?`-friendly conversion for core results.
pub trait IntoPy<T> {
    fn py(self) -> pyo3::PyResult<T>;
}

impl<T> IntoPy<T> for ferrotorch::Result<T> {
    fn py(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}

//! The one place where core errors become Python exceptions, as PyTorch would raise them.

use ferrotorch::Error;
use pyo3::exceptions::{
    PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::PyErr;

// `torch.OutOfMemoryError`: a RuntimeError, so `except RuntimeError` still catches it.
pyo3::create_exception!(
    ferrotorch,
    OutOfMemoryError,
    PyRuntimeError,
    "An allocation that could not be satisfied (CPU memory, or a size no machine holds)."
);

// `torch.linalg.LinAlgError`: a RuntimeError raised for singular or indefinite matrices.
pyo3::create_exception!(
    ferrotorch,
    LinAlgError,
    PyRuntimeError,
    "A matrix factorization that could not be completed (a singular or indefinite input)."
);

pub fn to_py(e: Error) -> PyErr {
    match e {
        e @ (Error::OutOfMemory { .. } | Error::DeviceOutOfMemory(_)) => {
            OutOfMemoryError::new_err(e.to_string())
        }
        Error::Runtime(m) => PyRuntimeError::new_err(m),
        Error::Type(m) => PyTypeError::new_err(m),
        Error::Value(m) => PyValueError::new_err(m),
        Error::Index(m) => PyIndexError::new_err(m),
        Error::LinAlg(m) => LinAlgError::new_err(m),
        Error::NotImplemented(m) => PyNotImplementedError::new_err(m),
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

/// The last guard: a Rust panic that escapes a binding reaches Python as PyO3's
/// `PanicException`, a BaseException that `except Exception` misses and that ends scripts.
/// Rebased onto RuntimeError (this module's own copy of the class), it is caught like any
/// other op error, at no cost on the per-op path.
pub fn panics_are_runtime_errors(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let panic = py.get_type::<pyo3::panic::PanicException>();
    panic.setattr("__bases__", (py.get_type::<PyRuntimeError>(),))?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)
}

/// Panics with `message`, so the tests can check how a panic reaches Python.
#[pyfunction]
fn _panic_for_tests(message: &str) {
    panic!("{message}");
}

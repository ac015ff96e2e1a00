//! NumPy and DLPack exchange (zero-copy where possible).

use ferrotorch::Tensor;
use pyo3::prelude::*;

/// A tensor viewing an array-like object (NumPy array), if `ob` is one.
pub fn from_array_like(_ob: &Bound<'_, PyAny>) -> PyResult<Option<Tensor>> {
    Ok(None)
}

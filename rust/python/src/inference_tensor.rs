//! `Tensor.is_inference()`: whether a tensor was allocated in inference mode (or views one).

use crate::tensor::PyTensor;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// True for a tensor allocated under `torch.inference_mode()` and for views of one.
    fn is_inference(&self) -> bool {
        self.t.is_inference()
    }
}

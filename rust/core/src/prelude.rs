//! The names most programs need, for `use ferrotorch::prelude::*;`.
#![warn(missing_docs)]

pub use crate::nn::{functional as F, Module};
pub use crate::optim::Optimizer;
pub use crate::{no_grad, DType, Device, Error, Result, Scalar, Tensor};

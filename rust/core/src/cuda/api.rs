//! What the Python `ferrotorch.cuda` module asks of the backend. Without the `cuda` feature,
//! or without a driver, `is_available()` is false and every other call is a clear error.

use crate::{Error, Result};

/// A stream or event handle: an index into the backend's registry (0 is the default stream).
pub type Handle = u64;

pub(crate) fn not_compiled() -> Error {
    Error::runtime(
        "Torch not compiled with CUDA enabled (this ferrotorch build lacks the `cuda` feature)",
    )
}

#[cfg(not(feature = "cuda"))]
mod imp {
    use super::*;
    pub fn is_available() -> bool {
        false
    }
    pub fn device_count() -> usize {
        0
    }
    pub fn init() -> Result<()> {
        Err(not_compiled())
    }
}

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    pub fn is_available() -> bool {
        false
    }
    pub fn device_count() -> usize {
        0
    }
    pub fn init() -> Result<()> {
        Err(not_compiled())
    }
}

pub use imp::*;

//! Parameter-free activation layers, for [`super::Sequential`].

use super::Module;
use crate::{Result, Tensor};

/// `max(x, 0)` elementwise, as `torch.nn.ReLU`.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Module, ReLU};
/// let y = ReLU.forward(&ferrotorch::tensor(&[-1.0, 2.0], &[2])?)?;
/// assert_eq!(y.to_vec::<f32>(), vec![0.0, 2.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReLU;

impl Module for ReLU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.relu()
    }
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }
}

/// The Gaussian error linear unit (exact erf form), as `torch.nn.GELU()`.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Module, GELU};
/// let y = GELU.forward(&ferrotorch::tensor(&[0.0, 3.0], &[2])?)?.to_vec::<f32>();
/// assert_eq!(y[0], 0.0);
/// assert!((y[1] - 2.995_950_2).abs() < 1e-5);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GELU;

impl Module for GELU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.gelu()
    }
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }
}

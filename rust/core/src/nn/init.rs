//! Parameter initializers, as `torch.nn.init`; they draw from the generator that
//! [`crate::manual_seed`] seeds and return fresh leaf tensors that require grad.

use crate::{DType, Result, Tensor};

/// A float32 leaf parameter of `shape` filled from `U(-bound, bound)`.
///
/// `Linear` and `Conv2d` use `bound = 1 / sqrt(fan_in)` for both weight and bias, which is
/// what PyTorch's `kaiming_uniform_(a=sqrt(5))` and its bias rule come to.
///
/// # Examples
///
/// ```
/// let w = ferrotorch::nn::init::uniform(&[3, 4], 0.5)?;
/// assert!(w.requires_grad());
/// assert!(w.to_vec::<f32>().iter().all(|v| v.abs() <= 0.5));
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn uniform(shape: &[usize], bound: f64) -> Result<Tensor> {
    let t = Tensor::zeros(shape, DType::F32)?;
    t.uniform_(-bound, bound, None)?;
    t.requires_grad_(true)
}

/// A float32 leaf parameter of `shape` from `N(0, 1)`, as `Embedding`'s weight.
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::nn::init::normal(&[5, 2])?.shape(), &[5, 2]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn normal(shape: &[usize]) -> Result<Tensor> {
    Tensor::randn(shape, DType::F32, None)?.requires_grad_(true)
}

/// A float32 leaf parameter of `shape` filled with `value` (LayerNorm's ones and zeros).
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::nn::init::constant(&[2], 1.0)?.to_vec::<f32>(), vec![1.0, 1.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn constant(shape: &[usize], value: f64) -> Result<Tensor> {
    crate::full(shape, value)?.requires_grad_(true)
}

/// `1 / sqrt(fan_in)`, PyTorch's default bound for `Linear` and `Conv2d` (0 when fan_in is 0).
pub(crate) fn default_bound(fan_in: usize) -> f64 {
    if fan_in == 0 {
        0.0
    } else {
        1.0 / (fan_in as f64).sqrt()
    }
}

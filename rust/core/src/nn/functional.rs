//! Stateless functions over tensors, as `torch.nn.functional`: losses and pooling that the
//! layers and training loops need.

use crate::error::fmt_shape;
use crate::ops::unfold::Window;
use crate::{bail, DType, Result, Tensor};

pub use super::dropout::dropout;
pub use super::nll_loss::{nll_loss, Reduction};

/// Cross-entropy between `[N, C]` logits and `[N]` int64 class indices, averaged over the
/// batch, as `F.cross_entropy(input, target)` (mean reduction, no weights).
///
/// # Examples
///
/// ```
/// use ferrotorch::{nn::functional::cross_entropy, Tensor};
/// let logits = ferrotorch::zeros(&[2, 4])?;
/// let target = Tensor::from_vec(vec![0i64, 3], &[2])?;
/// let loss = cross_entropy(&logits, &target)?.item()?.to_f64();
/// assert!((loss - 4f64.ln()).abs() < 1e-6);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn cross_entropy(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    if input.ndim() != 2 || target.ndim() != 1 || target.shape()[0] != input.shape()[0] {
        bail!(
            Value,
            "cross_entropy: expected input [N, C] and target [N], got input {} and target {}",
            fmt_shape(input.shape()),
            fmt_shape(target.shape())
        );
    }
    if target.dtype() != DType::I64 {
        bail!(
            Runtime,
            "cross_entropy: expected target of dtype int64 (class indices), got {}",
            target.dtype().name()
        );
    }
    // PyTorch's default ignore_index (-100) marks targets that are not counted.
    nll_loss(&input.log_softmax(1)?, target, None, -100, Reduction::Mean)
}

/// Mean squared error, as `F.mse_loss(input, target)` (mean reduction).
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::functional::mse_loss;
/// let a = ferrotorch::tensor(&[1.0, 2.0], &[2])?;
/// let b = ferrotorch::tensor(&[1.0, 4.0], &[2])?;
/// assert_eq!(mse_loss(&a, &b)?.item()?.to_f64(), 2.0);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn mse_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    let d = input.sub(target)?;
    d.mul(&d)?.mean()
}

/// Max pooling over `kernel_size` windows with stride `kernel_size`, as
/// `F.max_pool2d(x, kernel_size)`, on `[N, C, H, W]` or `[C, H, W]` inputs.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::functional::max_pool2d;
/// let x = ferrotorch::arange(16)?.to_dtype(ferrotorch::DType::F32)?.reshape(&[1, 1, 4, 4])?;
/// assert_eq!(max_pool2d(&x, 2)?.to_vec::<f32>(), vec![5.0, 7.0, 13.0, 15.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn max_pool2d(input: &Tensor, kernel_size: usize) -> Result<Tensor> {
    let w = Window {
        kernel: [kernel_size, kernel_size],
        dilation: [1, 1],
        padding: [0, 0],
        stride: [kernel_size, kernel_size],
    };
    Ok(input.max_pool2d(w, false)?.0)
}

/// Softmax along `dim`, as `F.softmax(x, dim)`.
///
/// # Examples
///
/// ```
/// let p = ferrotorch::nn::functional::softmax(&ferrotorch::zeros(&[1, 4])?, 1)?;
/// assert_eq!(p.to_vec::<f32>(), vec![0.25; 4]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn softmax(input: &Tensor, dim: i64) -> Result<Tensor> {
    input.softmax(dim)
}

/// `max(x, 0)`, as `F.relu(x)`.
///
/// # Examples
///
/// ```
/// let y = ferrotorch::nn::functional::relu(&ferrotorch::tensor(&[-2.0, 3.0], &[2])?)?;
/// assert_eq!(y.to_vec::<f32>(), vec![0.0, 3.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn relu(input: &Tensor) -> Result<Tensor> {
    input.relu()
}

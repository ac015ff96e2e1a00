//! `F.dropout`: on a GPU one kernel draws the mask and scales in a single pass; on the host
//! a Bernoulli mask times 1 / (1 - p) multiplies the input.

use crate::random::SharedGenerator;
use crate::{bail, Result, Scalar, Tensor};

/// Zeroes each element with probability `p` and scales the rest by 1 / (1 - p) when
/// `training`, as `F.dropout(input, p, training)`; the identity otherwise.
///
/// # Examples
///
/// ```
/// let x = ferrotorch::ones(&[1000])?;
/// let y = ferrotorch::nn::functional::dropout(&x, 0.5, true, None)?;
/// let kept = y.to_vec::<f32>().iter().filter(|&&v| v == 2.0).count();
/// assert!(kept > 400 && kept < 600);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn dropout(
    input: &Tensor,
    p: f64,
    training: bool,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        bail!(
            Value,
            "dropout probability has to be between 0 and 1, but got {p}"
        );
    }
    if !training || p == 0.0 || input.numel() == 0 {
        return Ok(input.clone());
    }
    if p == 1.0 {
        // Everything is dropped (an infinite input gives NaN, as PyTorch's input * 0).
        return input.mul(&Tensor::zeros(&[], input.dtype())?);
    }
    let scale = 1.0 / (1.0 - p);
    if input.dtype().is_float() {
        if let Some(out) = crate::cuda_forward!("dropout", [input], |dev| {
            device(&dev, input, p, scale, g)
        }) {
            return out;
        }
    }
    let keep = Tensor::zeros_on(input.shape(), input.dtype(), input.device())?;
    keep.bernoulli_scalar_(1.0 - p, g)?;
    input.mul(&keep.mul_scalar(Scalar::Float(scale))?)
}

/// The fused kernel; the gradient is the output's mask times the same scale.
#[cfg(feature = "cuda")]
fn device(
    dev: &std::sync::Arc<crate::cuda::runtime::DeviceState>,
    input: &Tensor,
    p: f64,
    scale: f64,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    let (out, mask) = crate::cuda::ops::random::dropout(dev, &input.detach(), p, g)?;
    Ok(crate::autograd::record(
        "NativeDropoutBackward0",
        out,
        &[input],
        &[],
        false,
        move |g, _| {
            let kept = g.mul(&mask.to_dtype(g.dtype())?)?;
            Ok(vec![Some(kept.mul_scalar(Scalar::Float(scale))?)])
        },
    ))
}

//! `F.nll_loss` over rows of log-probabilities: one fused kernel each way on a GPU, one
//! loop each way on the host for float32/float64 (the composition of gather, weights and
//! sums for the half types, and for a weight that asks for a gradient).

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::ops::BinaryOp;
use crate::{bail, DType, Element, Result, Scalar, Tensor};

/// How per-sample losses are combined (PyTorch's `reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// One loss per sample.
    None,
    /// The weighted mean over the targets that are not ignored.
    Mean,
    /// The sum.
    Sum,
}

/// Negative log likelihood of log-probabilities `input` [N, C] at int64 class indices
/// `target` [N], as `F.nll_loss`: -weight[t] * input[i, t] per sample, 0 where the target is
/// `ignore_index`; the mean divides by the sum of the weights of the counted targets.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::functional::{nll_loss, Reduction};
/// use ferrotorch::Tensor;
/// let logp = ferrotorch::tensor(&[-1.0, -2.0, -3.0, -4.0], &[2, 2])?;
/// let target = Tensor::from_vec(vec![1i64, -100], &[2])?;
/// let loss = nll_loss(&logp, &target, None, -100, Reduction::Mean)?;
/// assert_eq!(loss.item()?.to_f64(), 2.0);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn nll_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    if input.ndim() != 2 || target.ndim() != 1 || target.shape()[0] != input.shape()[0] {
        bail!(
            Value,
            "nll_loss: expected input [N, C] and target [N], got input {} and target {}",
            fmt_shape(input.shape()),
            fmt_shape(target.shape())
        );
    }
    if !input.dtype().is_float() {
        bail!(
            NotImplemented,
            "\"nll_loss_out_frame\" not implemented for '{}'",
            input.dtype().scalar_type_name()
        );
    }
    if target.dtype().is_float() || target.dtype().is_complex() {
        bail!(
            Runtime,
            "nll_loss: expected target of an integer dtype (class indices), got {}",
            target.dtype().name()
        );
    }
    let c = input.shape()[1];
    if let Some(w) = weight {
        if w.shape() != [c] {
            bail!(
                Runtime,
                "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
                fmt_shape(w.shape())
            );
        }
    }
    // A missing weight checks the input's device again.
    let on_cuda = crate::cuda_forward!(
        "nll_loss",
        [input, target, weight.unwrap_or(input)],
        |dev| device::forward(&dev, input, target, weight, ignore_index, reduction)
    );
    let fused = matches!(input.dtype(), DType::F32 | DType::F64)
        && weight.is_none_or(|w| !w.requires_grad());
    match on_cuda {
        Some(out) => out,
        None if fused => match input.dtype() {
            DType::F64 => host_fused::<f64>(input, target, weight, ignore_index, reduction),
            _ => host_fused::<f32>(input, target, weight, ignore_index, reduction),
        },
        None => host(input, target, weight, ignore_index, reduction),
    }
}

/// One pass over the rows: each sample's class weight (0 where ignored) and loss, the
/// reduction, and a node whose backward scatters -weight * g / total into a zero gradient.
fn host_fused<T: Element>(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let (n, c) = (input.shape()[0], input.shape()[1]);
    let x = input.contiguous_data::<T>()?;
    let t = target.try_to_vec::<i64>()?;
    let cw = weight.map(|w| w.try_to_vec::<f64>()).transpose()?;
    let mut w = vec![0f64; n];
    let mut loss = vec![0f64; n];
    for i in 0..n {
        let ti = t[i];
        if ti == ignore_index {
            continue;
        }
        if ti < 0 || ti >= c as i64 {
            bail!(Index, "nll_loss: Target {ti} is out of bounds.");
        }
        let k = ti as usize;
        w[i] = cw.as_ref().map_or(1.0, |cw| cw[k]);
        loss[i] = -x[i * c + k].to_f64() * w[i];
    }
    let total: f64 = w.iter().sum();
    let dt = input.dtype();
    let out = match reduction {
        Reduction::None => Tensor::from_vec(loss.iter().map(|&v| T::from_f64(v)).collect(), &[n])?,
        Reduction::Sum => Tensor::scalar(Scalar::Float(loss.iter().sum()), dt),
        Reduction::Mean => Tensor::scalar(Scalar::Float(loss.iter().sum::<f64>() / total), dt),
    };
    Ok(record(
        "NllLossBackward0",
        out,
        &[input],
        &[],
        false,
        move |g, _| {
            // d loss_i / d x[i, t_i] = -w_i (over the total weight for the mean): a constant
            // matrix times g, so the gradient of the gradient comes from the product.
            let scale = if reduction == Reduction::Mean {
                total
            } else {
                1.0
            };
            let mut coef = vec![T::from_f64(0.0); n * c];
            // Nothing counted (a mean over no weight): NaN loss, zero gradient, as PyTorch's.
            if scale != 0.0 {
                for i in (0..n).filter(|&i| w[i] != 0.0) {
                    coef[i * c + t[i] as usize] = T::from_f64(-w[i] / scale);
                }
            }
            let coef = Tensor::from_vec(coef, &[n, c])?;
            let g = if reduction == Reduction::None {
                g.unsqueeze(1)?
            } else {
                g.clone()
            };
            Ok(vec![Some(coef.mul(&g)?)])
        },
    ))
}

/// The host composition (its gradient comes from the ops it is made of).
fn host(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let dt = input.dtype();
    let t = target.to_dtype(crate::DType::I64)?;
    let valid = t.binary_scalar(BinaryOp::Ne, Scalar::Int(ignore_index))?;
    // Ignored rows read class 0 and get weight 0.
    let safe = valid.where_(&t, &Tensor::zeros(&[], crate::DType::I64)?)?;
    let picked = input
        .gather(1, &safe.unsqueeze(1)?)?
        .squeeze(Some(&[1]))?
        .neg()?;
    let w = match weight {
        Some(w) => w.to_dtype(dt)?.index_select(0, &safe)?,
        None => Tensor::ones(&[t.numel()], dt)?,
    };
    let w = w.mul(&valid.to_dtype(dt)?)?;
    let loss = picked.mul(&w)?;
    match reduction {
        Reduction::None => Ok(loss),
        Reduction::Sum => loss.sum_all(),
        Reduction::Mean => loss.sum_all()?.div(&w.sum_all()?),
    }
}

#[cfg(feature = "cuda")]
mod device {
    use super::Reduction;
    use crate::autograd::record;
    use crate::cuda::ops::loss as cl;
    use crate::cuda::runtime::DeviceState;
    use crate::{Result, Tensor};
    use std::sync::Arc;

    fn kernel_reduction(r: Reduction) -> cl::Reduction {
        match r {
            Reduction::None => cl::Reduction::None,
            Reduction::Mean => cl::Reduction::Mean,
            Reduction::Sum => cl::Reduction::Sum,
        }
    }

    /// The fused forward, recording the fused backward (which needs the total weight).
    pub(super) fn forward(
        dev: &Arc<DeviceState>,
        input: &Tensor,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
        reduction: Reduction,
    ) -> Result<Tensor> {
        let red = kernel_reduction(reduction);
        let (out, total) = cl::nll_loss(dev, input, target, weight, ignore_index, red)?;
        let (target, weight) = (target.clone(), weight.map(Tensor::detach));
        let (dev, c) = (dev.clone(), input.shape()[1]);
        Ok(record(
            "NllLossBackward0",
            out,
            &[input],
            &[],
            false,
            move |g, _| {
                let gx = cl::nll_loss_backward(
                    &dev,
                    g,
                    &target,
                    weight.as_ref(),
                    &total,
                    c,
                    ignore_index,
                    red,
                )?;
                Ok(vec![Some(gx)])
            },
        ))
    }
}

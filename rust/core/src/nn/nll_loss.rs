//! `F.nll_loss` over rows of log-probabilities: one fused kernel each way on a GPU, the
//! composition of gather, weights and sums on the host.

use crate::error::fmt_shape;
use crate::ops::BinaryOp;
use crate::{bail, Result, Scalar, Tensor};

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
    match on_cuda {
        Some(out) => out,
        None => host(input, target, weight, ignore_index, reduction),
    }
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

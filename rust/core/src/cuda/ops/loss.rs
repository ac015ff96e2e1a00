//! nll_loss on the device (kernels in `loss.cu`): the forward writes the loss and the total
//! weight of the counted targets; the backward writes the whole input gradient from them.
//! An out-of-range target raises the host's error after one read-back of the error flag.

use super::select::{on_device, ErrorFlag};
use super::{empty, first_element, rows::dense, zeros};
use crate::cuda::launch::loss as ll;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Error, Result, Tensor};
use std::sync::Arc;

pub use ll::Reduction;

/// The target as contiguous int64 and the weight as a contiguous tensor of `dt`, on `dev`.
fn operands(
    dev: &Arc<DeviceState>,
    target: &Tensor,
    weight: Option<&Tensor>,
    dt: DType,
) -> Result<(Tensor, Option<Tensor>)> {
    let t = dense(dev, &on_device(dev, target, DType::I64)?)?;
    let w = match weight {
        Some(w) => Some(dense(dev, &on_device(dev, w, dt)?)?),
        None => None,
    };
    Ok((t, w))
}

fn check_flag(flag: &ErrorFlag) -> Result<()> {
    // The flag's own message names an index dim; nll_loss reports PyTorch's wording.
    flag.check("nll_loss", 0)
        .map_err(|_| Error::Index("nll_loss: Target is out of bounds.".into()))
}

/// (loss, total weight) of log-probabilities `logp` [n, c] at `target` [n].
pub fn nll_loss(
    dev: &Arc<DeviceState>,
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<(Tensor, Tensor)> {
    let (n, c) = (logp.shape()[0], logp.shape()[1]);
    let dt = logp.dtype();
    let x = dense(dev, logp)?;
    let (t, w) = operands(dev, target, weight, dt)?;
    let out = match reduction {
        Reduction::None => empty(dev, &[n], dt)?,
        _ => zeros(dev, &[], dt)?,
    };
    let total = zeros(dev, &[], dt)?;
    let flag = ErrorFlag::new(dev)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        ll::nll_loss_forward(
            dev.as_ref(),
            &stream,
            dt,
            first_element(&x)?,
            first_element(&t)?,
            w.as_ref().map(first_element).transpose()?.unwrap_or(0),
            first_element(&out)?,
            first_element(&total)?,
            n,
            c,
            ignore_index,
            reduction,
            flag.ptr()?,
        )
    })?;
    check_flag(&flag)?;
    Ok((out, total))
}

/// The gradient [n, c] of `nll_loss` for the output gradient `grad` (shaped like the loss).
#[allow(clippy::too_many_arguments)]
pub fn nll_loss_backward(
    dev: &Arc<DeviceState>,
    grad: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    total_weight: &Tensor,
    c: usize,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let n = target.numel();
    let dt = total_weight.dtype();
    let g = dense(dev, &on_device(dev, grad, dt)?)?;
    let (t, w) = operands(dev, target, weight, dt)?;
    let gx = empty(dev, &[n, c], dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        ll::nll_loss_backward(
            dev.as_ref(),
            &stream,
            dt,
            first_element(&g)?,
            first_element(&t)?,
            w.as_ref().map(first_element).transpose()?.unwrap_or(0),
            first_element(total_weight)?,
            first_element(&gx)?,
            n,
            c,
            ignore_index,
            reduction,
            // The forward already checked every target: no flag, no read-back.
            0,
        )
    })?;
    Ok(gx)
}

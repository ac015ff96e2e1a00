//! nll_loss over log-probabilities (kernels in `loss.cu`); cross_entropy is log_softmax
//! (`softmax::softmax_forward` with `log`) followed by this, as on the CPU (label smoothing
//! is composed by the caller from a row sum, as the CPU does).
//!
//! Device error flag: `err` is 0 or a pointer to one i32 that the caller zeroes before and
//! reads when it syncs. A target that is neither `ignore_index` nor in [0, c) sets its bit 1
//! (`ERR_INDEX`) and is skipped: nothing is read or written out of bounds. PyTorch raises a
//! device-side assert there; the caller reports "Target t is out of bounds." as an error.

use super::softmax::{float_kernel, row_config};
use super::{grid_for, launch_err, Kernels, Stream};
use crate::cuda::kernels::LOSS;
use crate::{DType, Error, Result};
use cudarc::driver::PushKernelArg;

/// The bit a kernel sets in the device error flag when an index is out of range.
pub const ERR_INDEX: i32 = 1;

/// How the per-sample losses are combined (PyTorch's `reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None = 0,
    Mean = 1,
    Sum = 2,
}

/// Forward. `logp`: contiguous [n, c]; `target`: contiguous i64 [n]; `weight`: [c] or 0
/// (all ones); `out`: [n] for `Reduction::None`, else 1 element (mean: the sum of
/// -w[t] logp[i, t] divided by `total_weight`, NaN when that is 0); `total_weight`: 1
/// element (the sum of w[t] over non-ignored targets), written for Mean and Sum when not 0
/// (the backward of Mean needs it). Mean and Sum run as one block, in a fixed order
/// (deterministic). All float buffers have dtype `dtype`, pointers at element 0.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss_forward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    logp: u64,
    target: u64,
    weight: u64,
    out: u64,
    total_weight: u64,
    n: usize,
    c: usize,
    ignore_index: i64,
    reduction: Reduction,
    err: u64,
) -> Result<()> {
    let name = float_kernel("nll_loss_forward", "nll_loss", dtype)?;
    if reduction == Reduction::None && n == 0 {
        return Ok(());
    }
    let f = k.function(&LOSS, &name)?;
    let cfg = if reduction == Reduction::None {
        grid_for(n)
    } else {
        row_config(1)
    };
    let (nn, cc, red) = (n as i64, c as i64, reduction as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&logp)
        .arg(&target)
        .arg(&weight)
        .arg(&out)
        .arg(&total_weight);
    b.arg(&nn).arg(&cc).arg(&ignore_index).arg(&red).arg(&err);
    unsafe { b.launch(cfg) }.map_err(launch_err(&name))?;
    Ok(())
}

/// Backward: writes all of `grad_logp` (contiguous [n, c]): -w[t] * g at each target, 0
/// elsewhere and on ignored rows, with g = grad_out[i] (None, [n]), grad_out[0] (Sum) or
/// grad_out[0] / total_weight[0] (Mean; 0 when the total weight is 0). `total_weight` is the
/// forward's (required for Mean, else may be 0). Same `err` contract as the forward.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss_backward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    grad_out: u64,
    target: u64,
    weight: u64,
    total_weight: u64,
    grad_logp: u64,
    n: usize,
    c: usize,
    ignore_index: i64,
    reduction: Reduction,
    err: u64,
) -> Result<()> {
    let name = float_kernel("nll_loss_backward", "nll_loss_backward", dtype)?;
    if reduction == Reduction::Mean && total_weight == 0 {
        return Err(Error::runtime(
            "CUDA nll_loss_backward: the mean reduction needs the forward's total_weight",
        ));
    }
    if n * c == 0 {
        return Ok(());
    }
    let f = k.function(&LOSS, &name)?;
    let (nn, cc, red) = (n as i64, c as i64, reduction as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&grad_out)
        .arg(&target)
        .arg(&weight)
        .arg(&total_weight)
        .arg(&grad_logp);
    b.arg(&nn).arg(&cc).arg(&ignore_index).arg(&red).arg(&err);
    unsafe { b.launch(grid_for(n * c)) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_loss_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            for p in ["nll_loss_forward", "nll_loss_backward"] {
                match float_kernel(p, p, dt) {
                    Ok(n) => assert!(LOSS.functions.contains(&n.as_str()), "{n}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}

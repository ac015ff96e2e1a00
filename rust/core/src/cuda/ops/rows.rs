//! Row-wise fused ops on the device: softmax / log_softmax along any dim and layer norm over
//! the last dims. The reduced dim is moved last and made contiguous (one device copy when it
//! is not already), so each row is one block of the kernels in `softmax.cu` / `layer_norm.cu`.

use super::{copy::copy_as, empty, first_element};
use crate::cuda::launch::{norm, softmax as ls};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{Result, Tensor};
use std::sync::Arc;

/// `t` as a contiguous tensor on its device (no copy when it already is).
pub(crate) fn dense(dev: &Arc<DeviceState>, t: &Tensor) -> Result<Tensor> {
    if t.is_contiguous() {
        Ok(t.clone())
    } else {
        copy_as(dev, t, t.dtype())
    }
}

/// softmax (log_softmax when `log`) of `x` along dim `d`, in `x`'s dtype and shape.
pub fn softmax(dev: &Arc<DeviceState>, x: &Tensor, d: usize, log: bool) -> Result<Tensor> {
    let nd = x.ndim();
    // The order that puts `d` last, and its inverse to restore the input's order.
    let mut perm: Vec<i64> = (0..nd as i64).filter(|&k| k != d as i64).collect();
    perm.push(d as i64);
    let mut inv = vec![0i64; nd];
    for (i, &k) in perm.iter().enumerate() {
        inv[k as usize] = i as i64;
    }
    let rows_in = dense(dev, &x.detach().permute(&perm)?)?;
    let cols = x.shape()[d];
    let rows = x.numel().checked_div(cols).unwrap_or(0);
    let y = empty(dev, rows_in.shape(), x.dtype())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        ls::softmax_forward(
            dev.as_ref(),
            &stream,
            x.dtype(),
            first_element(&rows_in)?,
            first_element(&y)?,
            rows,
            cols,
            log,
        )
    })?;
    dense(dev, &y.permute(&inv)?)
}

/// Layer norm of `x` over its last `k` dims without affine parameters: (y, mean, rstd) with
/// mean / rstd shaped like `x` with those dims kept as 1, all in `x`'s dtype.
pub fn normalize_last(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    k: usize,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let nd = x.ndim();
    let xs = dense(dev, &x.detach())?;
    let cols: usize = x.shape()[nd - k..].iter().product();
    let rows = x.numel().checked_div(cols).unwrap_or(0);
    let mut keep = x.shape().to_vec();
    keep[nd - k..].iter_mut().for_each(|s| *s = 1);
    let y = empty(dev, x.shape(), x.dtype())?;
    let mean = super::zeros(dev, &keep, x.dtype())?;
    let rstd = super::zeros(dev, &keep, x.dtype())?;
    if rows > 0 && cols > 0 {
        let stream = dev.streams.current()?;
        with_context(dev, || {
            norm::layer_norm_forward(
                dev.as_ref(),
                &stream,
                x.dtype(),
                first_element(&xs)?,
                0,
                0,
                first_element(&y)?,
                first_element(&mean)?,
                first_element(&rstd)?,
                rows,
                cols,
                eps,
            )
        })?;
    }
    Ok((y, mean, rstd))
}

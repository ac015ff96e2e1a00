//! Layer norm over the last dim of a contiguous [rows, cols] tensor (the caller flattens the
//! normalized dims into cols); kernels in `layer_norm.cu`. As the CPU's `normalize_last`:
//! two-pass mean and biased variance in f32 (f64 for f64), rstd = 1 / sqrt(var + eps), and
//! mean / rstd ([rows] each) saved in the input's dtype. Batch norm reuses these kernels
//! with one row per channel, as the CPU does (permute to [C, N*H*W] first).

use super::softmax::{float_kernel, row_config};
use super::{grid_for, launch_err, Kernels, Stream};
use crate::cuda::kernels::LAYER_NORM;
use crate::{DType, Result};
use cudarc::driver::PushKernelArg;

/// y = (x - mean) * rstd (* weight) (+ bias) per row. `weight`, `bias`: [cols] or 0 for none;
/// `mean`, `rstd`: [rows] outputs or 0 when not wanted. All contiguous, pointers at element
/// 0, dtype `dtype` (floats).
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_forward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    x: u64,
    weight: u64,
    bias: u64,
    y: u64,
    mean: u64,
    rstd: u64,
    rows: usize,
    cols: usize,
    eps: f64,
) -> Result<()> {
    let name = float_kernel("layer_norm_forward", "layer_norm", dtype)?;
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let f = k.function(&LAYER_NORM, &name)?;
    let (r, c) = (rows as i64, cols as i64);
    let mut b = stream.launch_builder(&f);
    b.arg(&x)
        .arg(&weight)
        .arg(&bias)
        .arg(&y)
        .arg(&mean)
        .arg(&rstd);
    b.arg(&r).arg(&c).arg(&eps);
    unsafe { b.launch(row_config(rows)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// Gradients of `layer_norm_forward` from grad_y, x and the saved mean / rstd (required,
/// [rows]): grad_x
/// (required), and grad_weight / grad_bias ([cols]; 0 = not needed) summed over rows in
/// order by a second kernel (deterministic). `weight` is [cols] or 0 for none. All
/// contiguous, pointers at element 0, dtype `dtype`.
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_backward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    grad_y: u64,
    x: u64,
    mean: u64,
    rstd: u64,
    weight: u64,
    grad_x: u64,
    grad_weight: u64,
    grad_bias: u64,
    rows: usize,
    cols: usize,
) -> Result<()> {
    let name = float_kernel("layer_norm_backward", "layer_norm_backward", dtype)?;
    let pname = float_kernel("layer_norm_param_grad", "layer_norm_backward", dtype)?;
    if cols == 0 {
        return Ok(());
    }
    let (r, c) = (rows as i64, cols as i64);
    if rows > 0 {
        let f = k.function(&LAYER_NORM, &name)?;
        let mut b = stream.launch_builder(&f);
        b.arg(&grad_y)
            .arg(&x)
            .arg(&mean)
            .arg(&rstd)
            .arg(&weight)
            .arg(&grad_x);
        b.arg(&r).arg(&c);
        unsafe { b.launch(row_config(rows)) }.map_err(launch_err(&name))?;
    }
    if grad_weight != 0 || grad_bias != 0 {
        // Columns of zero rows sum to 0: the kernel writes them too.
        let f = k.function(&LAYER_NORM, &pname)?;
        let mut b = stream.launch_builder(&f);
        b.arg(&grad_y)
            .arg(&x)
            .arg(&mean)
            .arg(&rstd)
            .arg(&grad_weight)
            .arg(&grad_bias);
        b.arg(&r).arg(&c);
        unsafe { b.launch(grid_for(cols)) }.map_err(launch_err(&pname))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_norm_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            for p in [
                "layer_norm_forward",
                "layer_norm_backward",
                "layer_norm_param_grad",
            ] {
                match float_kernel(p, p, dt) {
                    Ok(n) => assert!(LAYER_NORM.functions.contains(&n.as_str()), "{n}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}

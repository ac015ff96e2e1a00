//! softmax / log_softmax over the last dim of a contiguous [rows, cols] tensor (the caller
//! moves the dim last); kernels in `softmax.cu`.

use super::{launch_err, suffix, Kernels, Stream};
use crate::cuda::kernels::SOFTMAX;
use crate::{DType, Error, Result};
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// One block of 256 threads per row (blocks loop over rows past 2^20).
pub(crate) fn row_config(rows: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (rows.clamp(1, 1 << 20) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `prefix_<dt>` for a float dtype; a type error naming `op` otherwise.
pub(crate) fn float_kernel(prefix: &str, op: &str, dtype: DType) -> Result<String> {
    if dtype.is_float() {
        Ok(format!("{prefix}_{}", suffix(dtype)))
    } else {
        Err(Error::type_error(format!(
            "CUDA {op}: not implemented for '{}'",
            dtype.name()
        )))
    }
}

/// y = softmax(x) (or log_softmax when `log`) along each row. `x`, `y`: contiguous
/// [rows, cols], pointers at element 0, dtype `dtype` (floats). Computes in f32 (f64 for
/// f64): max-subtracted, a NaN makes its row NaN.
#[allow(clippy::too_many_arguments)]
pub fn softmax_forward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    x: u64,
    y: u64,
    rows: usize,
    cols: usize,
    log: bool,
) -> Result<()> {
    let name = float_kernel("softmax_forward", "softmax", dtype)?;
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let f = k.function(&SOFTMAX, &name)?;
    let (r, c, l) = (rows as i64, cols as i64, log as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&y).arg(&r).arg(&c).arg(&l);
    unsafe { b.launch(row_config(rows)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// grad_x from grad_y and the forward's output y: softmax dx = y * (g - sum(g * y)),
/// log_softmax dx = g - exp(y) * sum(g). All contiguous [rows, cols], pointers at element 0.
#[allow(clippy::too_many_arguments)]
pub fn softmax_backward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    grad_y: u64,
    y: u64,
    grad_x: u64,
    rows: usize,
    cols: usize,
    log: bool,
) -> Result<()> {
    let name = float_kernel("softmax_backward", "softmax_backward", dtype)?;
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let f = k.function(&SOFTMAX, &name)?;
    let (r, c, l) = (rows as i64, cols as i64, log as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&grad_y).arg(&y).arg(&grad_x).arg(&r).arg(&c).arg(&l);
    unsafe { b.launch(row_config(rows)) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_softmax_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            for p in ["softmax_forward", "softmax_backward"] {
                match float_kernel(p, p, dt) {
                    Ok(n) => assert!(SOFTMAX.functions.contains(&n.as_str()), "{n}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}

//! max_pool2d and avg_pool2d over contiguous NCHW (kernels in `pool.cu`). The caller
//! computes out_h / out_w (ceil_mode included) into the `Win2d`. Backward passes gather from
//! the windows covering each input pixel (deterministic, no atomics) and overwrite grad_x.

use super::conv::Win2d;
use super::softmax::float_kernel;
use super::{grid_for, launch_err, suffix, Kernels, Stream};
use crate::cuda::kernels::POOL;
use crate::{DType, Error, Result};
use cudarc::driver::PushKernelArg;

pub(crate) fn max_pool_forward_kernel(dtype: DType) -> Result<String> {
    if dtype == DType::Bool {
        return Err(Error::type_error(
            "CUDA max_pool2d: \"max_pool2d\" not implemented for 'Bool'",
        ));
    }
    Ok(format!("max_pool2d_forward_{}", suffix(dtype)))
}

/// y, idx ([n, c, out_h, out_w], contiguous; idx i64) = window max of x ([n, c, h, w]) and
/// its flat position iy*w + ix in the plane (first max; a NaN wins). Every dtype but bool.
pub fn max_pool2d_forward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    x: u64,
    y: u64,
    idx: u64,
    g: &Win2d,
) -> Result<()> {
    let name = max_pool_forward_kernel(dtype)?;
    if g.output_len() == 0 {
        return Ok(());
    }
    let f = k.function(&POOL, &name)?;
    let gg = *g;
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&y).arg(&idx).arg(&gg);
    unsafe { b.launch(grid_for(g.output_len())) }.map_err(launch_err(&name))?;
    Ok(())
}

/// grad_x ([n, c, h, w], overwritten) from grad_y and the forward's idx ([n, c, out_h,
/// out_w]): each pixel sums the gradients of the outputs whose idx points at it. Floats.
pub fn max_pool2d_backward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    grad_y: u64,
    idx: u64,
    grad_x: u64,
    g: &Win2d,
) -> Result<()> {
    let name = float_kernel("max_pool2d_backward", "max_pool2d_backward", dtype)?;
    if g.input_len() == 0 {
        return Ok(());
    }
    let f = k.function(&POOL, &name)?;
    let gg = *g;
    let mut b = stream.launch_builder(&f);
    b.arg(&grad_y).arg(&idx).arg(&grad_x).arg(&gg);
    unsafe { b.launch(grid_for(g.input_len())) }.map_err(launch_err(&name))?;
    Ok(())
}

/// y = window mean of x. Windows are clipped to the padded input; the divisor is
/// `divisor_override` when Some (> 0), else the clipped window's size with
/// `count_include_pad`, or the number of its elements inside the input. Dilation must be 1.
/// Floats.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool2d_forward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    x: u64,
    y: u64,
    g: &Win2d,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<()> {
    avg_pool(
        k,
        stream,
        dtype,
        false,
        x,
        y,
        g,
        count_include_pad,
        divisor_override,
    )
}

/// grad_x ([n, c, h, w], overwritten) of `avg_pool2d_forward` from grad_y; same arguments.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool2d_backward(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    grad_y: u64,
    grad_x: u64,
    g: &Win2d,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<()> {
    avg_pool(
        k,
        stream,
        dtype,
        true,
        grad_y,
        grad_x,
        g,
        count_include_pad,
        divisor_override,
    )
}

#[allow(clippy::too_many_arguments)]
fn avg_pool(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    backward: bool,
    a: u64,
    b_ptr: u64,
    g: &Win2d,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<()> {
    let prefix = if backward {
        "avg_pool2d_backward"
    } else {
        "avg_pool2d_forward"
    };
    let name = float_kernel(prefix, prefix, dtype)?;
    if g.dil_h != 1 || g.dil_w != 1 {
        return Err(Error::runtime("CUDA avg_pool2d: dilation must be 1"));
    }
    if matches!(divisor_override, Some(d) if d <= 0) {
        return Err(Error::runtime("divisor must be not zero"));
    }
    let total = if backward {
        g.input_len()
    } else {
        g.output_len()
    };
    if total == 0 {
        return Ok(());
    }
    let f = k.function(&POOL, &name)?;
    let (gg, inc, div) = (*g, count_include_pad as i32, divisor_override.unwrap_or(0));
    let mut b = stream.launch_builder(&f);
    b.arg(&a).arg(&b_ptr).arg(&gg).arg(&inc).arg(&div);
    unsafe { b.launch(grid_for(total)) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pool_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            match max_pool_forward_kernel(dt) {
                Ok(n) => assert!(POOL.functions.contains(&n.as_str()), "{n}"),
                Err(_) => assert_eq!(dt, DType::Bool),
            }
            for p in [
                "max_pool2d_backward",
                "avg_pool2d_forward",
                "avg_pool2d_backward",
            ] {
                match float_kernel(p, p, dt) {
                    Ok(n) => assert!(POOL.functions.contains(&n.as_str()), "{n}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}

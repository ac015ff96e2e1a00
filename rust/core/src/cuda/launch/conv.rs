//! im2col / col2im for conv2d as GEMMs (kernels in `conv.cu`): forward is
//! `im2col` then, per image b, weight [O, C*kh*kw] x cols[b] [C*kh*kw, L] (a strided-batched
//! cuBLAS GEMM); the input gradient is weight^T x grad_out[b] then `col2im`; the weight
//! gradient is grad_out[b] x cols[b]^T summed over b. (Groups: one GEMM per group over its
//! rows of `cols`.)

use super::softmax::float_kernel;
use super::{grid_for, launch_err, Kernels, Stream};
use crate::cuda::kernels::CONV;
use crate::{DType, Result};
use cudarc::driver::{DeviceRepr, PushKernelArg};

/// A 2-D sliding window over NCHW: mirrors `struct Win2d` in win2d.cuh (same field order,
/// all i64). `out_h` / `out_w` are the caller's (ceil_mode and the like decided there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Win2d {
    pub n: i64,
    pub c: i64,
    pub h: i64,
    pub w: i64,
    pub kh: i64,
    pub kw: i64,
    pub pad_h: i64,
    pub pad_w: i64,
    pub stride_h: i64,
    pub stride_w: i64,
    pub dil_h: i64,
    pub dil_w: i64,
    pub out_h: i64,
    pub out_w: i64,
}

// Plain old data with the C layout the kernels declare.
unsafe impl DeviceRepr for Win2d {}

impl Win2d {
    /// Elements of one image's column matrix: C*kh*kw rows of out_h*out_w.
    pub fn cols_per_image(&self) -> usize {
        (self.c * self.kh * self.kw * self.out_h * self.out_w) as usize
    }
    pub fn input_len(&self) -> usize {
        (self.n * self.c * self.h * self.w) as usize
    }
    pub fn output_len(&self) -> usize {
        (self.n * self.c * self.out_h * self.out_w) as usize
    }
}

/// Unfolds `x` (contiguous [n, c, h, w]) into `cols` (contiguous [n, c*kh*kw, out_h*out_w];
/// row (ch*kh + ki)*kw + kj, column oy*out_w + ox; 0 in the padding). Floats.
pub fn im2col(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    x: u64,
    cols: u64,
    g: &Win2d,
) -> Result<()> {
    let name = float_kernel("im2col", "conv2d", dtype)?;
    let total = g.n as usize * g.cols_per_image();
    if total == 0 {
        return Ok(());
    }
    let f = k.function(&CONV, &name)?;
    let g = *g;
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&cols).arg(&g);
    unsafe { b.launch(grid_for(total)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// Folds `cols` (layout as `im2col`) back into `x` ([n, c, h, w]), each pixel the sum of its
/// taps, gathered in a fixed order (deterministic, no atomics). Overwrites `x`. Floats.
pub fn col2im(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    cols: u64,
    x: u64,
    g: &Win2d,
) -> Result<()> {
    let name = float_kernel("col2im", "conv2d_backward", dtype)?;
    let total = g.input_len();
    if total == 0 {
        return Ok(());
    }
    let f = k.function(&CONV, &name)?;
    let g = *g;
    let mut b = stream.launch_builder(&f);
    b.arg(&cols).arg(&x).arg(&g);
    unsafe { b.launch(grid_for(total)) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win2d_is_fourteen_i64() {
        assert_eq!(std::mem::size_of::<Win2d>(), 14 * 8);
    }

    #[test]
    fn every_conv_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            for p in ["im2col", "col2im"] {
                match float_kernel(p, p, dt) {
                    Ok(n) => assert!(CONV.functions.contains(&n.as_str()), "{n}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}

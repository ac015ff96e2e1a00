//! im2col / col2im on the device (kernels in `conv.cu`): conv2d and conv_transpose2d are these
//! with cuBLAS products between them (`ops::unfold`), so both convolution backward passes are
//! the same two kernels and GEMMs with the roles swapped.

use super::{empty, first_element, rows::dense};
use crate::cuda::launch::conv::{col2im as col2im_kernel, im2col as im2col_kernel, Win2d};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::ops::unfold::Window;
use crate::{Result, Tensor};
use std::sync::Arc;

/// The kernels' geometry of `w` over [n, c, h, wd] with `ohw` output positions.
pub(crate) fn win2d(shape: [usize; 4], w: &Window, ohw: [usize; 2]) -> Win2d {
    let i = |v: usize| v as i64;
    Win2d {
        n: i(shape[0]),
        c: i(shape[1]),
        h: i(shape[2]),
        w: i(shape[3]),
        kh: i(w.kernel[0]),
        kw: i(w.kernel[1]),
        pad_h: i(w.padding[0]),
        pad_w: i(w.padding[1]),
        stride_h: i(w.stride[0]),
        stride_w: i(w.stride[1]),
        dil_h: i(w.dilation[0]),
        dil_w: i(w.dilation[1]),
        out_h: i(ohw[0]),
        out_w: i(ohw[1]),
    }
}

/// `x` [n, c, h, w] unfolded to [n, c*kh*kw, L] (a float dtype, checked by the caller).
pub fn im2col(dev: &Arc<DeviceState>, x: &Tensor, w: &Window, ohw: [usize; 2]) -> Result<Tensor> {
    let s = x.shape();
    let g = win2d([s[0], s[1], s[2], s[3]], w, ohw);
    let xs = dense(dev, x)?;
    let cols = empty(
        dev,
        &[s[0], s[1] * w.kernel[0] * w.kernel[1], ohw[0] * ohw[1]],
        x.dtype(),
    )?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        im2col_kernel(
            dev.as_ref(),
            &stream,
            x.dtype(),
            first_element(&xs)?,
            first_element(&cols)?,
            &g,
        )
    })?;
    Ok(cols)
}

/// `cols` [n, c*kh*kw, L] folded into [n, c, size] (overlapping taps summed).
pub fn col2im(
    dev: &Arc<DeviceState>,
    cols: &Tensor,
    size: [usize; 2],
    w: &Window,
    ohw: [usize; 2],
) -> Result<Tensor> {
    let (n, c) = (
        cols.shape()[0],
        cols.shape()[1] / (w.kernel[0] * w.kernel[1]),
    );
    let g = win2d([n, c, size[0], size[1]], w, ohw);
    let cs = dense(dev, cols)?;
    // The kernel writes every pixel (empty windows give 0), so no zero fill is needed.
    let x = empty(dev, &[n, c, size[0], size[1]], cols.dtype())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        col2im_kernel(
            dev.as_ref(),
            &stream,
            cols.dtype(),
            first_element(&cs)?,
            first_element(&x)?,
            &g,
        )
    })?;
    Ok(x)
}

//! 2-D pooling on the device (kernels in `pool.cu`) over contiguous NCHW. The backward
//! kernels gather from the windows over each input pixel, so they overwrite the whole input
//! gradient and need no zero fill.

use super::conv::win2d;
use super::{empty, first_element, rows::dense};
use crate::cuda::launch::pool as lp;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::ops::unfold::Window;
use crate::{DType, Result, Tensor};
use std::sync::Arc;

fn dims(t: &Tensor) -> [usize; 4] {
    let s = t.shape();
    [s[0], s[1], s[2], s[3]]
}

/// (values, flat argmax within each plane) of `x` [n, c, h, w] over windows giving `ohw`.
pub fn max_pool2d(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    w: &Window,
    ohw: [usize; 2],
) -> Result<(Tensor, Tensor)> {
    let [n, c, _, _] = dims(x);
    let g = win2d(dims(x), w, ohw);
    let xs = dense(dev, x)?;
    let y = empty(dev, &[n, c, ohw[0], ohw[1]], x.dtype())?;
    let idx = empty(dev, &[n, c, ohw[0], ohw[1]], DType::I64)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lp::max_pool2d_forward(
            dev.as_ref(),
            &stream,
            x.dtype(),
            first_element(&xs)?,
            first_element(&y)?,
            first_element(&idx)?,
            &g,
        )
    })?;
    Ok((y, idx))
}

/// The input gradient [n, c, h, w] (`shape`) of `max_pool2d` from `g` and its indices.
pub fn max_pool2d_backward(
    dev: &Arc<DeviceState>,
    g: &Tensor,
    idx: &Tensor,
    shape: [usize; 4],
    w: &Window,
) -> Result<Tensor> {
    let geo = win2d(shape, w, [g.shape()[2], g.shape()[3]]);
    let (gs, is) = (dense(dev, g)?, dense(dev, idx)?);
    let gx = empty(dev, &shape, g.dtype())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lp::max_pool2d_backward(
            dev.as_ref(),
            &stream,
            g.dtype(),
            first_element(&gs)?,
            first_element(&is)?,
            first_element(&gx)?,
            &geo,
        )
    })?;
    Ok(gx)
}

/// How `avg_pool2d` divides each window's sum.
#[derive(Clone, Copy, Debug)]
pub struct AvgDivisor {
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

/// `avg_pool2d` of `x` [n, c, h, w] (dilation 1) giving `ohw` positions.
pub fn avg_pool2d(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    w: &Window,
    ohw: [usize; 2],
    div: AvgDivisor,
) -> Result<Tensor> {
    let [n, c, _, _] = dims(x);
    let g = win2d(dims(x), w, ohw);
    let xs = dense(dev, x)?;
    let y = empty(dev, &[n, c, ohw[0], ohw[1]], x.dtype())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lp::avg_pool2d_forward(
            dev.as_ref(),
            &stream,
            x.dtype(),
            first_element(&xs)?,
            first_element(&y)?,
            &g,
            div.count_include_pad,
            div.divisor_override,
        )
    })?;
    Ok(y)
}

/// The input gradient [n, c, h, w] (`shape`) of `avg_pool2d` from `g`.
pub fn avg_pool2d_backward(
    dev: &Arc<DeviceState>,
    g: &Tensor,
    shape: [usize; 4],
    w: &Window,
    div: AvgDivisor,
) -> Result<Tensor> {
    let geo = win2d(shape, w, [g.shape()[2], g.shape()[3]]);
    let gs = dense(dev, g)?;
    let gx = empty(dev, &shape, g.dtype())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lp::avg_pool2d_backward(
            dev.as_ref(),
            &stream,
            g.dtype(),
            first_element(&gs)?,
            first_element(&gx)?,
            &geo,
            div.count_include_pad,
            div.divisor_override,
        )
    })?;
    Ok(gx)
}

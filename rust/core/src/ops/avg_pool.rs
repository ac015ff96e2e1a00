//! 2-D average pooling over NCHW with PyTorch's divisor rules: windows are clipped to the
//! padded input, and each sum is divided by `divisor_override`, or by the clipped window's
//! size (`count_include_pad`) or by its part inside the input. One kernel each way on a GPU,
//! a direct loop on the host; forward and backward are each other's adjoint, so gradients of
//! any order come from the same two functions.

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::ops::unfold::Window;
use crate::{bail, with_dtype, Element, Result, Tensor};

/// The pooling geometry and divisor rule, shared by the forward and the backward.
#[derive(Clone, Copy, Debug)]
pub struct AvgPool {
    /// Kernel, stride and padding (dilation is 1).
    pub window: Window,
    /// Output positions [oh, ow] (ceil_mode already applied).
    pub out: [usize; 2],
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

impl AvgPool {
    /// The divisor of output (oy, ox) over an input of `hw`.
    fn divisor(&self, hw: [usize; 2], oy: usize, ox: usize) -> f64 {
        if let Some(d) = self.divisor_override {
            return d as f64;
        }
        let w = &self.window;
        let span = |o: usize, d: usize, size: usize| {
            let start = (o * w.stride[d]) as i64 - w.padding[d] as i64;
            let end = (start + w.kernel[d] as i64).min((size + w.padding[d]) as i64);
            if self.count_include_pad {
                end - start
            } else {
                end.min(size as i64) - start.max(0)
            }
        };
        (span(oy, 0, hw[0]) * span(ox, 1, hw[1])) as f64
    }

    /// Input rows (or columns) [start, end) of output position `o` along dim `d`.
    fn taps(&self, o: usize, d: usize, size: usize) -> std::ops::Range<usize> {
        let w = &self.window;
        let start = (o * w.stride[d]) as i64 - w.padding[d] as i64;
        let end = (start + w.kernel[d] as i64).min(size as i64);
        (start.max(0) as usize)..(end.max(0) as usize)
    }

    /// Each output is its window's mean (`back`: each window's pixels receive its gradient
    /// divided the same way), one plane of `hw` at a time.
    fn host<T: Element>(&self, src: &[T], dst: &mut [T], hw: [usize; 2], back: bool) {
        let (inp, outp) = (hw[0] * hw[1], self.out[0] * self.out[1]);
        let planes = if back {
            src.len() / outp.max(1)
        } else {
            src.len() / inp.max(1)
        };
        for p in 0..planes {
            for oy in 0..self.out[0] {
                for ox in 0..self.out[1] {
                    let div = self.divisor(hw, oy, ox);
                    let o = p * outp + oy * self.out[1] + ox;
                    let (rows, cols) = (self.taps(oy, 0, hw[0]), self.taps(ox, 1, hw[1]));
                    if back {
                        let share = src[o].to_f64() / div;
                        for iy in rows {
                            for ix in cols.clone() {
                                let i = p * inp + iy * hw[1] + ix;
                                dst[i] = T::from_f64(dst[i].to_f64() + share);
                            }
                        }
                    } else {
                        let mut s = 0.0;
                        for iy in rows {
                            for ix in cols.clone() {
                                s += src[p * inp + iy * hw[1] + ix].to_f64();
                            }
                        }
                        dst[o] = T::from_f64(s / div);
                    }
                }
            }
        }
    }
}

impl Tensor {
    /// `avg_pool2d` on [N, C, H, W] (floating dtypes).
    pub fn avg_pool2d(
        &self,
        kernel: [usize; 2],
        stride: [usize; 2],
        padding: [usize; 2],
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        if self.ndim() != 4 {
            bail!(
                Runtime,
                "avg_pool2d: Expected 4D input tensor, but got shape {}",
                fmt_shape(self.shape())
            );
        }
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "\"avg_pool2d\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            );
        }
        if divisor_override == Some(0) {
            bail!(Runtime, "avg_pool2d: divisor must be not zero");
        }
        let (h, w) = (self.shape()[2], self.shape()[3]);
        let size = |d: usize, n: usize| {
            crate::ops::pool::pooled_size(
                "avg_pool2d",
                n,
                kernel[d],
                stride[d],
                padding[d],
                1,
                ceil_mode,
            )
        };
        let pool = AvgPool {
            window: Window {
                kernel,
                dilation: [1, 1],
                padding,
                stride,
            },
            out: [size(0, h)?, size(1, w)?],
            count_include_pad,
            divisor_override,
        };
        avg_forward(self, pool)
    }
}

/// The pooled tensor, recording `avg_backward` as its gradient.
fn avg_forward(x: &Tensor, pool: AvgPool) -> Result<Tensor> {
    let (n, c, h, w) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let out = match crate::cuda_forward!("avg_pool2d", [x], |dev| {
        crate::cuda::ops::pool::avg_pool2d(&dev, x, &pool.window, pool.out, divisor(&pool))
    }) {
        Some(out) => out?,
        None => {
            let xs = x.contiguous_copy_if_needed()?;
            let out = Tensor::uninit(&[n, c, pool.out[0], pool.out[1]], x.dtype())?;
            with_dtype!(x.dtype(), T => pool.host::<T>(xs.contiguous_slice(), unsafe { out.contiguous_slice_mut() }, [h, w], false));
            out
        }
    };
    Ok(record(
        "AvgPool2DBackward0",
        out,
        &[x],
        &[],
        false,
        move |g, _| Ok(vec![Some(avg_backward(g, [n, c, h, w], pool)?)]),
    ))
}

/// The input gradient of shape `shape` from the output gradient `g`, recording
/// `avg_forward` as its own gradient (the two maps are adjoint).
fn avg_backward(g: &Tensor, shape: [usize; 4], pool: AvgPool) -> Result<Tensor> {
    let gx = match crate::cuda_forward!("avg_pool2d_backward", [g], |dev| {
        crate::cuda::ops::pool::avg_pool2d_backward(&dev, g, shape, &pool.window, divisor(&pool))
    }) {
        Some(gx) => gx?,
        None => {
            let gs = g.contiguous_copy_if_needed()?;
            let gx = Tensor::zeros(&shape, g.dtype())?;
            with_dtype!(g.dtype(), T => pool.host::<T>(gs.contiguous_slice(), unsafe { gx.contiguous_slice_mut() }, [shape[2], shape[3]], true));
            gx
        }
    };
    Ok(record(
        "AvgPool2DBackwardBackward0",
        gx,
        &[g],
        &[],
        false,
        move |gg, _| Ok(vec![Some(avg_forward(gg, pool)?)]),
    ))
}

#[cfg(feature = "cuda")]
fn divisor(pool: &AvgPool) -> crate::cuda::ops::pool::AvgDivisor {
    crate::cuda::ops::pool::AvgDivisor {
        count_include_pad: pool.count_include_pad,
        divisor_override: pool.divisor_override,
    }
}

#[cfg(test)]
mod tests {
    use crate::{DType, Tensor};

    #[test]
    fn padded_windows_divide_as_pytorch() {
        let x = Tensor::ones(&[1, 1, 3, 3], DType::F64).unwrap();
        // Corner window of a 2x2 kernel, padding 1: one input pixel of four taps.
        let with = x
            .avg_pool2d([2, 2], [2, 2], [1, 1], false, true, None)
            .unwrap();
        let without = x
            .avg_pool2d([2, 2], [2, 2], [1, 1], false, false, None)
            .unwrap();
        assert_eq!(with.to_vec::<f64>(), vec![0.25, 0.5, 0.5, 1.0]);
        assert_eq!(without.to_vec::<f64>(), vec![1.0; 4]);
    }
}

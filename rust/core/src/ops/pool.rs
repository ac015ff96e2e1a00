//! 2-D max pooling with argmax indices (PyTorch's flat `h * W + w` convention); its backward
//! scatters the gradient to the argmax positions.

use crate::autograd::{is_grad_enabled, record};
use crate::error::fmt_shape;
use crate::ops::unfold::Window;
use crate::{bail, with_dtype, DType, Element, Result, Tensor};
use rayon::prelude::*;

pub(crate) fn pooled_size(
    op: &str,
    size: usize,
    k: usize,
    s: usize,
    p: usize,
    d: usize,
    ceil: bool,
) -> Result<usize> {
    if k == 0 || s == 0 || d == 0 {
        bail!(
            Runtime,
            "{op}: kernel_size, stride and dilation must be greater than zero"
        );
    }
    if p * 2 > k {
        bail!(Runtime, "{op}: pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k}");
    }
    let span = d * (k - 1) + 1;
    let padded = size + 2 * p;
    if padded < span {
        bail!(
            Runtime,
            "{op}: input size {size} (padded {padded}) is smaller than the kernel extent {span}"
        );
    }
    let num = padded - span;
    let mut out = if ceil {
        num.div_ceil(s) + 1
    } else {
        num / s + 1
    };
    // The last window must start inside the input or the left padding.
    if ceil && (out - 1) * s >= size + p {
        out -= 1;
    }
    Ok(out)
}

/// Max and first argmax of each `kernel` window at `stride` over one plane of width `wd`,
/// for windows that lie inside the plane; a NaN wins (and ends) its window, as in PyTorch.
#[allow(clippy::eq_op)]
fn max_windows_interior<T: Element>(
    plane: &[T],
    wd: usize,
    kernel: [usize; 2],
    stride: [usize; 2],
    ow: usize,
    out: &mut [T],
    idx: &mut [i64],
) {
    for (q, (o, ix)) in out.iter_mut().zip(idx.iter_mut()).enumerate() {
        let (i, j) = (q / ow, q % ow);
        let first = i * stride[0] * wd + j * stride[1];
        let (mut best, mut pos) = (plane[first], first);
        'window: for ki in 0..kernel[0] {
            let row = &plane[first + ki * wd..first + ki * wd + kernel[1]];
            for (kj, &v) in row.iter().enumerate() {
                let nan = v != v;
                if v > best || nan {
                    best = v;
                    pos = first + ki * wd + kj;
                    if nan {
                        break 'window;
                    }
                }
            }
        }
        // The first element may itself be NaN: then it stays the answer.
        if plane[first] != plane[first] {
            best = plane[first];
            pos = first;
        }
        *o = best;
        *ix = pos as i64;
    }
}

impl Tensor {
    /// `max_pool2d` on [N, C, H, W] (or [C, H, W]); returns values and int64 indices.
    // The kernel is generic over every dtype, bool included (rejected above at run time).
    #[allow(clippy::bool_comparison)]
    pub fn max_pool2d(&self, w: Window, ceil_mode: bool) -> Result<(Tensor, Tensor)> {
        if self.ndim() == 3 {
            let (v, i) = self.unsqueeze(0)?.max_pool2d(w, ceil_mode)?;
            return Ok((v.squeeze(Some(&[0]))?, i.squeeze(Some(&[0]))?));
        }
        if self.ndim() != 4 {
            bail!(
                Runtime,
                "max_pool2d: Expected 3D or 4D input tensor, but got shape {}",
                fmt_shape(self.shape())
            );
        }
        if self.dtype() == DType::Bool {
            bail!(
                NotImplemented,
                "max_pool2d: \"max_pool2d\" not implemented for 'Bool'"
            );
        }
        let (n, c, h, wd) = (
            self.shape()[0],
            self.shape()[1],
            self.shape()[2],
            self.shape()[3],
        );
        let oh = pooled_size(
            "max_pool2d",
            h,
            w.kernel[0],
            w.stride[0],
            w.padding[0],
            w.dilation[0],
            ceil_mode,
        )?;
        let ow = pooled_size(
            "max_pool2d",
            wd,
            w.kernel[1],
            w.stride[1],
            w.padding[1],
            w.dilation[1],
            ceil_mode,
        )?;
        let on_cuda = crate::cuda_forward!("max_pool2d", [self], |dev| {
            crate::cuda::ops::pool::max_pool2d(&dev, self, &w, [oh, ow])
        });
        let (vals, idx) = match on_cuda {
            Some(r) => r?,
            None => {
                let x = self.contiguous_copy_if_needed()?;
                // Every element is written below.
                let vals = Tensor::uninit(&[n, c, oh, ow], self.dtype())?;
                let idx = Tensor::uninit(&[n, c, oh, ow], DType::I64)?;
                if vals.numel() > 0 {
                    with_dtype!(self.dtype(), T => {
                        let src = x.contiguous_slice::<T>();
                        let out: &mut [T] = unsafe { vals.contiguous_slice_mut() };
                        let ix: &mut [i64] = unsafe { idx.contiguous_slice_mut() };
                        // Without padding or dilation and with every window inside the input (the
                        // usual 2x2 / stride 2 pool), the window loop needs no bounds checks.
                        let interior = w.padding == [0, 0]
                            && w.dilation == [1, 1]
                            && (oh - 1) * w.stride[0] + w.kernel[0] <= h
                            && (ow - 1) * w.stride[1] + w.kernel[1] <= wd;
                        let plane_fn = |(p, (o, ii)): (usize, (&mut [T], &mut [i64]))| {
                            let plane = &src[p * h * wd..(p + 1) * h * wd];
                            if interior && w.kernel == [2, 2] && w.stride == [2, 2] {
                                crate::ops::pool_2x2::max_pool_2x2_plane(plane, wd, ow, o, ii);
                                return;
                            }
                            if interior {
                                max_windows_interior(plane, wd, w.kernel, w.stride, ow, o, ii);
                                return;
                            }
                            for i in 0..oh {
                                for j in 0..ow {
                                    let mut best: Option<(T, usize)> = None;
                                    for ki in 0..w.kernel[0] {
                                        let r = (i * w.stride[0] + ki * w.dilation[0]) as isize - w.padding[0] as isize;
                                        if r < 0 || r as usize >= h {
                                            continue;
                                        }
                                        for kj in 0..w.kernel[1] {
                                            let s = (j * w.stride[1] + kj * w.dilation[1]) as isize - w.padding[1] as isize;
                                            if s < 0 || s as usize >= wd {
                                                continue;
                                            }
                                            let pos = r as usize * wd + s as usize;
                                            let v = plane[pos];
                                            #[allow(clippy::eq_op)]
                                            let nan = v != v;
                                            if best.is_none_or(|(b, _)| v > b || nan) {
                                                best = Some((v, pos));
                                                if nan {
                                                    break;
                                                }
                                            }
                                        }
                                    }
                                    let (v, pos) = best.unwrap_or((T::default(), 0));
                                    o[i * ow + j] = v;
                                    ii[i * ow + j] = pos as i64;
                                }
                            }
                        };
                        if crate::cpu::parallel::worth(out.len()) {
                            crate::cpu::thread_pool::run(|| out.par_chunks_mut(oh * ow).zip(ix.par_chunks_mut(oh * ow)).enumerate().for_each(plane_fn));
                        } else {
                            out.chunks_mut(oh * ow).zip(ix.chunks_mut(oh * ow)).enumerate().for_each(plane_fn);
                        }
                    });
                }
                (vals, idx)
            }
        };
        let shape = [n, c, h, wd];
        let idx_saved = idx.clone();
        let vals = record(
            "MaxPool2DWithIndicesBackward0",
            vals,
            &[self],
            &[],
            false,
            move |g, _| {
                if !is_grad_enabled() {
                    if let Some(gx) = crate::cuda_forward!("max_pool2d_backward", [g], |dev| {
                        crate::cuda::ops::pool::max_pool2d_backward(&dev, g, &idx_saved, shape, &w)
                    }) {
                        return Ok(vec![Some(gx?)]);
                    }
                    let gx =
                        crate::ops::pool_backward::max_pool2d_input_grad(g, &idx_saved, shape)?;
                    return Ok(vec![Some(gx)]);
                }
                // create_graph: in differentiable ops, for higher-order gradients.
                let flat = Tensor::zeros_on(
                    &[shape[0], shape[1], shape[2] * shape[3]],
                    g.dtype(),
                    g.device(),
                )?;
                let gi = g.reshape(&[shape[0] as i64, shape[1] as i64, -1])?;
                let ii = idx_saved.reshape(&[shape[0] as i64, shape[1] as i64, -1])?;
                let out = flat.scatter_add(2, &ii, &gi)?;
                Ok(vec![Some(out.reshape(&shape.map(|d| d as i64))?)])
            },
        );
        Ok((vals, idx))
    }

    /// True when `Element` type `T` is this tensor's dtype (used by kernels' sanity checks).
    pub fn is_dtype<T: Element>(&self) -> bool {
        self.dtype() == T::DTYPE
    }
}

//! conv2d for f32/f64 through the fused kernels of `conv_kernels` (columns unfolded block
//! by block and multiplied right away, so the whole batch's columns are never stored). With
//! create_graph, the backward is written in differentiable ops instead, so higher-order
//! gradients work.

use crate::autograd::{is_grad_enabled, record};
use crate::ops::conv_kernels::{backward, check_scratch, forward, Geometry, Grads};
use crate::ops::unfold::Window;
use crate::{DType, Result, Tensor};

/// `$body` with `$T` the element type of a fused-kernel dtype (f32 or f64).
macro_rules! float_only {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            DType::F64 => {
                type $T = f64;
                $body
            }
            _ => {
                type $T = f32;
                $body
            }
        }
    };
}

impl Tensor {
    /// conv2d through the fused per-image kernels (f32 and f64; contiguous copies of the
    /// operands are taken once). Arguments were checked by `conv2d`.
    pub(crate) fn conv2d_fused(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: Window,
        groups: usize,
        ohw: [usize; 2],
    ) -> Result<Tensor> {
        let (x, w) = (
            self.contiguous_copy_if_needed()?,
            weight.contiguous_copy_if_needed()?,
        );
        let b = bias.map(|b| b.contiguous_copy_if_needed()).transpose()?;
        let geo = Geometry {
            n: x.shape()[0],
            c: x.shape()[1],
            hw: [x.shape()[2], x.shape()[3]],
            o: w.shape()[0],
            groups,
            win,
            ohw,
        };
        // Every element is written, except with no input channels (then the product is empty).
        let out_shape = [geo.n, geo.o, ohw[0], ohw[1]];
        let out = if geo.k() == 0 {
            Tensor::zeros(&out_shape, x.dtype())?
        } else {
            Tensor::uninit(&out_shape, x.dtype())?
        };
        if out.numel() > 0 {
            check_scratch(&geo, false, x.dtype().size())?;
            float_only!(x.dtype(), T => forward::<T>(
                &geo,
                x.contiguous_slice(),
                w.contiguous_slice(),
                b.as_ref().map(|b| b.contiguous_slice::<T>()),
                unsafe { out.contiguous_slice_mut() },
            ));
        }
        let mut inputs = vec![self, weight];
        if let Some(b) = bias {
            inputs.push(b);
        }
        let has_bias = bias.is_some();
        Ok(record(
            "ConvolutionBackward0",
            out,
            &inputs,
            &[self, weight],
            false,
            move |gout, s| {
                let (x, w) = (&s[0], &s[1]);
                if is_grad_enabled() {
                    return conv2d_backward_differentiable(gout, x, w, &geo, has_bias);
                }
                let gout = gout.contiguous_copy_if_needed()?;
                let xc = x.contiguous_copy_if_needed()?;
                let wc = w.contiguous_copy_if_needed()?;
                let gx = x
                    .requires_grad()
                    .then(|| Tensor::uninit(x.shape(), x.dtype()))
                    .transpose()?;
                let gw = w
                    .requires_grad()
                    .then(|| Tensor::uninit(w.shape(), w.dtype()))
                    .transpose()?;
                let gb = has_bias
                    .then(|| Tensor::uninit(&[geo.o], x.dtype()))
                    .transpose()?;
                check_scratch(&geo, true, x.dtype().size())?;
                float_only!(x.dtype(), T => backward::<T>(
                    &geo,
                    xc.contiguous_slice(),
                    wc.contiguous_slice(),
                    gout.contiguous_slice(),
                    Grads {
                        x: gx.as_ref().map(|t| unsafe { t.contiguous_slice_mut() }),
                        w: gw.as_ref().map(|t| unsafe { t.contiguous_slice_mut() }),
                        bias: gb.as_ref().map(|t| unsafe { t.contiguous_slice_mut() }),
                    },
                ));
                let mut grads = vec![gx, gw];
                if has_bias {
                    grads.push(gb);
                }
                Ok(grads)
            },
        ))
    }
}

/// The backward in differentiable ops (unfold, matmul, fold), for create_graph.
fn conv2d_backward_differentiable(
    gout: &Tensor,
    x: &Tensor,
    w: &Tensor,
    g: &Geometry,
    with_bias: bool,
) -> Result<Vec<Option<Tensor>>> {
    let (n, grp, og, k, l) = (
        g.n as i64,
        g.groups as i64,
        g.og() as i64,
        g.k() as i64,
        g.l() as i64,
    );
    let gmat = gout.reshape(&[n, grp, og, l])?;
    let wmat = w.reshape(&[grp, og, k])?;
    let gx = if x.requires_grad() {
        let gcols = wmat.transpose(-1, -2)?.matmul(&gmat)?; // [N, G, K, L]
        let gcols = gcols.reshape(&[n, grp * k, l])?;
        Some(gcols.col2im(g.hw, g.win)?)
    } else {
        None
    };
    let gw = if w.requires_grad() {
        let cols = x.im2col(g.win)?.reshape(&[n, grp, k, l])?;
        let per_image = gmat.matmul(&cols.transpose(-1, -2)?)?; // [N, G, og, K]
        Some(
            per_image
                .sum_dims(&[0], false)?
                .reshape(&w.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())?,
        )
    } else {
        None
    };
    let mut grads = vec![gx, gw];
    if with_bias {
        grads.push(Some(gout.sum_dims(&[0, 2, 3], false)?));
    }
    Ok(grads)
}

/// Whether the fused kernels take this dtype.
pub(crate) fn fused_dtype(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F64)
}

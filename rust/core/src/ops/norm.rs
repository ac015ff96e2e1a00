//! Row normalization, the kernel under layer_norm, group_norm and batch_norm: one fused pass
//! computes mean, 1/std and the normalized values; the backward is written in tensor ops.

use crate::autograd::{is_grad_enabled, record};
use crate::error::fmt_shape;
use crate::ops::reduce::to_rows;
use crate::{bail, DType, Result, Scalar, Tensor};
use rayon::prelude::*;

/// One row's input and output, and where its mean and 1/std go.
type RowJob<'a, F> = (((&'a [F], &'a mut [F]), &'a mut F), &'a mut F);

/// One row: mean and 1/std, then the normalized values.
struct NormRow<'a, F> {
    x: &'a [F],
    y: &'a mut [F],
    mean: &'a mut F,
    rstd: &'a mut F,
    eps: f64,
}

impl<F: crate::cpu::math::Float> crate::cpu::simd::Kernel for NormRow<'_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let n = F::from_f64c(self.x.len() as f64);
        let mu0 = crate::cpu::lanes::sum(self.x) / n;
        // One correction pass: sum(x - mu0) / n is the mean's rounding error, so a constant
        // row's mean is exactly its value and it normalizes to exact zeros (as PyTorch's).
        let mu = mu0 + crate::cpu::lanes::sum_dev(self.x, mu0) / n;
        let ss = crate::cpu::lanes::sum_sq_dev(self.x, mu);
        let inv = F::one() / (ss / n + F::from_f64c(self.eps)).sqrt();
        for (o, &v) in self.y.iter_mut().zip(self.x) {
            *o = (v - mu) * inv;
        }
        *self.mean = mu;
        *self.rstd = inv;
    }
}

fn normalize_rows<F: crate::cpu::math::Float>(
    x: &[F],
    y: &mut [F],
    mean: &mut [F],
    rstd: &mut [F],
    inner: usize,
    eps: f64,
) {
    let work = |(((x, y), mean), rstd): RowJob<'_, F>| {
        crate::cpu::simd::run(NormRow {
            x,
            y,
            mean,
            rstd,
            eps,
        })
    };
    if crate::cpu::parallel::worth(x.len()) {
        crate::cpu::thread_pool::run(|| {
            x.par_chunks(inner)
                .zip(y.par_chunks_mut(inner))
                .zip(mean.par_iter_mut())
                .zip(rstd.par_iter_mut())
                .for_each(work)
        });
    } else {
        x.chunks(inner)
            .zip(y.chunks_mut(inner))
            .zip(mean.iter_mut())
            .zip(rstd.iter_mut())
            .for_each(work);
    }
}

impl Tensor {
    /// Normalizes over the last `k` dims: returns (y, mean, rstd) with mean/rstd shaped like the
    /// input with those dims kept as 1. Only `y` carries a gradient.
    pub fn normalize_last(&self, k: usize, eps: f64) -> Result<(Tensor, Tensor, Tensor)> {
        if k == 0 || k > self.ndim() {
            bail!(
                Runtime,
                "layer_norm: cannot normalize over the last {k} dims of a tensor of shape {}",
                fmt_shape(self.shape())
            );
        }
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "layer_norm: expected a floating point input, got {}",
                self.dtype().name()
            );
        }
        let nd = self.ndim();
        let dims: Vec<usize> = (nd - k..nd).collect();
        let (y, mean, rstd) = match crate::cuda_forward!("layer_norm", [self], |dev| {
            crate::cuda::ops::rows::normalize_last(&dev, self, k, eps)
        }) {
            Some(out) => out?,
            None => self.normalize_last_host(&dims, eps)?,
        };
        let dims_i: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let rstd_saved = rstd.clone();
        let y = record(
            "NativeLayerNormBackward0",
            y,
            &[self],
            &[self],
            true,
            move |g, s| {
                let x = &s[0];
                // With create_graph, rebuild xhat and rstd from x so second derivatives flow.
                let (xhat, r) = if is_grad_enabled() {
                    let mu = x.mean_dims(&dims_i, true)?;
                    let d = x.sub(&mu)?;
                    let var = d.mul(&d)?.mean_dims(&dims_i, true)?;
                    let r = var
                        .add_scalar(Scalar::Float(eps))?
                        .unary(crate::ops::UnaryOp::Rsqrt)?;
                    (d.mul(&r)?, r)
                } else {
                    (s[1].clone(), rstd_saved.clone())
                };
                let gm = g.mean_dims(&dims_i, true)?;
                let gxm = g.mul(&xhat)?.mean_dims(&dims_i, true)?;
                let gx = g.sub(&gm)?.sub(&xhat.mul(&gxm)?)?.mul(&r)?;
                Ok(vec![Some(gx)])
            },
        );
        Ok((y, mean, rstd))
    }

    /// The host kernel of `normalize_last`: (y, mean, rstd) in the input's dtype.
    fn normalize_last_host(&self, dims: &[usize], eps: f64) -> Result<(Tensor, Tensor, Tensor)> {
        let cd = if self.dtype() == DType::F64 {
            DType::F64
        } else {
            DType::F32
        };
        let rows = to_rows(&self.to_dtype_raw(cd)?, dims)?;
        let y = Tensor::uninit(self.shape(), cd)?;
        let mean = Tensor::zeros(&rows.keep_shape, cd)?;
        let rstd = Tensor::zeros(&rows.keep_shape, cd)?;
        if rows.inner > 0 && rows.outer > 0 {
            macro_rules! run {
                ($F:ty) => {
                    normalize_rows::<$F>(
                        rows.data.contiguous_slice(),
                        unsafe { y.contiguous_slice_mut() },
                        unsafe { mean.contiguous_slice_mut() },
                        unsafe { rstd.contiguous_slice_mut() },
                        rows.inner,
                        eps,
                    )
                };
            }
            if cd == DType::F64 {
                run!(f64)
            } else {
                run!(f32)
            }
        }
        let dt = self.dtype();
        let (y, mean, rstd) = (
            y.to_dtype_raw(dt)?,
            mean.to_dtype_raw(dt)?,
            rstd.to_dtype_raw(dt)?,
        );
        Ok((y, mean, rstd))
    }
}

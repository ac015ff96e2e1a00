//! Fused softmax and log_softmax (one pass per row: max, sum of exponentials, write), and
//! logsumexp; their backwards are written in tensor ops.

use crate::autograd::{is_grad_enabled, record};
use crate::cpu::lanes;
use crate::cpu::math::Float;
use crate::cpu::simd::{self, Kernel};
use crate::layout::wrap_dim;
use crate::ops::reduce::to_rows;
use crate::{bail, DType, Result, Tensor};

/// One row of softmax / log_softmax: max, exponentials and their sum, then the scaling.
struct SoftmaxRow<'a, F> {
    x: &'a [F],
    y: &'a mut [F],
    log: bool,
}

impl<F: Float> Kernel for SoftmaxRow<'_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let (xr, yr) = (self.x, self.y);
        // A NaN makes the row NaN through exp and the sum, as in PyTorch. An all -inf row
        // leaves m at the lowest finite value: exp gives 0s, so 0/0 (and -inf - -inf for
        // log_softmax) make it NaN, as in PyTorch.
        let m = lanes::max(xr);
        F::exp_minus_slice(xr, m, yr);
        let s = lanes::sum(yr);
        if self.log {
            let ls = s.ln();
            for (o, &v) in yr.iter_mut().zip(xr) {
                *o = v - m - ls;
            }
        } else {
            let inv = F::one() / s;
            for o in yr.iter_mut() {
                *o = *o * inv;
            }
        }
    }
}

fn softmax_rows<F: Float>(x: &[F], y: &mut [F], inner: usize, log: bool) {
    let row = |(x, y): (&[F], &mut [F])| simd::run(SoftmaxRow { x, y, log });
    if crate::cpu::parallel::worth(x.len()) && x.len() > inner {
        // Tasks of whole rows, about 16K elements each.
        let per = (16_384 / inner).max(1) * inner;
        crate::cpu::parallel::chunks_claimed(y, per, |i, ys| {
            let xs = &x[i * per..i * per + ys.len()];
            xs.chunks(inner).zip(ys.chunks_mut(inner)).for_each(row)
        });
    } else {
        x.chunks(inner).zip(y.chunks_mut(inner)).for_each(row);
    }
}

/// Runs the fused kernel over `dim` and returns a tensor of `x`'s shape (outside autograd).
fn softmax_forward(x: &Tensor, d: usize, log: bool) -> Result<Tensor> {
    let cd = if x.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    if x.ndim() == 0 {
        // One element, still through the kernel: softmax(inf) and softmax(NaN) are NaN.
        return softmax_forward(&x.detach().reshape(&[1])?, 0, log)?.reshape(&[]);
    }
    let name = if log { "log_softmax" } else { "softmax" };
    if let Some(out) = crate::cuda_forward!(name, [x], |dev| {
        crate::cuda::ops::rows::softmax(&dev, x, d, log)
    }) {
        return out;
    }
    let rows = to_rows(&x.to_dtype_raw(cd)?, &[d])?;
    let y = Tensor::uninit(&[rows.outer, rows.inner], cd)?;
    if rows.inner > 0 && rows.outer > 0 {
        if cd == DType::F64 {
            softmax_rows::<f64>(
                rows.data.contiguous_slice(),
                unsafe { y.contiguous_slice_mut() },
                rows.inner,
                log,
            );
        } else {
            softmax_rows::<f32>(
                rows.data.contiguous_slice(),
                unsafe { y.contiguous_slice_mut() },
                rows.inner,
                log,
            );
        }
    }
    // Rows have `dim` last: restore the original order.
    let nd = x.ndim();
    let mut perm: Vec<i64> = (0..nd as i64).filter(|&k| k != d as i64).collect();
    perm.push(d as i64);
    let pshape: Vec<i64> = perm.iter().map(|&k| x.shape()[k as usize] as i64).collect();
    let mut inv = vec![0i64; nd];
    for (i, &k) in perm.iter().enumerate() {
        inv[k as usize] = i as i64;
    }
    let y = y.reshape(&pshape)?.permute(&inv)?.contiguous_raw()?;
    y.to_dtype_raw(x.dtype())
}

impl Tensor {
    /// `softmax(dim)` over a floating point tensor.
    pub fn softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_impl(dim, false)
    }

    /// `log_softmax(dim)`.
    pub fn log_softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_impl(dim, true)
    }

    fn softmax_impl(&self, dim: i64, log: bool) -> Result<Tensor> {
        let name = if log { "log_softmax" } else { "softmax" };
        let d = wrap_dim(name, dim, self.ndim())?;
        if self.dtype().is_complex() && self.numel() > 0 {
            self.refuse_complex(&format!("{name}_lastdim_kernel_impl"))?;
        }
        if !self.dtype().is_float() && self.numel() == 0 {
            // No kernel runs on an empty input: it comes back as it is (PyTorch).
            return self.detach().contiguous_copy();
        }
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "{name}: \"{name}_kernel_impl\" not implemented for '{}' (pass dtype= to compute in a float type)",
                self.dtype().name()
            );
        }
        let x = self.clone();
        let y = softmax_forward(&x, d, log)?;
        let bw = if log {
            "LogSoftmaxBackward0"
        } else {
            "SoftmaxBackward0"
        };
        Ok(record(bw, y, &[&x], &[&x], true, move |g, s| {
            let di = d as i64;
            let y = if is_grad_enabled() {
                s[0].softmax_impl(di, log)?
            } else {
                s[1].clone()
            };
            let gx = if log {
                // g - softmax(x) * sum(g)
                let p = y.exp()?;
                g.sub(&p.mul(&g.sum_dims(&[di], true)?)?)?
            } else {
                // y * (g - sum(g * y))
                y.mul(&g.sub(&g.mul(&y)?.sum_dims(&[di], true)?)?)?
            };
            Ok(vec![Some(gx)])
        }))
    }

    /// `logsumexp(dims, keepdim)`, stable: max + log(sum(exp(x - max))).
    pub fn logsumexp(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        crate::ops::reduce::reduce_dims("logsumexp", dims, self.ndim())?;
        if dims.is_empty() && !keepdim && self.ndim() > 0 && self.numel() > 0 {
            // PyTorch reduces everything for dim=() but adds back its kept-dim maxima, which
            // do not fit the squeezed result.
            bail!(
                Runtime,
                "logsumexp: output with shape [] doesn't match the broadcast shape {}",
                crate::error::fmt_shape(&vec![1; self.ndim()])
            );
        }
        if self.dtype().is_complex() {
            return self.complex_logsumexp(dims, keepdim);
        }
        if !self.dtype().is_float() {
            return self.to_dtype(DType::F32)?.logsumexp(dims, keepdim);
        }
        if self.numel() == 0 {
            // log of an empty sum is -inf; the sum gives the output's shape (and a zero gradient).
            return self
                .sum_dims(dims, keepdim)?
                .add_scalar(crate::Scalar::Float(f64::NEG_INFINITY));
        }
        let m = self.detach().amax_dims(dims, true, true)?;
        // Infinite maxima would give inf - inf; shift by zero there instead.
        let finite = m.unary(crate::ops::UnaryOp::Abs)?.binary_scalar(
            crate::ops::BinaryOp::Lt,
            crate::Scalar::Float(f64::INFINITY),
        )?;
        let m = finite.where_(&m, &Tensor::zeros(&[], m.dtype())?)?;
        let s = self.sub(&m)?.exp()?.sum_dims(dims, true)?.log()?.add(&m)?;
        if keepdim {
            Ok(s)
        } else {
            let rd = crate::ops::reduce::reduce_dims("logsumexp", dims, self.ndim())?;
            let mut out = s;
            for &d in rd.iter().rev() {
                out = out.squeeze(Some(&[d as i64]))?;
            }
            Ok(out)
        }
    }
}

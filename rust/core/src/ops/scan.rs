//! Cumulative ops along a dim: cumsum, cumprod, cummax/cummin, logcumsumexp.

use crate::autograd::record;
use crate::layout::wrap_dim;
use crate::ops::reduce::{accum_dtypes, to_rows};
use crate::{bail, DType, Result, Scalar, Tensor};

fn scan(x: &Tensor, dim: usize, prod: bool) -> Result<Tensor> {
    let (out_dt, cd) = accum_dtypes(x.dtype());
    if x.ndim() == 0 {
        return x.copy_as(out_dt);
    }
    let name = if prod { "cumprod" } else { "cumsum" };
    let gpu: Option<Result<Tensor>> = crate::cuda_forward!(name, [x], |d| {
        crate::cuda::ops::scan::scan(&d, x, dim, prod)
    });
    if let Some(out) = gpu {
        return out?.to_dtype_raw(out_dt);
    }
    // PyTorch runs float32 scans in double (its CPU accumulate type): 1e8 + 1 + 1 ... keeps
    // the ones, and 1e30 * 1e30 * 1e-30 is 1e30, not inf.
    let cd = if cd == DType::F32 && out_dt == DType::F32 {
        DType::F64
    } else {
        cd
    };
    let rows = to_rows(&x.to_dtype_raw(cd)?, &[dim])?;
    let out = rows.data.contiguous_copy()?;
    let inner = rows.inner.max(1);
    macro_rules! run {
        ($T:ty, $one:expr, $op:expr) => {{
            let o: &mut [$T] = unsafe { out.contiguous_slice_mut() };
            for row in o.chunks_mut(inner) {
                let mut acc: $T = $one;
                for v in row.iter_mut() {
                    acc = $op(acc, *v);
                    *v = acc;
                }
            }
        }};
    }
    match (cd, prod) {
        (DType::F32, false) => run!(f32, 0.0, |a: f32, b| a + b),
        (DType::F32, true) => run!(f32, 1.0, |a: f32, b| a * b),
        (DType::F64, false) => run!(f64, 0.0, |a: f64, b| a + b),
        (DType::F64, true) => run!(f64, 1.0, |a: f64, b| a * b),
        (_, false) => run!(i64, 0, |a: i64, b: i64| a.wrapping_add(b)),
        (_, true) => run!(i64, 1, |a: i64, b: i64| a.wrapping_mul(b)),
    }
    unrow(x, out, dim, out_dt)
}

/// Rows of `to_rows(x, [dim])` (dim moved last) back to `x`'s layout, cast to `dt`.
fn unrow(x: &Tensor, out: Tensor, dim: usize, dt: DType) -> Result<Tensor> {
    let nd = x.ndim() as i64;
    let mut perm: Vec<i64> = (0..nd).filter(|&d| d != dim as i64).collect();
    perm.push(dim as i64);
    let mut inv = vec![0i64; perm.len()];
    for (i, &d) in perm.iter().enumerate() {
        inv[d as usize] = i as i64;
    }
    let mut shape: Vec<i64> = perm.iter().map(|&d| x.shape()[d as usize] as i64).collect();
    if shape.is_empty() {
        shape.push(1);
    }
    out.reshape(&shape)?
        .permute(&inv)?
        .contiguous_raw()?
        .to_dtype_raw(dt)
}

/// Indices of the running maximum (or minimum) along `dim`: ties move to the later index
/// and a NaN, once seen, stays the extreme, as in PyTorch.
fn running_extreme_index(x: &Tensor, dim: usize, is_max: bool) -> Result<Tensor> {
    if x.ndim() == 0 {
        return Tensor::zeros(&[], DType::I64);
    }
    let cd = if x.dtype().is_float() {
        DType::F64
    } else {
        DType::I64
    };
    let rows = to_rows(&x.to_dtype_raw(cd)?, &[dim])?;
    let idx = Tensor::uninit(&[rows.outer * rows.inner], DType::I64)?;
    let inner = rows.inner.max(1);
    let o: &mut [i64] = unsafe { idx.contiguous_slice_mut() };
    macro_rules! run {
        ($T:ty) => {{
            let data: &[$T] = rows.data.contiguous_slice();
            for (row, orow) in data.chunks(inner).zip(o.chunks_mut(inner)) {
                let mut best = 0usize;
                for (j, (&v, oj)) in row.iter().zip(orow.iter_mut()).enumerate() {
                    let b = row[best];
                    #[allow(clippy::eq_op)]
                    let b_nan = b != b;
                    #[allow(clippy::eq_op)]
                    let v_nan = v != v;
                    let take = if b_nan {
                        v_nan
                    } else {
                        v_nan || (if is_max { v >= b } else { v <= b })
                    };
                    if take {
                        best = j;
                    }
                    *oj = best as i64;
                }
            }
        }};
    }
    if cd == DType::F64 {
        run!(f64)
    } else {
        run!(i64)
    }
    unrow(x, idx, dim, DType::I64)
}

/// d/dx_k of sum_j g_j prod_{i<=j} x_i = E_k * S_k, with E_k = prod_{i<k} x_i and
/// S_k = g_k + x_{k+1} S_{k+1}: no division, so zeros are fine. One step per position along
/// `dim` (only taken when the input has zeros), in tensor ops so double backward works.
fn cumprod_grad_with_zeros(x: &Tensor, g: &Tensor, d: usize) -> Result<Tensor> {
    let di = d as i64;
    let n = x.shape()[d];
    let mut s: Vec<Tensor> = Vec::with_capacity(n);
    let mut next = g.select(di, n as i64 - 1)?;
    s.push(next.clone());
    for k in (0..n - 1).rev() {
        next = g
            .select(di, k as i64)?
            .add(&x.select(di, k as i64 + 1)?.mul(&next)?)?;
        s.push(next.clone());
    }
    s.reverse();
    let s = Tensor::stack(&s, di)?;
    let mut ones_shape = x.shape().to_vec();
    ones_shape[d] = 1;
    let excl = Tensor::cat(
        &[
            Tensor::ones(&ones_shape, x.dtype())?,
            x.narrow(di, 0, n as i64 - 1)?,
        ],
        di,
    )?
    .cumprod(di)?;
    excl.mul(&s)
}

impl Tensor {
    pub fn cumsum(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim("cumsum", dim, self.ndim())?;
        if self.dtype().is_complex() {
            return self.complex_cumsum(d);
        }
        let out = scan(self, d, false)?;
        Ok(record(
            "CumsumBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let di = d as i64;
                Ok(vec![Some(g.flip(&[di])?.cumsum(di)?.flip(&[di])?)])
            },
        ))
    }

    /// `cumprod`. Without zeros the gradient is revcumsum(g * y) / x; with zeros it runs the
    /// division-free recurrence (see `cumprod_grad_with_zeros`).
    pub fn cumprod(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim("cumprod", dim, self.ndim())?;
        if self.dtype().is_complex() {
            return self.complex_cumprod(d);
        }
        let out = scan(self, d, true)?;
        Ok(record(
            "CumprodBackward0",
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                let (x, y) = (
                    &s[0],
                    if crate::autograd::is_grad_enabled() {
                        s[0].cumprod(d as i64)?
                    } else {
                        s[1].clone()
                    },
                );
                let di = d as i64;
                let has_zero = x.ndim() > 0
                    && x.detach()
                        .eq_scalar(Scalar::Float(0.0))?
                        .try_to_vec::<bool>()?
                        .contains(&true);
                if has_zero {
                    return Ok(vec![Some(cumprod_grad_with_zeros(x, g, d)?)]);
                }
                let acc = g.mul(&y)?.flip(&[di])?.cumsum(di)?.flip(&[di])?;
                Ok(vec![Some(acc.div(x)?)])
            },
        ))
    }
}

impl Tensor {
    /// `cummax(dim)` / `cummin(dim)`: running extreme values and their indices; the gradient
    /// flows to the index each output came from (values are a gather, so it is differentiable).
    pub fn cum_extreme(&self, dim: i64, is_max: bool) -> Result<(Tensor, Tensor)> {
        let name = if is_max { "cummax" } else { "cummin" };
        let d = wrap_dim(name, dim, self.ndim())?;
        if self.dtype().is_complex() && self.numel() == 0 {
            // No kernel runs on an empty input, so its dtype is not refused (PyTorch).
            return Ok((
                self.clone_tensor()?,
                Tensor::zeros(self.shape(), DType::I64)?,
            ));
        }
        self.refuse_complex(&format!("{name}_cpu"))?;
        let idx = if self.device() == crate::Device::Cpu {
            running_extreme_index(self, d, is_max)?
        } else {
            // The indices are found on the host; the values are a gather on the device.
            let host = self.detach().to_device(crate::Device::Cpu)?;
            running_extreme_index(&host, d, is_max)?.to_device(self.device())?
        };
        if self.ndim() == 0 {
            return Ok((self.clone_tensor()?, idx));
        }
        Ok((self.gather(d as i64, &idx)?, idx))
    }

    /// `logcumsumexp(dim)`: log of the running sum of exponentials, shifted by the running
    /// maximum so that large inputs neither overflow nor lose the small terms.
    pub fn logcumsumexp(&self, dim: i64) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return self.complex_logcumsumexp(dim);
        }
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "logcumsumexp: \"logcumsumexp_out_cpu\" not implemented for '{}'",
                self.dtype().name()
            );
        }
        let d = wrap_dim("logcumsumexp", dim, self.ndim())?;
        if self.ndim() == 0 || self.numel() == 0 {
            return self.mul_scalar(Scalar::Float(1.0));
        }
        if self.device() != crate::Device::Cpu {
            return self.through_host(|h| h.logcumsumexp(dim));
        }
        // PyTorch's running scan, in f64 (its CPU accumulator for float32 too): each step is
        // log1p(exp(min - max)) + max of the new element and the running value, from -inf. (A
        // shift by the row max instead loses every term before a huge later one.)
        let rows = to_rows(&self.detach().to_dtype_raw(DType::F64)?, &[d])?;
        let out = rows.data.contiguous_copy()?;
        let inner = rows.inner.max(1);
        let o: &mut [f64] = unsafe { out.contiguous_slice_mut() };
        for row in o.chunks_mut(inner) {
            let mut acc = f64::NEG_INFINITY;
            for v in row.iter_mut() {
                acc = log_add_exp(*v, acc);
                *v = acc;
            }
        }
        let out = unrow(self, out, d, self.dtype())?;
        let dd = d as i64;
        Ok(record(
            "LogcumsumexpBackward0",
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                // The output again, differentiable, when a higher-order graph is being built.
                let out = if crate::autograd::is_grad_enabled() {
                    s[0].logcumsumexp(dd)?
                } else {
                    s[1].clone()
                };
                Ok(vec![Some(logcumsumexp_backward(g, &s[0], &out, dd)?)])
            },
        ))
    }
}

/// PyTorch's real log(exp(x) + exp(y)): NaN in y wins, equal infinities give x.
fn log_add_exp(x: f64, y: f64) -> f64 {
    let (lo, hi) = if y.is_nan() {
        (y, y)
    } else {
        (x.min(y), x.max(y))
    };
    // f64::min/max drop a NaN x; std::min/max in PyTorch keep it (the first argument).
    let (lo, hi) = if x.is_nan() && !y.is_nan() {
        (x, x)
    } else {
        (lo, hi)
    };
    if lo != hi || lo.is_finite() {
        (lo - hi).exp().ln_1p() + hi
    } else {
        x
    }
}

/// d out_i / d x_j = exp(x_j - out_i) for i >= j, summed against g in log space with the
/// positive and negative parts of g apart (no exp(-out) overflow), as PyTorch's backward.
fn logcumsumexp_backward(g: &Tensor, x: &Tensor, out: &Tensor, dim: i64) -> Result<Tensor> {
    let lowest = if x.dtype() == DType::F64 {
        f64::MIN
    } else {
        f32::MIN as f64
    };
    let floor = Tensor::scalar(Scalar::Float(lowest), g.dtype());
    let log_abs = g.abs()?.log()?;
    let zero = Tensor::zeros(&[], g.dtype())?;
    let reverse_scan =
        |t: &Tensor| -> Result<Tensor> { t.flip(&[dim])?.logcumsumexp(dim)?.flip(&[dim]) };
    let part = |mask: Tensor| -> Result<Tensor> {
        let log_g = mask.where_(&log_abs, &floor)?;
        reverse_scan(&log_g.sub(out)?)?.add(x)?.exp()
    };
    let pos = part(g.binary(crate::ops::BinaryOp::Gt, &zero)?)?;
    let neg = part(g.binary(crate::ops::BinaryOp::Lt, &zero)?)?;
    pos.sub(&neg)
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    #[test]
    fn cummax_ties_move_on_and_nan_sticks() {
        let x = Tensor::from_vec(vec![1.0f64, 3.0, 3.0, f64::NAN, 5.0], &[5]).unwrap();
        let (v, i) = x.cum_extreme(0, true).unwrap();
        assert_eq!(i.to_vec::<i64>(), vec![0, 1, 2, 3, 3]);
        assert!(v.to_vec::<f64>()[4].is_nan());
        let y = Tensor::from_vec(vec![2i64, 1, 1, 3], &[2, 2]).unwrap();
        let (v, i) = y.cum_extreme(0, false).unwrap();
        assert_eq!(v.to_vec::<i64>(), vec![2, 1, 1, 1]);
        assert_eq!(i.to_vec::<i64>(), vec![0, 0, 1, 0]);
    }

    #[test]
    fn logcumsumexp_keeps_small_terms_and_handles_minus_inf() {
        let x = Tensor::from_vec(vec![-1000.0f64, 0.0, 1000.0], &[3]).unwrap();
        let y = x.logcumsumexp(0).unwrap().to_vec::<f64>();
        assert_eq!(y[0], -1000.0);
        assert!(y[1].abs() < 1e-12 && (y[2] - 1000.0).abs() < 1e-12);
        let m = Tensor::from_vec(vec![f64::NEG_INFINITY; 2], &[2]).unwrap();
        assert_eq!(
            m.logcumsumexp(0).unwrap().to_vec::<f64>(),
            vec![f64::NEG_INFINITY; 2]
        );
    }

    #[test]
    fn cumprod_gradient_through_zeros() {
        let x = Tensor::from_vec(vec![2.0f64, 0.0, 3.0, 0.0, 5.0], &[5]).unwrap();
        x.set_requires_grad(true).unwrap();
        let y = x.cumprod(0).unwrap().sum_dims(&[], false).unwrap();
        let one = Tensor::ones(&[], crate::DType::F64).unwrap();
        let g = crate::autograd::grad(&[y], &[one], std::slice::from_ref(&x), false, false, false)
            .unwrap();
        let g = g[0].as_ref().unwrap().to_vec::<f64>();
        assert_eq!(g, vec![1.0, 8.0, 0.0, 0.0, 0.0]);
    }
}

//! log(exp(a) + exp(b)) of complex numbers (logaddexp, and logcumsumexp as its scan), as
//! PyTorch computes it: the operand of larger real part factored out, log1p of the rest;
//! a NaN anywhere gives NaN, two equal infinite real parts are special.

use crate::autograd::record;
use crate::layout::wrap_dim;
use crate::ops::complex_copy::{complex_slice, complex_slice_mut, host_only};
use crate::{DType, Result, Tensor};
use rustfft::num_complex::Complex;

type C = Complex<f64>;

fn is_nan(z: C) -> bool {
    z.re.is_nan() || z.im.is_nan()
}

pub(crate) fn log_add_exp(x: C, y: C) -> C {
    let (lo, hi) = if is_nan(y) {
        (y, y)
    } else if is_nan(x) {
        (x, x)
    } else if x.re < y.re {
        (x, y)
    } else {
        (y, x)
    };
    if is_nan(lo) {
        return C::new(f64::NAN, f64::NAN);
    }
    if !lo.re.is_finite() && lo.re == hi.re {
        if lo.re < 0.0 {
            return lo;
        }
        return (lo.exp() + hi.exp()).ln();
    }
    crate::ops::complex_math::log1p((lo - hi).exp()) + hi
}

fn wide<F: crate::ops::complex_math::Part>(z: Complex<F>) -> C {
    C::new(z.re.to_f64(), z.im.to_f64())
}

fn narrow<F: crate::ops::complex_math::Part>(z: C) -> Complex<F> {
    Complex::new(F::from_f64(z.re), F::from_f64(z.im))
}

/// `log_add_exp` on a complex dtype's parts, through f64.
pub(crate) fn log_add_exp_as<F: crate::ops::complex_math::Part>(
    a: Complex<F>,
    b: Complex<F>,
) -> Complex<F> {
    narrow(log_add_exp(wide(a), wide(b)))
}

/// The running logaddexp of each row of length `n` (rows contiguous). As PyTorch's scan: the
/// running value is kept in f64 and starts at -inf + 0i, so the first element goes through
/// log_add_exp too (a NaN part makes both parts NaN; -inf keeps no phase).
fn scan_rows<F: crate::ops::complex_math::Part>(x: &[Complex<F>], o: &mut [Complex<F>], n: usize) {
    for (xr, or) in x.chunks(n).zip(o.chunks_mut(n)) {
        let mut acc = C::new(f64::NEG_INFINITY, 0.0);
        for (xk, ok) in xr.iter().zip(or.iter_mut()) {
            // The new element first, as PyTorch's scan calls it: on equal real parts the
            // later term is factored out, which decides the branch of the imaginary part.
            acc = log_add_exp(wide(*xk), acc);
            *ok = narrow(acc);
        }
    }
}

impl Tensor {
    /// `logcumsumexp` of a complex tensor along `dim`. The gradient of x_j is
    /// conj(exp(x_j)) times the sum over i >= j of g_i conj(exp(-out_i)).
    pub(crate) fn complex_logcumsumexp(&self, dim: i64) -> Result<Tensor> {
        host_only("logcumsumexp", self)?;
        let d = wrap_dim("logcumsumexp", dim, self.ndim())?;
        if self.ndim() == 0 || self.numel() == 0 {
            return self.clone_tensor();
        }
        let last = self.ndim() as i64 - 1;
        let rows = self.detach().transpose(d as i64, last)?.contiguous_copy()?;
        let n = rows.shape()[last as usize];
        let out = Tensor::uninit(rows.shape(), self.dtype())?;
        match self.dtype() {
            DType::C64 => {
                scan_rows::<f32>(complex_slice(&rows), unsafe { complex_slice_mut(&out) }, n)
            }
            _ => scan_rows::<f64>(complex_slice(&rows), unsafe { complex_slice_mut(&out) }, n),
        }
        let out = out.transpose(d as i64, last)?.contiguous_copy()?;
        let dd = d as i64;
        Ok(record(
            "LogcumsumexpBackward0",
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                let (x, y) = (&s[0], &s[1]);
                let w = g.mul(&y.neg()?.exp()?.conj()?)?;
                let tail = w.flip(&[dd])?.cumsum(dd)?.flip(&[dd])?;
                Ok(vec![Some(x.exp()?.conj()?.mul(&tail)?)])
            },
        ))
    }
}

/// The gradients of logaddexp: exp(a - out) and exp(b - out), conjugated onto g.
pub(crate) fn log_add_exp_grads(
    g: &Tensor,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<(Tensor, Tensor)> {
    let da = a.sub(out)?.exp()?;
    let db = b.sub(out)?.exp()?;
    Ok((g.mul(&da.conj()?)?, g.mul(&db.conj()?)?))
}

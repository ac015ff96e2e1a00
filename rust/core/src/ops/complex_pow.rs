//! Complex powers as PyTorch's two kernels compute them. A tensor exponent is C's cpow: where
//! the base is zero or not finite, or the exponent is not finite, exp(b * log a) with C99
//! Annex G's rules for infinities in the product and in exp (0 ** 0 and inf ** 0 are NaN).
//! A Python-number exponent picks a kernel by value first: 0 fills ones, 1 copies, 2 and 3
//! multiply, -2 divides, +-0.5 and -1 are sqrt, rsqrt and reciprocal; others are cpow.

use crate::autograd::record;
use crate::cpu::parallel::map;
use crate::ops::complex_copy::{complex_slice, complex_slice_mut, host_only};
use crate::ops::complex_math::{div, pow as tensor_pow, sqrt, Part};
use crate::{DType, Result, Scalar, Tensor};
use rustfft::num_complex::Complex;
use rustfft::num_traits::{Float, One};

/// Whether `a ** b` takes the special-value path (any other pair is finite math).
pub(crate) fn is_special<F: Float>(a: Complex<F>, b: Complex<F>) -> bool {
    let finite = |z: Complex<F>| z.re.is_finite() && z.im.is_finite();
    !finite(a) || !finite(b) || (a.re.is_zero() && a.im.is_zero())
}

/// cpow(a, b) for the special pairs: log by hypot and atan2 (their IEEE rules give C99's
/// clog values), then the Annex G product and C99's exp.
pub(crate) fn pow<F: Float>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let log_a = Complex::new(a.re.hypot(a.im).ln(), a.im.atan2(a.re));
    exp(mul(b, log_a))
}

/// Annex G's complex product: where the plain formula gives NaN in both parts but an
/// operand or a partial product is infinite, the result is an infinity in a direction.
fn mul<F: Float>(x: Complex<F>, y: Complex<F>) -> Complex<F> {
    let (mut a, mut b, mut c, mut d) = (x.re, x.im, y.re, y.im);
    let (ac, bd, ad, bc) = (a * c, b * d, a * d, b * c);
    let (re, im) = (ac - bd, ad + bc);
    if !(re.is_nan() && im.is_nan()) {
        return Complex::new(re, im);
    }
    let unit = |v: F| if v.is_infinite() { F::one() } else { F::zero() }.copysign(v);
    let zero_nan = |v: F| if v.is_nan() { F::zero().copysign(v) } else { v };
    let mut recalc = false;
    if a.is_infinite() || b.is_infinite() {
        (a, b, c, d) = (unit(a), unit(b), zero_nan(c), zero_nan(d));
        recalc = true;
    }
    if c.is_infinite() || d.is_infinite() {
        (c, d, a, b) = (unit(c), unit(d), zero_nan(a), zero_nan(b));
        recalc = true;
    }
    if !recalc && [ac, bd, ad, bc].iter().any(|p| p.is_infinite()) {
        (a, b, c, d) = (zero_nan(a), zero_nan(b), zero_nan(c), zero_nan(d));
        recalc = true;
    }
    if !recalc {
        return Complex::new(re, im);
    }
    let inf = F::infinity();
    Complex::new(inf * (a * c - b * d), inf * (a * d + b * c))
}

/// C99's cexp, with glibc's choices where the standard leaves signs open.
fn exp<F: Float>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    let nan = F::nan();
    if x.is_finite() {
        if y.is_finite() {
            let m = x.exp();
            return if y.is_zero() {
                Complex::new(m, y)
            } else {
                Complex::new(m * y.cos(), m * y.sin())
            };
        }
        return Complex::new(nan, nan);
    }
    if x.is_infinite() {
        let value = if x.is_sign_negative() {
            F::zero()
        } else {
            F::infinity()
        };
        if y.is_finite() {
            if y.is_zero() {
                return Complex::new(value, y);
            }
            return Complex::new(value.copysign(y.cos()), value.copysign(y.sin()));
        }
        if x.is_sign_positive() {
            return Complex::new(F::infinity(), F::nan()); // y is inf or NaN: y - y
        }
        return Complex::new(F::zero(), F::zero().copysign(y));
    }
    Complex::new(nan, if y.is_zero() { y } else { nan })
}

/// `z ** e` for a Python-number exponent `e`, by PyTorch's choice of kernel.
fn scalar_exponent<F: Part>(z: Complex<F>, e: Complex<F>) -> Complex<F> {
    let real = |v: f64| e.im.is_zero() && e.re == F::from_f64(v);
    let one = Complex::<F>::one();
    if real(0.0) {
        one
    } else if real(1.0) {
        z
    } else if real(0.5) {
        sqrt(z)
    } else if real(-0.5) {
        div(one, sqrt(z))
    } else if real(-1.0) {
        div(one, z)
    } else if real(2.0) {
        z * z
    } else if real(3.0) {
        z * z * z
    } else if real(-2.0) {
        div(one, z * z)
    } else {
        tensor_pow(z, e)
    }
}

impl Tensor {
    /// `self ** e` with a Python-number exponent and a complex result dtype `dt`. The
    /// gradient is g * conj(e z^(e-1)) (0 for e == 0); a real input keeps its real part.
    pub(crate) fn complex_pow_scalar(&self, e: Scalar, dt: DType) -> Result<Tensor> {
        host_only("pow", self)?;
        let x = self.copy_as(dt)?.contiguous_copy_if_needed()?;
        let out = Tensor::uninit(self.shape(), dt)?;
        let (re, im) = e.to_complex();
        match dt {
            DType::C64 => {
                let e = Complex::new(re as f32, im as f32);
                map(
                    complex_slice::<f32>(&x),
                    unsafe { complex_slice_mut(&out) },
                    |z| scalar_exponent(z, e),
                )
            }
            _ => map(
                complex_slice::<f64>(&x),
                unsafe { complex_slice_mut(&out) },
                |z| scalar_exponent(z, Complex::new(re, im)),
            ),
        }
        let in_dt = self.dtype();
        Ok(record(
            "PowBackward0",
            out,
            &[self],
            &[self],
            false,
            move |g, s| {
                let a = &s[0];
                if re == 0.0 && im == 0.0 {
                    return Ok(vec![Some(g.zeros_like()?.to_dtype(in_dt)?)]);
                }
                let da = a
                    .pow_scalar(Scalar::Complex(re - 1.0, im))?
                    .mul_scalar(Scalar::Complex(re, im))?;
                Ok(vec![Some(g.mul(&da.conj()?)?.to_dtype(in_dt)?)])
            },
        ))
    }
}

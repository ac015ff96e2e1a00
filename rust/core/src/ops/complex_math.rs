//! Elementwise arithmetic on complex tensors: forward kernels over (re, im) pairs and
//! PyTorch's gradient rules. For a holomorphic f the gradient of the input is
//! `grad * conj(f'(z))`; real inputs of a complex op get the real part of theirs.

use crate::autograd::{is_grad_enabled, record};
use crate::cpu::parallel::{map, zip, Src};
use crate::dtype::{result_type, Operand};
use crate::error::InOp;
use crate::layout::{broadcast_shapes, Layout};
use crate::ops::complex_copy::{complex_slice, complex_slice_mut, host_only};
use crate::ops::{complex_arc, complex_logexp, complex_pow};
use crate::ops::{BinaryOp, UnaryOp};
use crate::{DType, Element, Error, Result, Scalar, Tensor};
use rustfft::num_complex::Complex;
use rustfft::num_traits::{Float, One, Zero};

/// The part type of a complex dtype: f32 or f64.
pub(crate) trait Part: Float + Element + Send + Sync {}
impl Part for f32 {}
impl Part for f64 {}

fn operand(t: &Tensor) -> Operand {
    if t.ndim() == 0 {
        Operand::ZeroDim(t.dtype())
    } else {
        Operand::Dim(t.dtype())
    }
}

/// `t` cast to complex `dt` and made contiguous over `shape`; a one-element tensor stays as
/// it is (the kernels broadcast it).
fn dense(t: &Tensor, dt: DType, shape: &[usize]) -> Result<Tensor> {
    let t = if t.dtype() == dt {
        t.detach()
    } else {
        t.copy_as(dt)?
    };
    if t.numel() == 1 || (t.shape() == shape && t.is_contiguous()) {
        return Ok(t);
    }
    let strides = t.layout().broadcast_strides("broadcast", shape)?;
    t.alias(Layout {
        shape: shape.to_vec(),
        strides,
        offset: t.offset(),
    })
    .contiguous_copy()
}

fn src_of<F: Part>(t: &Tensor, n: usize) -> Src<'_, Complex<F>> {
    if t.numel() == 1 && n != 1 {
        Src::Scalar(t.complex_item_as::<F>())
    } else {
        Src::Slice(complex_slice::<F>(t))
    }
}

impl Tensor {
    /// The one value of a one-element complex tensor as `Complex<F>`.
    fn complex_item_as<F: Part>(&self) -> Complex<F> {
        let (re, im) = self.complex_item().to_complex();
        Complex::new(F::from_f64(re), F::from_f64(im))
    }
}

/// Division by Smith's method: scaled so that |b|^2 cannot overflow or underflow.
#[inline(always)]
pub(crate) fn div<F: Float>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let (c, d) = (b.re, b.im);
    if c.abs() >= d.abs() {
        if c.is_zero() && d.is_zero() {
            // IEEE division by zero, part by part (inf or nan), as PyTorch gives.
            return Complex::new(a.re / c.abs(), a.im / d.abs());
        }
        // Smith's scaled steps, times the reciprocal of the denominator as PyTorch's kernel
        // does (dividing by it rounds differently: (3z) / 3 must give z back bit for bit).
        let r = d / c;
        let scale = F::one() / (c + d * r);
        Complex::new((a.re + a.im * r) * scale, (a.im - a.re * r) * scale)
    } else {
        let r = c / d;
        let scale = F::one() / (d + c * r);
        Complex::new((a.re * r + a.im) * scale, (a.im * r - a.re) * scale)
    }
}

/// tanh(z); beyond |Re z| = 22 (where tanh(x) rounds to 1 in double) it is
/// (sign(x), +-0) as C99's ctanh, instead of inf / inf.
#[inline(always)]
fn tanh<F: Part>(z: Complex<F>) -> Complex<F> {
    let limit = F::from_f64(22.0);
    if z.re.abs() > limit && z.im.is_finite() {
        let two = F::one() + F::one();
        return Complex::new(
            F::one().copysign(z.re),
            F::zero().copysign((two * z.im).sin()),
        );
    }
    // (tanh x + i tan y) / (1 + i tanh x tan y) in cosh/sinh terms: no 1 + cos 2y that
    // cancels near the poles (y = pi/2), where tan y carries the digits.
    let one = F::one();
    let t = z.im.tan();
    let beta = one + t * t;
    let s = z.re.sinh();
    let rho = (one + s * s).sqrt();
    let den = one + beta * s * s;
    Complex::new(beta * rho * s / den, t / den)
}

/// log(1 + z), accurate near z = 0 (log(1 + z) itself loses the small real part).
#[inline(always)]
pub(crate) fn log1p<F: Float>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    let one = F::one();
    let half = one / (one + one);
    let theta = y.atan2(x + one);
    if x.hypot(y) < half {
        // |1 + z|^2 - 1 = x (2 + x) + y^2, without cancellation.
        let r = x * (one + one + x) + y * y;
        if r.is_zero() {
            return Complex::new(x, theta);
        }
        return Complex::new(half * r.ln_1p(), theta);
    }
    Complex::new((x + one).hypot(y).ln(), theta)
}

/// The principal square root, with C99's values at infinities, nans and signed zeros.
#[inline(always)]
pub(crate) fn sqrt<F: Float>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    if x.is_zero() && y.is_zero() {
        return Complex::new(F::zero(), y);
    }
    if y.is_infinite() {
        return Complex::new(F::infinity(), y);
    }
    if x.is_nan() {
        return Complex::new(x, x);
    }
    if x.is_infinite() {
        let zero_im = if y.is_nan() { y } else { F::zero().copysign(y) };
        return if x > F::zero() {
            Complex::new(x, zero_im)
        } else {
            Complex::new(zero_im.abs(), F::infinity().copysign(y))
        };
    }
    let two = F::one() + F::one();
    let four = two + two;
    let t = if x.abs() > F::max_value() / four || y.abs() > F::max_value() / four {
        // |x| + |z| would overflow: sqrt(w) = 2 sqrt(w / 4), both scalings exact.
        let (xs, ys) = (x / four, y / four);
        ((xs.abs() + xs.hypot(ys)) / two).sqrt() * two
    } else {
        ((x.abs() + x.hypot(y)) / two).sqrt()
    };
    if x >= F::zero() {
        Complex::new(t, y / (two * t))
    } else {
        Complex::new(y.abs() / (two * t), t.copysign(y))
    }
}

/// `a ** b` as exp(b ln a) (C's cpow rules for a zero or non-finite operand). Small integer
/// exponents multiply instead (exact for z ** 2, as PyTorch's squaring is).
#[inline(always)]
pub(crate) fn pow<F: Float>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    if complex_pow::is_special(a, b) {
        return complex_pow::pow(a, b);
    }
    if b.is_zero() {
        return Complex::one();
    }
    if b.im.is_zero() && b.re.abs() <= F::from(64.0).unwrap_or(F::one()) && b.re.fract().is_zero() {
        let mut n = b.re.abs().to_usize().unwrap_or(0);
        // The first factor is taken as it is: 1 * (inf + yi) would make y NaN (0 * inf).
        let (mut base, mut acc) = (a, None::<Complex<F>>);
        while n > 0 {
            if n & 1 == 1 {
                acc = Some(acc.map_or(base, |x| x * base));
            }
            base = base * base;
            n >>= 1;
        }
        let acc = acc.unwrap_or_else(Complex::one);
        return if b.re < F::zero() {
            div(Complex::one(), acc)
        } else {
            acc
        };
    }
    (b * a.ln()).exp()
}

fn binary_kernel<F: Part>(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) {
    let n = out.numel();
    let (x, y) = (src_of::<F>(a, n), src_of::<F>(b, n));
    if out.dtype() == DType::Bool {
        let o = unsafe { out.contiguous_slice_mut::<bool>() };
        match op {
            BinaryOp::Eq => zip(x, y, o, |p, q| p == q),
            _ => zip(x, y, o, |p, q| p != q),
        }
        return;
    }
    let o = unsafe { complex_slice_mut::<F>(out) };
    match op {
        // PyTorch adds as `p + alpha * q` with alpha = 1 + 0i: a NaN or infinite part of q
        // spreads to both parts, as in subtraction.
        BinaryOp::Add => zip(x, y, o, |p, q| {
            let (one, z) = (F::one(), F::zero());
            p + Complex::new(one * q.re - z * q.im, one * q.im + z * q.re)
        }),
        // PyTorch subtracts as `p + (-1) * q` with a complex product: a NaN or infinite part
        // of q spreads to both parts (0 * inf is NaN).
        BinaryOp::Sub => zip(x, y, o, |p, q| {
            let (m1, z) = (-F::one(), F::zero());
            p + Complex::new(m1 * q.re - z * q.im, m1 * q.im + z * q.re)
        }),
        BinaryOp::Mul => zip(x, y, o, |p, q| p * q),
        BinaryOp::Div => zip(x, y, o, div),
        BinaryOp::LogAddExp => zip(x, y, o, complex_logexp::log_add_exp_as),
        _ => zip(x, y, o, pow),
    }
}

/// PyTorch's error for a binary op that complex numbers do not have.
fn binary_unsupported(op: BinaryOp, dt: DType) -> Error {
    let kernel = match op {
        BinaryOp::Maximum | BinaryOp::Minimum => {
            return Error::type_error(format!(
                "{} not implemented for complex tensors.",
                op.name()
            ))
        }
        BinaryOp::FloorDiv => "div_floor_cpu".to_string(),
        BinaryOp::TruncDiv => "div_trunc_cpu".to_string(),
        BinaryOp::Shl => "lshift_cpu".to_string(),
        BinaryOp::Shr => "rshift_cpu".to_string(),
        _ => format!("{}_cpu", op.name()),
    };
    Error::complex_unsupported(&kernel, dt)
}

/// Forward of a binary op with a complex operand, outside autograd.
pub fn binary_forward(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use BinaryOp::*;
    let common = result_type(&[operand(a), operand(b)], DType::F32);
    if matches!(op, LogicalAnd | LogicalOr | LogicalXor) {
        // Logical ops see only whether each value is nonzero.
        return crate::ops::binary::binary_forward(
            op,
            &a.copy_as(DType::Bool)?,
            &b.copy_as(DType::Bool)?,
        );
    }
    if !matches!(op, Add | Sub | Mul | Div | Pow | LogAddExp | Eq | Ne) {
        return Err(binary_unsupported(op, common));
    }
    host_only(op.name(), a)?;
    host_only(op.name(), b)?;
    let shape = broadcast_shapes(op.name(), a.shape(), b.shape())?;
    let (da, db) = (dense(a, common, &shape)?, dense(b, common, &shape)?);
    let out_dt = if matches!(op, Eq | Ne) {
        DType::Bool
    } else {
        common
    };
    let out = Tensor::uninit(&shape, out_dt).op(op.name())?;
    match common {
        DType::C64 => binary_kernel::<f32>(op, &da, &db, &out),
        _ => binary_kernel::<f64>(op, &da, &db, &out),
    }
    Ok(out)
}

/// A binary op with a complex operand, with autograd.
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use BinaryOp::*;
    let out = binary_forward(op, a, b)?;
    if !out.dtype().is_complex() || !is_grad_enabled() || !(a.requires_grad() || b.requires_grad())
    {
        return Ok(out);
    }
    let (sa, sb, ta, tb) = (a.shape().to_vec(), b.shape().to_vec(), a.dtype(), b.dtype());
    // Each gradient is summed to its input's shape; a real input keeps the real part.
    let fin = move |g: Tensor, shape: &[usize], dt: DType| -> Result<Option<Tensor>> {
        Ok(Some(g.sum_to(shape)?.to_dtype(dt)?))
    };
    let name = match op {
        Add => "AddBackward0",
        Sub => "SubBackward0",
        Mul => "MulBackward0",
        Div => "DivBackward0",
        LogAddExp => "LogaddexpBackward0",
        _ => "PowBackward1",
    };
    Ok(record(name, out, &[a, b], &[a, b], true, move |g, s| {
        let (a, b, y) = (&s[0], &s[1], &s[2]);
        let (ga, gb) = match op {
            Add => (g.clone(), g.clone()),
            Sub => (g.clone(), g.neg()?),
            Mul => (g.mul(&b.conj()?)?, g.mul(&a.conj()?)?),
            Div => {
                let ga = g.div(&b.conj()?)?;
                (ga.clone(), ga.mul(&y.conj()?)?.neg()?)
            }
            LogAddExp => complex_logexp::log_add_exp_grads(g, a, b, y)?,
            _ => {
                // d/da a^b = b a^(b-1), 0 where b == 0; d/db a^b = a^b ln a, 0 where a == 0.
                let one = Scalar::Float(1.0);
                let da = b.mul(&a.pow(&b.sub_scalar(one)?)?)?;
                let da = zero_where(&b.eq_scalar(Scalar::Float(0.0))?, &da)?;
                let y = if is_grad_enabled() {
                    a.pow(b)?
                } else {
                    y.clone()
                };
                let db = zero_where(&a.eq_scalar(Scalar::Float(0.0))?, &y.mul(&a.log()?)?)?;
                (g.mul(&da.conj()?)?, g.mul(&db.conj()?)?)
            }
        };
        Ok(vec![fin(ga, &sa, ta)?, fin(gb, &sb, tb)?])
    }))
}

/// `x` with zeros where `mask` holds.
fn zero_where(mask: &Tensor, x: &Tensor) -> Result<Tensor> {
    mask.where_(&Tensor::zeros(&[], x.dtype())?, x)
}

/// `f` evaluated in f64 (the inverse trigonometric kernels are written once, in f64).
#[inline(always)]
fn in_f64<F: Part>(z: Complex<F>, f: fn(Complex<f64>) -> Complex<f64>) -> Complex<F> {
    let w = f(Complex::new(z.re.to_f64(), z.im.to_f64()));
    Complex::new(F::from_f64(w.re), F::from_f64(w.im))
}

/// The complex kernel of a unary op, or None when complex numbers do not have it.
fn unary_kernel<F: Part>(op: UnaryOp, x: &[Complex<F>], o: &mut [Complex<F>]) -> Option<()> {
    use UnaryOp::*;
    let ln2 = F::from_f64(std::f64::consts::LN_2);
    let ln10 = F::from_f64(std::f64::consts::LN_10);
    let one = Complex::<F>::one();
    match op {
        Neg => map(x, o, |z| -z),
        Exp => map(x, o, |z| z.exp()),
        Exp2 => map(x, o, |z| (z * ln2).exp()),
        Expm1 => map(x, o, |z| z.exp() - one),
        Log => map(x, o, |z| z.ln()),
        Log2 => map(x, o, |z| z.ln() / ln2),
        Log10 => map(x, o, |z| z.ln() / ln10),
        Log1p => map(x, o, log1p),
        Sqrt => map(x, o, sqrt),
        Rsqrt => map(x, o, |z| div(one, sqrt(z))),
        Reciprocal => map(x, o, |z| div(one, z)),
        Sin => map(x, o, |z| z.sin()),
        Cos => map(x, o, |z| z.cos()),
        Tan => map(x, o, |z| z.tan()),
        Sinh => map(x, o, |z| z.sinh()),
        Cosh => map(x, o, |z| z.cosh()),
        Tanh => map(x, o, |z| in_f64(z, tanh)),
        Sigmoid => map(x, o, |z| div(one, one + (-z).exp())),
        Silu => map(x, o, |z| div(z, one + (-z).exp())),
        Asin => map(x, o, |z| in_f64(z, complex_arc::asin)),
        Acos => map(x, o, |z| in_f64(z, complex_arc::acos)),
        Atan => map(x, o, |z| in_f64(z, complex_arc::atan)),
        _ => return None,
    }
    Some(())
}

/// PyTorch's error for a unary op that complex numbers do not have.
fn unary_unsupported(op: UnaryOp, dt: DType) -> Error {
    use UnaryOp::*;
    let name = op.name();
    match op {
        Sign => Error::NotImplemented(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use \
             torch.sgn instead."
                .into(),
        ),
        Relu => Error::NotImplemented("clamp is not supported for complex types".into()),
        Floor | Ceil | Trunc => {
            Error::NotImplemented(format!("{name} is not supported for complex inputs"))
        }
        Round | Erf | Erfinv => Error::complex_unsupported(&format!("{name}_vml_cpu"), dt),
        Gelu | GeluTanh => Error::complex_unsupported("GeluKernelImpl", dt),
        _ => Error::complex_unsupported(&format!("{name}_cpu"), dt),
    }
}

/// Forward of a unary op on a complex tensor, outside autograd.
pub fn unary_forward(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    host_only(op.name(), x)?;
    if op == UnaryOp::Abs {
        return abs_forward(x);
    }
    let xc = x.contiguous_copy_if_needed()?;
    let out = Tensor::uninit(x.shape(), x.dtype()).op(op.name())?;
    let done = match x.dtype() {
        DType::C64 => {
            unary_kernel::<f32>(op, complex_slice(&xc), unsafe { complex_slice_mut(&out) })
        }
        _ => unary_kernel::<f64>(op, complex_slice(&xc), unsafe { complex_slice_mut(&out) }),
    };
    done.ok_or_else(|| unary_unsupported(op, x.dtype()))?;
    Ok(out)
}

/// `|z|`, computed without overflow.
fn abs_forward(x: &Tensor) -> Result<Tensor> {
    let xc = x.contiguous_copy_if_needed()?;
    let out = Tensor::uninit(x.shape(), x.dtype().to_real()).op("abs")?;
    match x.dtype() {
        DType::C64 => map(
            complex_slice::<f32>(&xc),
            unsafe { out.contiguous_slice_mut() },
            |z| z.re.hypot(z.im),
        ),
        _ => map(
            complex_slice::<f64>(&xc),
            unsafe { out.contiguous_slice_mut() },
            |z| z.re.hypot(z.im),
        ),
    }
    Ok(out)
}

/// A unary op on a complex tensor, with autograd.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    use UnaryOp::*;
    let out = unary_forward(op, x)?;
    Ok(record(
        op.backward_name(),
        out,
        &[x],
        &[x],
        true,
        move |g, s| {
            let x = &s[0];
            // The output, recomputed when a higher-order graph is being built.
            let y = || -> Result<Tensor> {
                if is_grad_enabled() {
                    x.unary(op)
                } else {
                    Ok(s[1].clone())
                }
            };
            let f = |v: f64| Scalar::Float(v);
            // f'(z) for the holomorphic ops; the gradient is g * conj(f'(z)).
            let d = match op {
                Neg => return Ok(vec![Some(g.neg()?)]),
                Abs => return Ok(vec![Some(g.mul(&x.sgn()?)?)]),
                Exp => y()?,
                Exp2 => y()?.mul_scalar(f(std::f64::consts::LN_2))?,
                Expm1 => y()?.add_scalar(f(1.0))?,
                Log => x.reciprocal()?,
                Log2 => x.mul_scalar(f(std::f64::consts::LN_2))?.reciprocal()?,
                Log10 => x.mul_scalar(f(std::f64::consts::LN_10))?.reciprocal()?,
                Log1p => x.add_scalar(f(1.0))?.reciprocal()?,
                Sqrt => y()?.mul_scalar(f(2.0))?.reciprocal()?,
                Rsqrt => y()?.pow_scalar(f(3.0))?.mul_scalar(f(-0.5))?,
                Reciprocal => y()?.mul(&y()?)?.neg()?,
                Sin => x.cos()?,
                Cos => x.sin()?.neg()?,
                Tan => y()?.mul(&y()?)?.add_scalar(f(1.0))?,
                Sinh => x.unary(Cosh)?,
                Cosh => x.unary(Sinh)?,
                Tanh => y()?.mul(&y()?)?.neg()?.add_scalar(f(1.0))?,
                Sigmoid => {
                    let y = y()?;
                    y.mul(&y.neg()?.add_scalar(f(1.0))?)?
                }
                Silu => {
                    // s (1 + z (1 - s)) with s = sigmoid(z).
                    let s = x.unary(Sigmoid)?;
                    let one_minus = s.neg()?.add_scalar(f(1.0))?;
                    s.mul(&x.mul(&one_minus)?.add_scalar(f(1.0))?)?
                }
                // 1 / sqrt(1 - z^2) for asin (negated for acos); 1 / (1 + z^2) for atan.
                Asin | Acos => {
                    let r = x.mul(x)?.neg()?.add_scalar(f(1.0))?.unary(Rsqrt)?;
                    if op == Acos {
                        r.neg()?
                    } else {
                        r
                    }
                }
                Atan => x.mul(x)?.add_scalar(f(1.0))?.reciprocal()?,
                _ => return Err(unary_unsupported(op, x.dtype())),
            };
            Ok(vec![Some(g.mul(&d.conj()?)?)])
        },
    ))
}

impl Tensor {
    /// `conj()`: the complex conjugate, materialized (`is_conj()` is always False); a real
    /// tensor is its own conjugate.
    pub fn conj(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        host_only("conj", self)?;
        let out = self.contiguous_copy()?;
        // Negate the imaginary parts of the fresh copy in place.
        let im = out.part_alias(1);
        im.write_from(&im.neg()?)?;
        Ok(record(
            "ConjPhysicalBackward0",
            out,
            &[self],
            &[],
            false,
            |g, _| Ok(vec![Some(g.conj()?)]),
        ))
    }

    /// `angle()`: the argument atan2(im, re) of complex values; 0 or pi for reals (nan stays).
    pub fn angle(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            let pi = Scalar::Float(std::f64::consts::PI);
            let x = if self.dtype().is_float() {
                self.clone()
            } else {
                self.to_dtype(DType::F32)?
            };
            let neg = x.binary_scalar(BinaryOp::Lt, Scalar::Float(0.0))?;
            let out = neg.to_dtype(x.dtype())?.mul_scalar(pi)?;
            // nan stays nan; the gradient of a real angle is zero.
            let out = x.isnan()?.where_(&x.detach(), &out)?;
            return Ok(out.detach());
        }
        let (re, im) = (self.part_alias(0), self.part_alias(1));
        let out = im.binary(BinaryOp::Atan2, &re)?;
        Ok(record(
            "AngleBackward0",
            out,
            &[self],
            &[self],
            false,
            |g, s| {
                // d angle = Im(conj(z) dz) / |z|^2: the gradient is g * i z / |z|^2 (0 at z = 0).
                let z = &s[0];
                let r2 = z.abs()?.pow_scalar(Scalar::Float(2.0))?;
                let iz = z.mul_scalar(Scalar::Complex(0.0, 1.0))?;
                let gz = iz.div(&r2)?.mul(g)?;
                Ok(vec![Some(zero_where(
                    &z.eq_scalar(Scalar::Float(0.0))?,
                    &gz,
                )?)])
            },
        ))
    }

    /// `sgn()`: z / |z| (0 at 0) for complex tensors, `sign()` for real ones.
    pub fn sgn(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return self.sign();
        }
        let z = self.detach();
        let r = z.abs()?;
        let zero = z.eq_scalar(Scalar::Float(0.0))?;
        let safe = zero.where_(&Tensor::ones(&[], r.dtype())?, &r)?;
        let out = zero_where(&zero, &z.div(&safe)?)?;
        Ok(record(
            "SgnBackward0",
            out,
            &[self],
            &[self],
            true,
            |g, s| {
                // d(z/|z|) = (dz - s Re(conj(s) dz)) / |z|: the gradient is
                // (g - Re(g conj(s)) s) / |z|, and 0 at z = 0.
                let (z, sg) = (&s[0], &s[1]);
                let r = z.abs()?;
                let zero = z.eq_scalar(Scalar::Float(0.0))?;
                let safe = zero.where_(&Tensor::ones(&[], r.dtype())?, &r)?;
                let along = g.mul(&sg.conj()?)?.real()?.mul(sg)?;
                let gz = g.sub(&along)?.div(&safe)?;
                Ok(vec![Some(zero_where(&zero, &gz)?)])
            },
        ))
    }

    /// `torch.complex(real, imag)`: a complex tensor from two float tensors (broadcast).
    pub fn complex(real: &Tensor, imag: &Tensor) -> Result<Tensor> {
        let (dr, di) = (real.dtype(), imag.dtype());
        if !matches!(dr, DType::F32 | DType::F64 | DType::F16)
            || !matches!(di, DType::F32 | DType::F64 | DType::F16)
        {
            return Err(Error::NotImplemented(format!(
                "Expected both inputs to be Half, Float or Double tensors but got {} and {}",
                dr.scalar_type_name(),
                di.scalar_type_name()
            )));
        }
        if dr != di {
            return Err(Error::runtime(format!(
                "Expected object of scalar type {} but got scalar type {} for second argument",
                dr.scalar_type_name(),
                di.scalar_type_name()
            )));
        }
        host_only("complex", real)?;
        let shape = broadcast_shapes("complex", real.shape(), imag.shape())?;
        let dt = dr.to_complex().unwrap_or(DType::C64);
        let out = Tensor::zeros(&shape, dt).op("complex")?;
        out.part_alias(0).write_from(real)?;
        out.part_alias(1).write_from(imag)?;
        let (sr, si) = (real.shape().to_vec(), imag.shape().to_vec());
        Ok(record(
            "ComplexBackward0",
            out,
            &[real, imag],
            &[],
            false,
            move |g, _| {
                let gr = g.real()?.sum_to(&sr)?.to_dtype(dr)?;
                let gi = g.imag()?.sum_to(&si)?.to_dtype(dr)?;
                Ok(vec![Some(gr), Some(gi)])
            },
        ))
    }

    /// `torch.polar(abs, angle)`: abs * (cos(angle) + i sin(angle)).
    pub fn polar(abs: &Tensor, angle: &Tensor) -> Result<Tensor> {
        let (da, dg) = (abs.dtype(), angle.dtype());
        if !matches!(da, DType::F32 | DType::F64 | DType::F16)
            || !matches!(dg, DType::F32 | DType::F64 | DType::F16)
        {
            return Err(Error::NotImplemented(format!(
                "Expected both inputs to be Half, Float or Double tensors but got {} and {}",
                da.scalar_type_name(),
                dg.scalar_type_name()
            )));
        }
        if da != dg {
            return Err(Error::runtime(format!(
                "Expected object of scalar type {} but got scalar type {} for second argument",
                da.scalar_type_name(),
                dg.scalar_type_name()
            )));
        }
        Tensor::complex(&abs.mul(&angle.cos()?)?, &abs.mul(&angle.sin()?)?)
    }
}

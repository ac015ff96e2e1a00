//! Elementwise unary ops and their gradients (written in differentiable ops).

use crate::autograd::{is_grad_enabled, record};
use crate::cpu::math::Float;
use crate::cpu::parallel::{map, map_op, zip_op, ElemFn, ElemFn2, Src};
use crate::cpu::vec_math;
use crate::{bail, DType, Device, Result, Scalar, Tensor};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Relu,
    Floor,
    Ceil,
    Round,
    Trunc,
    Frac,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    Gelu,
    GeluTanh,
    Silu,
    Erf,
    Erfinv,
    Reciprocal,
}

use UnaryOp::*;

impl UnaryOp {
    /// Whether the op has a one-pass fused backward (the CPU's `fused_grad`, the GPU's
    /// `unary_backward` kernel), and if so whether that pass reads the op's input `x`
    /// (true) or its output `y` (false).
    pub fn fused_backward_takes_input(self) -> Option<bool> {
        match self {
            Relu | Gelu | Silu => Some(true),
            Tanh | Sigmoid => Some(false),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Neg => "neg",
            Abs => "abs",
            Sign => "sign",
            Relu => "relu",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Frac => "frac",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Gelu => "gelu",
            GeluTanh => "gelu",
            Silu => "silu",
            Erf => "erf",
            Erfinv => "erfinv",
            Reciprocal => "reciprocal",
        }
    }

    /// Ops that keep integer dtypes (the rest compute integers in the default float type).
    fn keeps_int(self) -> bool {
        matches!(self, Neg | Abs | Sign | Relu | Floor | Ceil | Round | Trunc)
    }

    pub(crate) fn backward_name(self) -> &'static str {
        match self {
            Neg => "NegBackward0",
            Abs => "AbsBackward0",
            Sign => "SignBackward0",
            Relu => "ReluBackward0",
            Floor => "FloorBackward0",
            Ceil => "CeilBackward0",
            Round => "RoundBackward0",
            Trunc => "TruncBackward0",
            Frac => "FracBackward0",
            Exp => "ExpBackward0",
            Exp2 => "Exp2Backward0",
            Expm1 => "Expm1Backward0",
            Log => "LogBackward0",
            Log2 => "Log2Backward0",
            Log10 => "Log10Backward0",
            Log1p => "Log1PBackward0",
            Sqrt => "SqrtBackward0",
            Rsqrt => "RsqrtBackward0",
            Sin => "SinBackward0",
            Cos => "CosBackward0",
            Tan => "TanBackward0",
            Asin => "AsinBackward0",
            Acos => "AcosBackward0",
            Atan => "AtanBackward0",
            Sinh => "SinhBackward0",
            Cosh => "CoshBackward0",
            Tanh => "TanhBackward0",
            Sigmoid => "SigmoidBackward0",
            Gelu | GeluTanh => "GeluBackward0",
            Silu => "SiluBackward0",
            Erf => "ErfBackward0",
            Erfinv => "ErfinvBackward0",
            Reciprocal => "ReciprocalBackward0",
        }
    }
}

/// `g * f'(v)` in one pass (`v` is the op's input or output, as `k` expects), for backward
/// passes that build no graph; float32 takes the vector kernel `vk` where there is one.
fn fused_grad<K>(
    op: UnaryOp,
    g: &Tensor,
    v: &Tensor,
    k: K,
    vk: Option<vec_math::Grad>,
) -> Result<Tensor>
where
    K: ElemFn2<f32, f32, f32> + ElemFn2<f64, f64, f64>,
{
    if let Some(out) = crate::cuda_forward!(op.name(), [g, v], |d| {
        crate::cuda::ops::elementwise::unary_backward(&d, op, g, v)
    }) {
        return out;
    }
    let dt = v.dtype();
    let cd = if dt == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let (gc, vc) = (
        g.to_dtype_raw(cd)?.contiguous_copy_if_needed()?,
        v.to_dtype_raw(cd)?.contiguous_copy_if_needed()?,
    );
    let out = Tensor::uninit(v.shape(), cd)?;
    if cd == DType::F64 {
        zip_op(
            Src::Slice(gc.contiguous_slice::<f64>()),
            Src::Slice(vc.contiguous_slice()),
            unsafe { out.contiguous_slice_mut() },
            k,
        );
    } else {
        let (gs, vs, o) = (
            gc.contiguous_slice::<f32>(),
            vc.contiguous_slice(),
            unsafe { out.contiguous_slice_mut() },
        );
        if !vk.is_some_and(|op| vec_math::grad(op, gs, vs, o)) {
            zip_op(Src::Slice(gs), Src::Slice(vs), o, k);
        }
    }
    out.to_dtype_raw(g.dtype())
}

/// Element functions always inlined into the vector loops (see `ElemFn`).
macro_rules! inlined {
    ($name:ident, |$x:ident| $body:expr) => {
        #[derive(Clone, Copy)]
        struct $name;
        impl<F: Float> ElemFn<F, F> for $name {
            #[inline(always)]
            fn apply(&self, $x: F) -> F {
                $body
            }
        }
    };
}
inlined!(ExpOp, |x| x.exp());
inlined!(TanhOp, |x| x.tanh());
inlined!(SigmoidOp, |x| sigmoid(x));
inlined!(GeluOp, |x| x.gelu());
inlined!(GeluTanhOp, |x| gelu_tanh(x));
inlined!(SiluOp, |x| silu(x));

/// Gradient kernels `g * f'(v)`, always inlined into the vector loops.
macro_rules! inlined_grad {
    ($name:ident, |$g:ident, $v:ident| $body:expr) => {
        #[derive(Clone, Copy)]
        struct $name;
        impl<F: Float> ElemFn2<F, F, F> for $name {
            #[inline(always)]
            fn apply2(&self, $g: F, $v: F) -> F {
                $body
            }
        }
    };
}
// PyTorch's threshold_backward: the gradient passes unless x <= 0 (so it passes at NaN).
inlined_grad!(ReluGradTimes, |g, x| if x <= F::zero() {
    F::zero()
} else {
    g
});
inlined_grad!(GeluGradTimes, |g, x| g * x.gelu_grad());
inlined_grad!(TanhGradTimes, |g, y| g * (F::one() - y * y));
inlined_grad!(SigmoidGradTimes, |g, y| g * (y * (F::one() - y)));
inlined_grad!(GeluTanhGradTimes, |g, x| g * gelu_tanh_grad(x));
inlined_grad!(SiluGradTimes, |g, x| {
    let s = sigmoid(x);
    g * (s * (F::one() + x * (F::one() - s)))
});

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;

#[inline(always)]
fn sigmoid<F: Float>(x: F) -> F {
    F::one() / (F::one() + (-x).exp())
}

#[inline(always)]
fn silu<F: Float>(x: F) -> F {
    x * sigmoid(x)
}

#[inline(always)]
fn gelu_tanh<F: Float>(x: F) -> F {
    let half = F::from_f64c(0.5);
    let inner = F::from_f64c(SQRT_2_OVER_PI) * (x + F::from_f64c(0.044715) * x * x * x);
    half * x * (F::one() + inner.tanh())
}

/// d/dx of the tanh GELU. With s = sigmoid(2u): 0.5 (1 + tanh u) = s and
/// 0.5 x (1 - tanh^2 u) u' = x s (1 - s) 2u', which keeps the negative tail from cancelling.
#[inline(always)]
fn gelu_tanh_grad<F: Float>(x: F) -> F {
    let k = F::from_f64c(0.044715);
    let c2 = F::from_f64c(2.0 * SQRT_2_OVER_PI);
    let s = sigmoid(c2 * (x + k * x * x * x));
    let du2 = c2 * (F::one() + F::from_f64c(3.0) * k * x * x);
    s * (F::one() + x * (F::one() - s) * du2)
}

fn float_kernel<F: Float>(op: UnaryOp, a: &[F], out: &mut [F]) {
    match op {
        Neg => map(a, out, |x| -x),
        Abs => map(a, out, |x| x.abs()),
        Sign => map(a, out, |x| {
            if x > F::zero() {
                F::one()
            } else if x < F::zero() {
                -F::one()
            } else {
                // PyTorch: sign(0), sign(-0) and sign(NaN) are all +0.
                F::zero()
            }
        }),
        Relu => map(a, out, |x| {
            if x > F::zero() || x.is_nan() {
                x
            } else {
                F::zero()
            }
        }),
        Floor => map(a, out, |x| x.floor()),
        Ceil => map(a, out, |x| x.ceil()),
        Round => map(a, out, |x| x.round_even()),
        Trunc => map(a, out, |x| x.trunc()),
        Frac => map(a, out, |x| x - x.trunc()),
        Exp => map_op(a, out, ExpOp),
        Exp2 => map(a, out, |x| x.exp2()),
        Expm1 => map(a, out, |x| x.exp_m1()),
        Log => map(a, out, |x| x.ln()),
        Log2 => map(a, out, |x| x.log2()),
        Log10 => map(a, out, |x| x.log10()),
        Log1p => map(a, out, |x| x.ln_1p()),
        Sqrt => map(a, out, |x| x.sqrt()),
        Rsqrt => map(a, out, |x| F::one() / x.sqrt()),
        Sin => map(a, out, |x| x.sin()),
        Cos => map(a, out, |x| x.cos()),
        Tan => map(a, out, |x| x.tan()),
        Asin => map(a, out, |x| x.asin()),
        Acos => map(a, out, |x| x.acos()),
        Atan => map(a, out, |x| x.atan()),
        Sinh => map(a, out, |x| x.sinh()),
        Cosh => map(a, out, |x| x.cosh()),
        Tanh => map_op(a, out, TanhOp),
        Sigmoid => map_op(a, out, SigmoidOp),
        Gelu => map_op(a, out, GeluOp),
        GeluTanh => map_op(a, out, GeluTanhOp),
        Silu => map_op(a, out, SiluOp),
        Erf => map(a, out, |x| x.erf()),
        Erfinv => map(a, out, |x| x.erfinv()),
        Reciprocal => map(a, out, |x| F::one() / x),
    }
}

fn int_kernel(op: UnaryOp, a: &[i64], out: &mut [i64]) {
    match op {
        Neg => map(a, out, |x| x.wrapping_neg()),
        Abs => map(a, out, |x| x.wrapping_abs()),
        Sign => map(a, out, |x| x.signum()),
        Relu => map(a, out, |x| x.max(0)),
        _ => map(a, out, |x| x),
    }
}

/// Forward of a unary op, outside autograd.
pub fn unary_forward(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        return crate::ops::complex_math::unary_forward(op, x);
    }
    let dt = x.dtype();
    if dt == DType::Bool {
        match op {
            Neg => bail!(NotImplemented, "neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
            // sign(True) is True: bool is its own sign.
            Sign => return x.contiguous_copy(),
            Relu => bail!(NotImplemented, "relu: Boolean inputs not supported for relu"),
            Abs | Floor | Ceil | Round | Trunc | Frac => {
                bail!(NotImplemented, "{}: \"{}_cpu\" not implemented for 'Bool'", op.name(), op.name())
            }
            _ => {}
        }
    }
    if !dt.is_float() && matches!(op, Frac | Gelu | GeluTanh | Silu) {
        bail!(
            NotImplemented,
            "{}: \"{}_cpu\" not implemented for '{}' (expected a floating point input)",
            op.name(),
            op.name(),
            dt.name()
        );
    }
    if let Some(out) = crate::cuda_forward!(op.name(), [x], |d| {
        crate::cuda::ops::elementwise::unary(&d, op, x)
    }) {
        return out;
    }
    let out_dt = if dt.is_float() || op.keeps_int() {
        dt
    } else {
        DType::F32
    };
    let cd = match out_dt {
        DType::F64 => DType::F64,
        d if d.is_float() => DType::F32,
        _ => DType::I64,
    };
    let src = x.to_dtype_raw(cd)?.contiguous_copy_if_needed()?;
    let out = Tensor::uninit(x.shape(), cd)?;
    match cd {
        DType::F32 => {
            let (a, o) = (src.contiguous_slice(), unsafe {
                out.contiguous_slice_mut()
            });
            // The transcendental activations have explicit vector forms; the rest is portable.
            let fast = match op {
                Exp => Some(vec_math::Unary::Exp),
                Log => Some(vec_math::Unary::Log),
                Tanh => Some(vec_math::Unary::Tanh),
                Sigmoid => Some(vec_math::Unary::Sigmoid),
                Silu => Some(vec_math::Unary::Silu),
                Gelu => Some(vec_math::Unary::Gelu),
                GeluTanh => Some(vec_math::Unary::GeluTanh),
                _ => None,
            };
            if !fast.is_some_and(|f| vec_math::map(f, a, o)) {
                float_kernel::<f32>(op, a, o)
            }
        }
        DType::F64 => float_kernel::<f64>(op, src.contiguous_slice(), unsafe {
            out.contiguous_slice_mut()
        }),
        _ => int_kernel(op, src.contiguous_slice(), unsafe {
            out.contiguous_slice_mut()
        }),
    }
    out.to_dtype_raw(out_dt)
}

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

impl Tensor {
    /// Self when contiguous, else a contiguous copy (outside autograd).
    pub(crate) fn contiguous_copy_if_needed(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.contiguous_copy()
        }
    }

    /// A unary op with its gradient. Backwards that use the output recompute it from the input
    /// when building a higher-order graph (the saved output is detached).
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return crate::ops::complex_math::unary(op, self);
        }
        let out = unary_forward(op, self)?;
        if !out.dtype().is_float() {
            return Ok(out);
        }
        Ok(record(
            op.backward_name(),
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                let x = &s[0];
                let y = || -> Result<Tensor> {
                    if is_grad_enabled() {
                        x.unary(op)
                    } else {
                        Ok(s[1].clone())
                    }
                };
                // Without a graph to build, the common activations take one fused pass.
                // (On a GPU: the ops with a fused backward kernel.)
                let fused = !is_grad_enabled()
                    && g.shape() == x.shape()
                    && (x.device() == Device::Cpu || op.fused_backward_takes_input().is_some());
                let gx = match op {
                    Neg => g.neg()?,
                    Abs => g.mul(&x.sign()?)?,
                    Sign | Floor | Ceil | Round | Trunc => g.zeros_like()?,
                    Frac => g.clone(),
                    Relu if fused => fused_grad(op, g, x, ReluGradTimes, None)?,
                    // threshold_backward's rule, as the fused pass: blocked only where x <= 0.
                    Relu => {
                        let blocked = x.binary_scalar(crate::ops::binary::BinaryOp::Le, f(0.0))?;
                        g.masked_fill(&blocked, &Tensor::scalar(f(0.0), g.dtype()))?
                    }
                    Exp => g.mul(&y()?)?,
                    Exp2 => g.mul(&y()?)?.mul_scalar(f(std::f64::consts::LN_2))?,
                    Expm1 => g.mul(&y()?.add_scalar(f(1.0))?)?,
                    Log => g.div(x)?,
                    Log2 => g.div(&x.mul_scalar(f(std::f64::consts::LN_2))?)?,
                    Log10 => g.div(&x.mul_scalar(f(std::f64::consts::LN_10))?)?,
                    Log1p => g.div(&x.add_scalar(f(1.0))?)?,
                    Sqrt => g.div(&y()?.mul_scalar(f(2.0))?)?,
                    Rsqrt => g.mul(&y()?.pow_scalar(f(3.0))?)?.mul_scalar(f(-0.5))?,
                    Sin => g.mul(&x.cos()?)?,
                    Cos => g.mul(&x.sin()?)?.neg()?,
                    Tan => g.mul(&y()?.pow_scalar(f(2.0))?.add_scalar(f(1.0))?)?,
                    Asin => g.mul(&x.mul(x)?.neg()?.add_scalar(f(1.0))?.unary(Rsqrt)?)?,
                    Acos => g
                        .mul(&x.mul(x)?.neg()?.add_scalar(f(1.0))?.unary(Rsqrt)?)?
                        .neg()?,
                    Atan => g.div(&x.mul(x)?.add_scalar(f(1.0))?)?,
                    Sinh => g.mul(&x.unary(Cosh)?)?,
                    Cosh => g.mul(&x.unary(Sinh)?)?,
                    Tanh if fused => fused_grad(op, g, &s[1], TanhGradTimes, None)?,
                    Tanh => g.mul(&y()?.pow_scalar(f(2.0))?.neg()?.add_scalar(f(1.0))?)?,
                    Sigmoid if fused => fused_grad(op, g, &s[1], SigmoidGradTimes, None)?,
                    Sigmoid => {
                        let y = y()?;
                        g.mul(&y.mul(&y.neg()?.add_scalar(f(1.0))?)?)?
                    }
                    Gelu if fused => {
                        fused_grad(op, g, x, GeluGradTimes, Some(vec_math::Grad::Gelu))?
                    }
                    Gelu => {
                        // d/dx x*Phi(x) = Phi(x) + x*phi(x)
                        let cdf = x
                            .mul_scalar(f(std::f64::consts::FRAC_1_SQRT_2))?
                            .unary(Erf)?
                            .add_scalar(f(1.0))?
                            .mul_scalar(f(0.5))?;
                        let pdf = x
                            .mul(x)?
                            .mul_scalar(f(-0.5))?
                            .exp()?
                            .mul_scalar(f(0.398_942_280_401_432_7))?;
                        g.mul(&cdf.add(&x.mul(&pdf)?)?)?
                    }
                    GeluTanh if fused => {
                        fused_grad(op, g, x, GeluTanhGradTimes, Some(vec_math::Grad::GeluTanh))?
                    }
                    GeluTanh => {
                        let x2 = x.mul(x)?;
                        let inner = x
                            .mul(&x2.mul_scalar(f(0.044715))?.add_scalar(f(1.0))?)?
                            .mul_scalar(f(SQRT_2_OVER_PI))?;
                        let t = inner.tanh()?;
                        let dinner = x2
                            .mul_scalar(f(3.0 * 0.044715))?
                            .add_scalar(f(1.0))?
                            .mul_scalar(f(SQRT_2_OVER_PI))?;
                        let sech2 = t.mul(&t)?.neg()?.add_scalar(f(1.0))?;
                        let d = t
                            .add_scalar(f(1.0))?
                            .mul_scalar(f(0.5))?
                            .add(&x.mul(&sech2)?.mul(&dinner)?.mul_scalar(f(0.5))?)?;
                        g.mul(&d)?
                    }
                    Silu if fused => {
                        fused_grad(op, g, x, SiluGradTimes, Some(vec_math::Grad::Silu))?
                    }
                    Silu => {
                        let sg = x.sigmoid()?;
                        let d =
                            sg.mul(&x.mul(&sg.neg()?.add_scalar(f(1.0))?)?.add_scalar(f(1.0))?)?;
                        g.mul(&d)?
                    }
                    Erf => g.mul(
                        &x.mul(x)?
                            .neg()?
                            .exp()?
                            .mul_scalar(f(std::f64::consts::FRAC_2_SQRT_PI))?,
                    )?,
                    Erfinv => {
                        let y = y()?;
                        g.mul(
                            &y.mul(&y)?
                                .exp()?
                                .mul_scalar(f(std::f64::consts::PI.sqrt() / 2.0))?,
                        )?
                    }
                    Reciprocal => g.mul(&y()?.pow_scalar(f(2.0))?)?.neg()?,
                };
                Ok(vec![Some(gx)])
            },
        ))
    }

    pub fn neg(&self) -> Result<Tensor> {
        self.unary(Neg)
    }
    pub fn exp(&self) -> Result<Tensor> {
        self.unary(Exp)
    }
    pub fn log(&self) -> Result<Tensor> {
        self.unary(Log)
    }
    pub fn sin(&self) -> Result<Tensor> {
        self.unary(Sin)
    }
    pub fn cos(&self) -> Result<Tensor> {
        self.unary(Cos)
    }
    pub fn tanh(&self) -> Result<Tensor> {
        self.unary(Tanh)
    }
    pub fn sigmoid(&self) -> Result<Tensor> {
        self.unary(Sigmoid)
    }
    pub fn relu(&self) -> Result<Tensor> {
        self.unary(Relu)
    }
    pub fn sqrt(&self) -> Result<Tensor> {
        self.unary(Sqrt)
    }
    pub fn abs(&self) -> Result<Tensor> {
        self.unary(Abs)
    }
    pub fn sign(&self) -> Result<Tensor> {
        self.unary(Sign)
    }
    pub fn reciprocal(&self) -> Result<Tensor> {
        self.unary(Reciprocal)
    }
}

//! Elementwise binary ops with broadcasting and type promotion, and their gradients.

use crate::autograd::record;
use crate::cpu::math::{Float, Num};
use crate::cpu::parallel::{zip, Src};
use crate::dtype::{promote_types, result_type, Operand};
use crate::error::InOp;
use crate::layout::{broadcast_shapes, Layout};
use crate::ops::{broadcast_blocks, half_stepwise, UnaryOp};
use crate::{bail, DType, Error, Result, Scalar, Tensor};
use std::borrow::Cow;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
    Maximum,
    Minimum,
    Atan2,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    /// C-style remainder (sign of the dividend), `torch.fmod`.
    Fmod,
    /// Division rounded toward zero, `div(rounding_mode='trunc')`.
    TruncDiv,
    Hypot,
    Copysign,
    Xlogy,
    LogAddExp,
}

use BinaryOp::*;

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            FloorDiv => "floor_divide",
            Rem => "remainder",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Atan2 => "atan2",
            BitAnd => "bitwise_and",
            BitOr => "bitwise_or",
            BitXor => "bitwise_xor",
            Shl => "bitwise_left_shift",
            Shr => "bitwise_right_shift",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            Fmod => "fmod",
            TruncDiv => "div",
            Hypot => "hypot",
            Copysign => "copysign",
            Xlogy => "xlogy",
            LogAddExp => "logaddexp",
        }
    }
    /// Ops whose integer inputs compute (and return) in the default float type.
    pub fn int_to_float(self) -> bool {
        matches!(self, Div | Atan2 | Copysign | Xlogy)
    }
    /// Ops that PyTorch only defines for floating point inputs.
    fn float_only(self) -> bool {
        matches!(self, Hypot | LogAddExp)
    }
    fn is_compare(self) -> bool {
        matches!(
            self,
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
        )
    }
    fn is_bitwise(self) -> bool {
        matches!(self, BitAnd | BitOr | BitXor | Shl | Shr)
    }
}

fn operand(t: &Tensor) -> Operand {
    if t.ndim() == 0 {
        Operand::ZeroDim(t.dtype())
    } else {
        Operand::Dim(t.dtype())
    }
}

/// The dtype the kernel computes in for a common dtype: f32/f64 natively, half types in f32,
/// integers and bools in i64 (cast back afterwards, which wraps like native arithmetic).
fn compute_dtype(common: DType) -> DType {
    match common {
        DType::F32 | DType::F16 | DType::BF16 => DType::F32,
        DType::F64 => DType::F64,
        _ => DType::I64,
    }
}

/// Presents `t` (already of the compute dtype) as a kernel input over `shape`.
/// Borrowed when usable as it is (no refcount traffic on the per-op path of small tensors).
fn as_src<'a>(t: Cow<'a, Tensor>, shape: &[usize]) -> Result<Cow<'a, Tensor>> {
    if t.numel() == 1 || (t.shape() == shape && t.is_contiguous()) {
        return Ok(t);
    }
    let strides = t.layout().broadcast_strides("broadcast", shape)?;
    Ok(Cow::Owned(
        t.alias(Layout {
            shape: shape.to_vec(),
            strides,
            offset: t.offset(),
        })
        .contiguous_copy()?,
    ))
}

/// `t` cast to the common dtype `dt` when that loses range or precision (else as it is: the
/// kernel's own cast to the compute dtype is then exact).
fn narrowed(t: &Tensor, dt: DType) -> Result<Cow<'_, Tensor>> {
    // An integer operand of a half-precision op rounds to that half type first (int64 9e18
    // becomes inf in float16), though the kernel then computes in float32.
    let to_half = matches!(dt, DType::F16 | DType::BF16) && t.dtype() != dt;
    Ok(
        if !to_half && (t.dtype() == dt || promote_types(t.dtype(), dt) == dt) {
            Cow::Borrowed(t)
        } else {
            Cow::Owned(t.copy_as(dt)?)
        },
    )
}

/// The 0-d tensor a Python scalar becomes as an operand of `op`, where `dt` is its promoted
/// dtype with the tensor. An op computing integers in float takes an int exactly (int64:
/// `uint8 / -1` is -1.0, not 1/255); the others take it in `dt`, wrapped.
fn scalar_operand(op: BinaryOp, s: Scalar, dt: DType) -> Tensor {
    if op.int_to_float() && matches!(s, Scalar::Int(_)) && !dt.is_float() && !dt.is_complex() {
        Tensor::scalar(s, DType::I64)
    } else {
        Tensor::scalar(s, dt)
    }
}

/// `t - True` is refused like a bool tensor operand, though True promotes to the tensor's dtype.
fn refuse_bool_sub(op: BinaryOp, s: Scalar) -> Result<()> {
    if op == Sub && matches!(s, Scalar::Bool(_)) {
        bail!(NotImplemented, "sub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    Ok(())
}

/// PyTorch refuses `-` with a bool operand whatever the other's dtype (complex included).
fn check_bool_sub(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<()> {
    if op != Sub {
        return Ok(());
    }
    if a.dtype() == DType::Bool && b.dtype() == DType::Bool {
        bail!(NotImplemented, "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
    }
    if a.dtype() == DType::Bool || b.dtype() == DType::Bool {
        bail!(NotImplemented, "sub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    Ok(())
}

/// `t` in dtype `dt`, borrowed when it already is.
fn in_dtype(t: &Tensor, dt: DType) -> Result<Cow<'_, Tensor>> {
    Ok(if t.dtype() == dt {
        Cow::Borrowed(t)
    } else {
        Cow::Owned(t.copy_as(dt)?)
    })
}

fn src_of<T: crate::Element>(t: &Tensor, n: usize) -> Src<'_, T> {
    if t.numel() == 1 && n != 1 {
        // One element sits at the offset whatever the strides.
        Src::Scalar(unsafe { t.storage().slice::<T>(t.offset(), 1)[0] })
    } else {
        Src::Slice(t.contiguous_slice::<T>())
    }
}

fn arith<C: Num>(op: BinaryOp, a: Src<C>, b: Src<C>, out: &mut [C]) {
    match op {
        Add => zip(a, b, out, |x, y| x.add(y)),
        Sub => zip(a, b, out, |x, y| x.sub(y)),
        Mul => zip(a, b, out, |x, y| x.mul(y)),
        FloorDiv => zip(a, b, out, |x, y| x.floor_div(y)),
        Rem => zip(a, b, out, |x, y| x.rem_py(y)),
        Pow => zip(a, b, out, |x, y| x.pow(y)),
        Maximum => zip(a, b, out, |x, y| x.max_nan(y)),
        Minimum => zip(a, b, out, |x, y| x.min_nan(y)),
        _ => unreachable!("not an arithmetic op"),
    }
}

#[inline(always)]
fn is_negative<F: Float>(y: F) -> bool {
    // -0.0 counts as negative (its reciprocal is -inf), as in C's copysign.
    y < F::zero() || (y == F::zero() && F::one() / y < F::zero())
}

fn float_only<F: Float>(op: BinaryOp, a: Src<F>, b: Src<F>, out: &mut [F]) {
    match op {
        Div => zip(a, b, out, |x, y| x / y),
        Atan2 => zip(a, b, out, |x, y| x.atan2(y)),
        // fmod is exact, so computing it in f64 and rounding back loses nothing.
        Fmod => zip(a, b, out, |x, y| F::from_f64(x.to_f64() % y.to_f64())),
        TruncDiv => zip(a, b, out, |x, y| (x / y).trunc()),
        Hypot => zip(a, b, out, |x, y| {
            let (x, y) = (x.abs(), y.abs());
            let (m, n) = if x >= y { (x, y) } else { (y, x) };
            if m.is_inf() || n.is_inf() {
                F::max_value() * F::from_f64c(2.0)
            } else if m == F::zero() || m.is_nan() || n.is_nan() {
                m + n
            } else {
                // Scaled so that squaring cannot overflow.
                let r = n / m;
                m * (F::one() + r * r).sqrt()
            }
        }),
        Copysign => zip(
            a,
            b,
            out,
            |x, y| {
                if is_negative(y) {
                    -x.abs()
                } else {
                    x.abs()
                }
            },
        ),
        Xlogy => zip(a, b, out, |x, y| {
            if y.is_nan() {
                y
            } else if x == F::zero() {
                F::zero()
            } else {
                x * y.ln()
            }
        }),
        LogAddExp => zip(a, b, out, |x, y| {
            let (m, n) = if x >= y { (x, y) } else { (y, x) };
            if m.is_inf() && m == n {
                m
            } else if x.is_nan() || y.is_nan() {
                x + y
            } else {
                m + (n - m).exp().ln_1p()
            }
        }),
        _ => arith(op, a, b, out),
    }
}

fn bitwise(op: BinaryOp, a: Src<i64>, b: Src<i64>, out: &mut [i64]) {
    match op {
        BitAnd => zip(a, b, out, |x, y| x & y),
        BitOr => zip(a, b, out, |x, y| x | y),
        BitXor => zip(a, b, out, |x, y| x ^ y),
        Shl => zip(
            a,
            b,
            out,
            |x, y| if (0..64).contains(&y) { x << y } else { 0 },
        ),
        Shr => zip(a, b, out, |x, y| {
            if (0..64).contains(&y) {
                x >> y
            } else if x < 0 {
                -1
            } else {
                0
            }
        }),
        // Zero divisors are rejected before the loop.
        Fmod => zip(a, b, out, |x, y| if y == 0 { 0 } else { x.wrapping_rem(y) }),
        TruncDiv => zip(a, b, out, |x, y| if y == 0 { 0 } else { x.wrapping_div(y) }),
        _ => arith(op, a, b, out),
    }
}

fn compare<C: Num>(op: BinaryOp, a: Src<C>, b: Src<C>, out: &mut [bool]) {
    let z = C::zero();
    match op {
        Eq => zip(a, b, out, |x, y| x == y),
        Ne => zip(a, b, out, |x, y| x != y),
        Lt => zip(a, b, out, |x, y| x < y),
        Le => zip(a, b, out, |x, y| x <= y),
        Gt => zip(a, b, out, |x, y| x > y),
        Ge => zip(a, b, out, |x, y| x >= y),
        LogicalAnd => zip(a, b, out, |x, y| x != z && y != z),
        LogicalOr => zip(a, b, out, |x, y| x != z || y != z),
        LogicalXor => zip(a, b, out, |x, y| (x != z) != (y != z)),
        _ => unreachable!("not a comparison"),
    }
}

/// Whether arithmetic of a half tensor with Python number `s` must run in float32: PyTorch
/// computes half ops in float32 with the number as a float, so a number beyond the half
/// range (x * 70000 with x = 0.8) does not overflow before the product is rounded.
fn half_needs_float_scalar(op: BinaryOp, s: Scalar, dt: DType) -> bool {
    // PyTorch's mul/div/floor-div kernels read a scalar operand's value in float32 (3 * 2049
    // in float16 is 6148, not 3 * 2048); add/sub round it to the half type (70000.0 is inf
    // in float16, so -inf + 70000.0 is NaN).
    matches!(dt, DType::F16 | DType::BF16)
        && matches!(s, Scalar::Int(_) | Scalar::Float(_))
        && matches!(op, Mul | Div | FloorDiv)
}

/// Forward of a binary op, outside autograd.
pub fn binary_forward(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype().is_complex() || b.dtype().is_complex() {
        return crate::ops::complex_math::binary_forward(op, a, b);
    }
    real_binary_forward(op, a, b)
}

/// `binary_forward` for real dtypes (the caller has routed complex operands away).
fn real_binary_forward(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let name = op.name();
    // Dtype checks come before the shape check, as in PyTorch (its error class is NotImplementedError).
    let mut common = result_type(&[operand(a), operand(b)], DType::F32);
    if op.is_bitwise() && common.is_float() {
        bail!(
            NotImplemented,
            "\"{name}_cpu\" not implemented for '{}' (shapes {:?} and {:?})",
            common.name(),
            a.shape(),
            b.shape()
        );
    }
    check_bool_sub(op, a, b)?;
    if common == DType::Bool && matches!(op, Pow | Shl | Shr | Fmod | TruncDiv | Rem | FloorDiv) {
        bail!(
            NotImplemented,
            "{name}: \"{name}_cpu\" not implemented for 'Bool'"
        );
    }
    if op.float_only() && !common.is_float() {
        bail!(
            NotImplemented,
            "{name}: \"{name}_cpu\" not implemented for '{}' (expected floating point inputs)",
            common.name()
        );
    }
    if op.int_to_float() && !common.is_float() {
        common = DType::F32;
    }
    // Operands are cast to the common dtype first, as in PyTorch: a wider 0-d operand wraps
    // (int) or rounds (half) before the kernel sees it, so `int16 != int32(65535)` is in int16.
    // PyTorch's half multiply and divisions take a one-element right operand at its original
    // value in float32 instead (half * int64(70000) multiplies by 70000, not by inf).
    let b = if half_stepwise::takes_original_scalar(op, common, b.numel()) {
        in_dtype(b, DType::F32)?
    } else {
        narrowed(b, common)?
    };
    let a = narrowed(a, common)?;
    let (a, b) = (a.as_ref(), b.as_ref());
    let shape = broadcast_shapes(name, a.shape(), b.shape())?;
    if let Some(out) = crate::cuda_forward!(name, [a, b], |d| {
        let out_dt = if op.is_compare() { DType::Bool } else { common };
        crate::cuda::ops::elementwise::binary(&d, op, a, b, &shape, common, out_dt)
    }) {
        return out;
    }
    // Half `//`, truncating division and xlogy round each step to the half type, as PyTorch's.
    let stepwise = half_stepwise::applies(op, common, b.numel());
    let cd = compute_dtype(common);
    let (a, b) = (in_dtype(a, cd)?, in_dtype(b, cd)?);
    // Row-pattern broadcasts read the small operand in place instead of copying it out.
    let blocks = if stepwise {
        None
    } else {
        broadcast_blocks::plan(&a, &b, &shape)
    };
    let (a, b) = if blocks.is_some() {
        (a, b)
    } else {
        (as_src(a, &shape)?, as_src(b, &shape)?)
    };
    let n: usize = shape.iter().product();
    if cd == DType::I64
        && n > 0
        && matches!(op, FloorDiv | Rem | Fmod | TruncDiv)
        && b.contiguous_slice::<i64>().contains(&0)
    {
        bail!(
            Runtime,
            "{name}: ZeroDivisionError (integer division by zero)"
        );
    }
    let out_dtype = if op.is_compare() { DType::Bool } else { cd };
    let out = Tensor::uninit(&shape, out_dtype).op(name)?;
    macro_rules! run {
        ($C:ty, $f:ident) => {{
            if let Some(plan) = blocks {
                let (da, db) = (a.contiguous_slice::<$C>(), b.contiguous_slice::<$C>());
                if op.is_compare() {
                    let o = unsafe { out.contiguous_slice_mut::<bool>() };
                    broadcast_blocks::run(plan, da, db, o, |x, y, o| compare::<$C>(op, x, y, o));
                } else {
                    let o = unsafe { out.contiguous_slice_mut::<$C>() };
                    broadcast_blocks::run(plan, da, db, o, |x, y, o| $f(op, x, y, o));
                }
            } else {
                let (sa, sb) = (src_of::<$C>(&a, n), src_of::<$C>(&b, n));
                if op.is_compare() {
                    compare::<$C>(op, sa, sb, unsafe { out.contiguous_slice_mut::<bool>() });
                } else {
                    $f(op, sa, sb, unsafe { out.contiguous_slice_mut::<$C>() });
                }
            }
        }};
    }
    match cd {
        DType::F32 if stepwise => half_stepwise::run(
            op,
            src_of::<f32>(&a, n),
            src_of::<f32>(&b, n),
            unsafe { out.contiguous_slice_mut::<f32>() },
            common,
        ),
        DType::F32 => run!(f32, float_only),
        DType::F64 => run!(f64, float_only),
        _ => run!(i64, bitwise),
    }
    Ok(if op.is_compare() || out.dtype() == common {
        out
    } else {
        out.copy_as(common)?
    })
}

impl Tensor {
    /// Cast outside autograd (self when the dtype matches). Kernels cast their inputs to
    /// the dtype they compute in with this: a complex input meeting a real kernel is an
    /// error here, never a silent loss of its imaginary parts.
    pub(crate) fn to_dtype_raw(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            Ok(self.clone())
        } else if self.dtype().is_complex() && !dtype.is_complex() && dtype != DType::Bool {
            Err(Error::complex_unsupported("this operation", self.dtype()))
        } else {
            self.copy_as(dtype)
        }
    }

    /// Sums a broadcast gradient back down to `shape`.
    pub fn sum_to(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let lead = self.ndim() - shape.len();
        let mut dims: Vec<i64> = (0..lead as i64).collect();
        for (i, &d) in shape.iter().enumerate() {
            if d == 1 && self.shape()[lead + i] != 1 {
                dims.push((lead + i) as i64);
            }
        }
        let s = self.sum_dims(&dims, true)?;
        s.reshape(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>())
    }

    /// A binary op with broadcasting, promotion and autograd.
    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> Result<Tensor> {
        if self.dtype().is_complex() || other.dtype().is_complex() {
            check_bool_sub(op, self, other)?;
            return crate::ops::complex_math::binary(op, self, other);
        }
        let out = real_binary_forward(op, self, other)?;
        if op.is_compare() || op.is_bitwise() || !out.dtype().is_float() {
            return Ok(out);
        }
        // The common no-grad case skips building the backward closure.
        if !crate::autograd::is_grad_enabled() || !(self.requires_grad() || other.requires_grad()) {
            return Ok(out);
        }
        let (sa, sb) = (self.shape().to_vec(), other.shape().to_vec());
        let (da, db) = (self.dtype(), other.dtype());
        // Each gradient is reduced to its input's shape and cast back to its dtype.
        let fin = move |g: Option<Tensor>, shape: &[usize], dt: DType| -> Result<Option<Tensor>> {
            match g {
                Some(g) => Ok(Some(g.sum_to(shape)?.to_dtype(dt)?)),
                None => Ok(None),
            }
        };
        let name = match op {
            Add => "AddBackward0",
            Sub => "SubBackward0",
            Mul => "MulBackward0",
            Div => "DivBackward0",
            Pow => "PowBackward1",
            Maximum => "MaximumBackward0",
            Minimum => "MinimumBackward0",
            Atan2 => "Atan2Backward0",
            Rem => "RemainderBackward0",
            FloorDiv => "FloorDivideBackward0",
            TruncDiv => "DivBackward1",
            Fmod => "FmodBackward1",
            Hypot => "HypotBackward0",
            Copysign => "CopysignBackward0",
            Xlogy => "XlogyBackward0",
            LogAddExp => "LogaddexpBackward0",
            _ => "BinaryBackward0",
        };
        Ok(record(
            name,
            out,
            &[self, other],
            &[self, other],
            false,
            move |g, s| {
                let (a, b) = (&s[0], &s[1]);
                // The hot ops skip the gradient of an input that needs none: `x * 2` spent
                // a full product and a reduction on the constant's gradient.
                let (na, nb) = (a.requires_grad(), b.requires_grad());
                let want = |need: bool, f: &dyn Fn() -> Result<Tensor>| -> Result<Option<Tensor>> {
                    need.then(f).transpose()
                };
                let (ga, gb) = match op {
                    Add => (na.then(|| g.clone()), nb.then(|| g.clone())),
                    Sub => (na.then(|| g.clone()), want(nb, &|| g.neg())?),
                    Mul => (want(na, &|| g.mul(b))?, want(nb, &|| g.mul(a))?),
                    Div => (
                        want(na, &|| g.div(b))?,
                        want(nb, &|| g.neg()?.mul(a)?.div(&b.mul(b)?))?,
                    ),
                    Pow => {
                        // b * a^(b-1), taken as 0 where b == 0 (else 0 * 0^-1 = NaN at a == 0).
                        let ga = g.mul(b)?.mul(&a.pow(&b.sub_scalar(Scalar::Float(1.0))?)?)?;
                        let ga = b
                            .eq_scalar(Scalar::Float(0.0))?
                            .where_(&Tensor::zeros(&[], ga.dtype())?, &ga)?;
                        let gb = if b.requires_grad() {
                            // d/db a^b = a^b ln a, taken as 0 where a == 0 (the limit for b > 0).
                            let lg = a.log()?;
                            let zero_base = a.eq_scalar(Scalar::Float(0.0))?;
                            let lg = zero_base
                                .where_(&Tensor::scalar(Scalar::Float(0.0), lg.dtype()), &lg)?;
                            Some(g.mul(&a.pow(b)?)?.mul(&lg)?)
                        } else {
                            None
                        };
                        (Some(ga), gb)
                    }
                    Maximum | Minimum => {
                        let cmp = if op == Maximum { Gt } else { Lt };
                        let wa = binary_forward(cmp, a, b)?.to_dtype_raw(g.dtype())?;
                        let tie = binary_forward(Eq, a, b)?.to_dtype_raw(g.dtype())?;
                        let wa = wa.add(&tie.mul_scalar(Scalar::Float(0.5))?)?;
                        let wb = wa.neg()?.add_scalar(Scalar::Float(1.0))?;
                        (Some(g.mul(&wa)?), Some(g.mul(&wb)?))
                    }
                    Atan2 => {
                        // At (0, 0) the gradient is taken as 0 (PyTorch), not 0/0.
                        let den = a.mul(a)?.add(&b.mul(b)?)?;
                        let den = den
                            .eq_scalar(Scalar::Float(0.0))?
                            .where_(&Tensor::ones(&[], den.dtype())?, &den)?;
                        (
                            Some(g.mul(b)?.div(&den)?),
                            Some(g.neg()?.mul(a)?.div(&den)?),
                        )
                    }
                    Rem => (
                        Some(g.clone()),
                        Some(g.neg()?.mul(&binary_forward(FloorDiv, a, b)?)?),
                    ),
                    FloorDiv | TruncDiv => (Some(g.zeros_like()?), Some(g.zeros_like()?)),
                    Fmod => (
                        Some(g.clone()),
                        Some(g.neg()?.mul(&binary_forward(TruncDiv, a, b)?)?),
                    ),
                    Hypot => {
                        let h = a.binary(Hypot, b)?;
                        (Some(g.mul(a)?.div(&h)?), Some(g.mul(b)?.div(&h)?))
                    }
                    Copysign => {
                        // d/da |a| * s(b) = sign(a) * s(b), where s(b) = copysign(1, b).
                        let s = binary_forward(Copysign, &Tensor::ones(&[], a.dtype())?, b)?;
                        let ga = g.mul(&a.sign()?.mul(&s)?)?;
                        (Some(ga), Some(g.zeros_like()?))
                    }
                    Xlogy => {
                        // xlogy(g, b) (0 where g is 0), and 0 where a == 0 and b <= 0: PyTorch's
                        // rule, which keeps -inf and NaN of log(b <= 0) out of a dead input.
                        let dead = a
                            .eq_scalar(Scalar::Float(0.0))?
                            .binary(LogicalAnd, &b.binary_scalar(Le, Scalar::Float(0.0))?)?;
                        let zero = Tensor::zeros(&[], g.dtype())?;
                        let ga = dead.where_(&zero, &g.binary(Xlogy, b)?)?;
                        (Some(ga), Some(g.mul(a)?.div(b)?))
                    }
                    LogAddExp => {
                        // softmax weights of the two inputs.
                        let y = a.binary(LogAddExp, b)?;
                        (
                            Some(g.mul(&a.sub(&y)?.exp()?)?),
                            Some(g.mul(&b.sub(&y)?.exp()?)?),
                        )
                    }
                    _ => (None, None),
                };
                Ok(vec![fin(ga, &sa, da)?, fin(gb, &sb, db)?])
            },
        ))
    }

    /// A binary op with a Python scalar on the right, promoted as PyTorch promotes scalars.
    pub fn binary_scalar(&self, op: BinaryOp, s: Scalar) -> Result<Tensor> {
        refuse_bool_sub(op, s)?;
        let dt = result_type(&[operand(self), Operand::Scalar(s.category())], DType::F32);
        if op == Pow {
            if let Some(out) = self.pow_scalar_special(s, dt)? {
                return Ok(out);
            }
            if dt.is_complex() {
                return self.complex_pow_scalar(s, dt);
            }
            if let Some(out) = self.pow_scalar_by_root(s, dt)? {
                return Ok(out);
            }
        }
        if half_needs_float_scalar(op, s, dt) {
            let wide = self.to_dtype(DType::F32)?;
            return wide
                .binary(op, &scalar_operand(op, s, DType::F32))?
                .to_dtype(dt);
        }
        self.binary(op, &scalar_operand(op, s, dt))
    }

    /// PyTorch's pow(Tensor, Scalar) for float32/float64/bfloat16 results runs its sqrt,
    /// rsqrt or reciprocal kernel for the exponents 0.5, -0.5 and -1 (so (-inf) ** 0.5 is
    /// NaN and (-0.0) ** 0.5 is -0.0, as sqrt gives); float16 keeps pow's values.
    fn pow_scalar_by_root(&self, s: Scalar, dt: DType) -> Result<Option<Tensor>> {
        if !matches!(dt, DType::F32 | DType::F64 | DType::BF16) {
            return Ok(None);
        }
        let op = match s.to_complex() {
            (_, im) if im != 0.0 => return Ok(None),
            (0.5, _) => UnaryOp::Sqrt,
            (-0.5, _) => UnaryOp::Rsqrt,
            (-1.0, _) => UnaryOp::Reciprocal,
            _ => return Ok(None),
        };
        Ok(Some(self.to_dtype(dt)?.unary(op)?))
    }

    /// PyTorch's pow(Tensor, Scalar) before its kernel: integers refuse negative integer
    /// powers; an integer or bool result is all ones for exponent 0 and the input for 1, and
    /// any other exponent must fit the result dtype, as must a half type's.
    fn pow_scalar_special(&self, s: Scalar, dt: DType) -> Result<Option<Tensor>> {
        let int_like = |d: DType| !d.is_float() && !d.is_complex();
        if int_like(self.dtype()) && matches!(s, Scalar::Int(v) if v < 0) {
            bail!(
                Runtime,
                "pow: Integers to negative integer powers are not allowed."
            );
        }
        if int_like(dt) {
            match s.to_complex() {
                (re, im) if re == 0.0 && im == 0.0 => {
                    return Ok(Some(Tensor::ones(self.shape(), dt)?))
                }
                (re, im) if re == 1.0 && im == 0.0 => {
                    return Ok(Some(self.to_dtype(dt)?.clone_tensor()?))
                }
                _ => crate::scalar_range::check_fits("pow", s, dt)?,
            }
        } else if matches!(dt, DType::F16 | DType::BF16) && s.to_f64() != 0.0 && s.to_f64() != 1.0 {
            crate::scalar_range::check_fits("pow", s, dt)?;
        }
        Ok(None)
    }

    /// A binary op with a Python scalar on the left (`2 - t`).
    pub fn rbinary_scalar(&self, op: BinaryOp, s: Scalar) -> Result<Tensor> {
        refuse_bool_sub(op, s)?;
        let dt = result_type(&[operand(self), Operand::Scalar(s.category())], DType::F32);
        // A bool base is not PyTorch's "1" here (True ** x keeps pow's values).
        let one = !matches!(s, Scalar::Bool(_)) && s.to_complex() == (1.0, 0.0);
        if op == Pow && one && dt.is_complex() && self.dtype() == dt {
            // PyTorch's 1 ** x is ones whatever x is (NaN and inf parts too), gradient zero.
            let out = Tensor::full(self.shape(), Scalar::Float(1.0), dt)?;
            return Ok(crate::autograd::record(
                "PowBackward2",
                out,
                &[self],
                &[],
                false,
                |g, _| Ok(vec![Some(g.zeros_like()?)]),
            ));
        }
        if half_needs_float_scalar(op, s, dt) {
            let wide = self.to_dtype(DType::F32)?;
            return scalar_operand(op, s, DType::F32)
                .binary(op, &wide)?
                .to_dtype(dt);
        }
        scalar_operand(op, s, dt).binary(op, self)
    }

    pub fn add(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Add, o)
    }
    pub fn sub(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Sub, o)
    }
    pub fn mul(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Mul, o)
    }
    pub fn div(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Div, o)
    }
    pub fn pow(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Pow, o)
    }
    pub fn maximum(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Maximum, o)
    }
    pub fn minimum(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(Minimum, o)
    }
    pub fn add_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Add, s)
    }
    pub fn sub_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Sub, s)
    }
    pub fn mul_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Mul, s)
    }
    pub fn div_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Div, s)
    }
    pub fn pow_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Pow, s)
    }
    pub fn eq_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Eq, s)
    }
    pub fn gt_scalar(&self, s: Scalar) -> Result<Tensor> {
        self.binary_scalar(Gt, s)
    }

    /// `add_`: in place, with PyTorch's rule that the result must fit the tensor's dtype.
    pub fn add_(&self, o: &Tensor) -> Result<()> {
        self.check_no_internal_overlap("add_")?;
        self.check_no_partial_overlap(o)?;
        if self.binary_in_place_direct(Add, o)? {
            return Ok(());
        }
        self.apply_inplace("add_", &[o], |s| s.add(o))
    }

    /// In-place form of any binary op (`mul_`, `sub_`, ...).
    pub fn binary_(&self, op: BinaryOp, o: &Tensor) -> Result<()> {
        let name = format!("{}_", op.name());
        self.check_no_internal_overlap(&name)?;
        self.check_no_partial_overlap(o)?;
        if self.binary_in_place_direct(op, o)? {
            return Ok(());
        }
        self.apply_inplace(&name, &[o], |s| s.binary(op, o))
    }

    /// Zeros of this shape and dtype on this tensor's device.
    pub fn zeros_like(&self) -> Result<Tensor> {
        if let Some(z) = crate::cuda_forward!("zeros_like", [self], |d| {
            crate::cuda::ops::zeros(&d, self.shape(), self.dtype())
        }) {
            return z;
        }
        Tensor::zeros(self.shape(), self.dtype())
    }
}

#[allow(dead_code)]
fn _assert_error_is_used(_: Error) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<T: crate::Element>(v: Vec<T>) -> Tensor {
        let n = v.len();
        Tensor::from_vec(v, &[n]).unwrap()
    }

    #[test]
    fn fmod_and_trunc_division_round_toward_zero() {
        let a = t(vec![-7i64, 7, -8, i64::MAX]);
        let b = t(vec![2i64, -2, 3, 2]);
        let r = a.binary(Fmod, &b).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![-1, 1, -2, 1]);
        let q = a.binary(TruncDiv, &b).unwrap();
        assert_eq!(q.to_vec::<i64>(), vec![-3, -3, -2, i64::MAX / 2]);
        let f = t(vec![-7.5f64, 7.5])
            .binary(Fmod, &t(vec![2.0f64, -2.0]))
            .unwrap();
        assert_eq!(f.to_vec::<f64>(), vec![-1.5, 1.5]);
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        let a = t(vec![1i64, 2]);
        let z = t(vec![1i64, 0]);
        for op in [FloorDiv, Rem, Fmod, TruncDiv] {
            let e = a.binary(op, &z).unwrap_err().to_string();
            assert!(e.contains("ZeroDivisionError"), "{e}");
        }
        // Floats divide by zero to inf/nan as IEEE says.
        let f = t(vec![1.0f32]).binary(FloorDiv, &t(vec![0.0f32])).unwrap();
        assert!(f.to_vec::<f32>()[0].is_infinite());
    }

    #[test]
    fn stable_kernels_at_extremes() {
        let h = t(vec![3e300f64, f64::INFINITY])
            .binary(Hypot, &t(vec![4e300f64, f64::NAN]))
            .unwrap()
            .to_vec::<f64>();
        assert!((h[0] / 5e300 - 1.0).abs() < 1e-12 && h[1] == f64::INFINITY);
        let l = t(vec![1000.0f64, f64::NEG_INFINITY])
            .binary(LogAddExp, &t(vec![1000.0f64, f64::NEG_INFINITY]))
            .unwrap()
            .to_vec::<f64>();
        assert!((l[0] - 1000.0 - std::f64::consts::LN_2).abs() < 1e-12);
        assert_eq!(l[1], f64::NEG_INFINITY);
        let c = t(vec![3.0f32, 3.0])
            .binary(Copysign, &t(vec![-0.0f32, 0.0]))
            .unwrap();
        assert_eq!(c.to_vec::<f32>(), vec![-3.0, 3.0]);
        let x = t(vec![0.0f64, 0.0])
            .binary(Xlogy, &t(vec![0.0f64, f64::NAN]))
            .unwrap()
            .to_vec::<f64>();
        assert!(x[0] == 0.0 && x[1].is_nan());
    }

    #[test]
    fn bool_and_integer_rules() {
        let b = t(vec![true, false]);
        assert!(b.binary(Sub, &b).is_err());
        assert!(t(vec![1.0f32, 2.0]).binary(Sub, &b).is_err());
        assert!(b.binary(Pow, &b).is_err());
        assert!(t(vec![2i64]).pow_scalar(Scalar::Int(-1)).is_err());
        // A tensor exponent computes integer powers (2^-1 truncates to 0), as PyTorch.
        let p = t(vec![2i64, -1]).binary(Pow, &t(vec![-1i64, -3])).unwrap();
        assert_eq!(p.to_vec::<i64>(), vec![0, -1]);
        assert!(t(vec![1i64]).binary(Hypot, &t(vec![1i64])).is_err());
        assert_eq!(
            t(vec![1i64])
                .binary(Copysign, &t(vec![-1i64]))
                .unwrap()
                .dtype(),
            DType::F32
        );
    }
}

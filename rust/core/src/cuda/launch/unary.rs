//! Elementwise unary ops and their fused gradients (kernels/unary.cu), with the dtype rules of
//! `ops::unary::unary_forward`.

use super::ew::{check_view, coalesce, launch};
use super::{suffix, Kernels, Strided};
use crate::cuda::kernels::elementwise::UNARY;
use crate::ops::UnaryOp;
use crate::{DType, Error, Result};
use cudarc::driver::CudaStream;

/// The op code unary.cu switches on.
pub fn unary_code(op: UnaryOp) -> i32 {
    use UnaryOp::*;
    match op {
        Neg => 0,
        Abs => 1,
        Sign => 2,
        Relu => 3,
        Floor => 4,
        Ceil => 5,
        Round => 6,
        Trunc => 7,
        Frac => 8,
        Exp => 9,
        Exp2 => 10,
        Expm1 => 11,
        Log => 12,
        Log2 => 13,
        Log10 => 14,
        Log1p => 15,
        Sqrt => 16,
        Rsqrt => 17,
        Sin => 18,
        Cos => 19,
        Tan => 20,
        Asin => 21,
        Acos => 22,
        Atan => 23,
        Sinh => 24,
        Cosh => 25,
        Tanh => 26,
        Sigmoid => 27,
        Gelu => 28,
        GeluTanh => 29,
        Silu => 30,
        Erf => 31,
        Erfinv => 32,
        Reciprocal => 33,
    }
}

/// Ops that keep integer dtypes (the others compute integer and bool inputs in float32).
fn keeps_int(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(op, Neg | Abs | Sign | Relu | Floor | Ceil | Round | Trunc)
}

/// The dtype `unary` writes for input dtype `dt`, or the error the CPU gives for the pair:
/// floating inputs keep their dtype; integer inputs keep theirs for neg/abs/sign/relu/floor/
/// ceil/round/trunc and give float32 for the rest; bool allows sign (bool) and the float ops
/// (float32); frac and the GELUs need a floating input.
pub fn unary_out_dtype(op: UnaryOp, dt: DType) -> Result<DType> {
    use UnaryOp::*;
    let name = op.name();
    if dt == DType::Bool {
        match op {
            Neg => {
                return Err(Error::runtime(
                    "neg: Negation, the `-` operator, on a bool tensor is not supported. If you \
                     are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
                ))
            }
            Sign => return Ok(DType::Bool),
            Relu => {
                return Err(Error::runtime(
                    "relu: Boolean inputs not supported for relu",
                ))
            }
            Abs | Floor | Ceil | Round | Trunc | Frac => {
                return Err(Error::runtime(format!(
                    "{name}: \"{name}_cuda\" not implemented for 'Bool'"
                )))
            }
            _ => {}
        }
    }
    if !dt.is_float() && matches!(op, Frac | Gelu | GeluTanh) {
        return Err(Error::runtime(format!(
            "{name}: \"{name}_cuda\" not implemented for '{}' (expected a floating point input)",
            dt.name()
        )));
    }
    Ok(if dt.is_float() || keeps_int(op) {
        dt
    } else {
        DType::F32
    })
}

/// The kernel `unary` runs for `op` on input dtype `dt`.
pub fn kernel_name(op: UnaryOp, dt: DType) -> Result<String> {
    let out = unary_out_dtype(op, dt)?;
    Ok(if out == dt {
        format!("unary_{}", suffix(dt))
    } else {
        format!("unary_{}_f32", suffix(dt))
    })
}

/// `y = op(x)`: `src` (base pointer) with `src_view` (any strides, offset in elements,
/// `n` elements) of dtype `dtype`; `dst` contiguous, pointer at element 0, of dtype
/// `unary_out_dtype(op, dtype)` (float32 for the float ops on integer and bool inputs).
/// Half types compute in float32, integer ops in int64 wrapping back (neg of int8 -128 is
/// -128), as the CPU does.
#[allow(clippy::too_many_arguments)]
pub fn unary(
    k: &dyn Kernels,
    stream: &CudaStream,
    op: UnaryOp,
    dtype: DType,
    src: u64,
    src_view: &Strided,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = kernel_name(op, dtype)?;
    check_view(op.name(), "input", src_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (code, v, n64) = (unary_code(op), coalesce(src_view), n as i64);
    launch!(k, stream, &UNARY, name, n, [&code, &src, &v, &dst, &n64]);
    Ok(())
}

/// The kernel `unary_backward` runs.
pub fn backward_kernel_name(op: UnaryOp, dt: DType) -> Result<String> {
    if op.fused_backward_takes_input().is_none() {
        return Err(Error::runtime(format!(
            "{}: no fused CUDA backward (relu, gelu, silu, tanh and sigmoid have one)",
            op.name()
        )));
    }
    if !dt.is_float() {
        return Err(super::ew::unsupported(
            &format!("{}_backward", op.name()),
            dt,
        ));
    }
    Ok(format!("unary_backward_{}", suffix(dt)))
}

/// The fused gradient `dst = grad * f'(v)` of relu (v = x; the gradient passes unless
/// x <= 0, so it passes at NaN), exact gelu (v = x), silu (v = x), tanh (v = y) and sigmoid
/// (v = y); see `UnaryOp::fused_backward_takes_input`. `grad`, `v` and `dst` are contiguous, pointers
/// at element 0, `n` elements of the floating dtype `dtype` (half types compute in float32,
/// as the CPU's `fused_grad`).
#[allow(clippy::too_many_arguments)]
pub fn unary_backward(
    k: &dyn Kernels,
    stream: &CudaStream,
    op: UnaryOp,
    dtype: DType,
    grad: u64,
    v: u64,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = backward_kernel_name(op, dtype)?;
    if n == 0 {
        return Ok(());
    }
    let (code, n64) = (unary_code(op), n as i64);
    launch!(k, stream, &UNARY, name, n, [&code, &grad, &v, &dst, &n64]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use UnaryOp::*;

    const ALL_OPS: [UnaryOp; 34] = [
        Neg, Abs, Sign, Relu, Floor, Ceil, Round, Trunc, Frac, Exp, Exp2, Expm1, Log, Log2, Log10,
        Log1p, Sqrt, Rsqrt, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Sigmoid, Gelu,
        GeluTanh, Silu, Erf, Erfinv, Reciprocal,
    ];

    #[test]
    fn every_unary_kernel_name_exists() {
        let mut codes: Vec<i32> = ALL_OPS.iter().map(|&o| unary_code(o)).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes, (0..34).collect::<Vec<_>>());
        for op in ALL_OPS {
            for dt in DType::REAL {
                if let Ok(name) = kernel_name(op, dt) {
                    assert!(UNARY.functions.contains(&name.as_str()), "{name}");
                }
                if let Ok(name) = backward_kernel_name(op, dt) {
                    assert!(UNARY.functions.contains(&name.as_str()), "{name}");
                }
            }
        }
    }

    #[test]
    fn dtype_rules_follow_the_cpu() {
        assert_eq!(unary_out_dtype(Exp, DType::I32).unwrap(), DType::F32);
        assert_eq!(unary_out_dtype(Neg, DType::I8).unwrap(), DType::I8);
        assert_eq!(unary_out_dtype(Sign, DType::Bool).unwrap(), DType::Bool);
        assert_eq!(unary_out_dtype(Sqrt, DType::Bool).unwrap(), DType::F32);
        assert_eq!(unary_out_dtype(Exp, DType::BF16).unwrap(), DType::BF16);
        assert!(unary_out_dtype(Neg, DType::Bool).is_err());
        assert!(unary_out_dtype(Gelu, DType::I64).is_err());
        assert_eq!(kernel_name(Exp, DType::U8).unwrap(), "unary_u8_f32");
        assert!(backward_kernel_name(Exp, DType::F32).is_err());
    }
}

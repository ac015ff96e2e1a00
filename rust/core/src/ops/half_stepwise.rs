//! PyTorch's float16/bfloat16 binary kernels that round every intermediate step to the half
//! type (its `Vectorized<Half>` arithmetic and `std::log(Half)` return half values), where
//! ferrotorch otherwise computes in float32 and rounds once. Matching them keeps `//`,
//! truncating division and `xlogy` of half tensors equal to PyTorch's to the last bit.

use crate::cpu::parallel::{zip, Src};
use crate::ops::binary::BinaryOp;
use crate::DType;

fn is_half(dt: DType) -> bool {
    matches!(dt, DType::F16 | DType::BF16)
}

/// Whether PyTorch's half kernel for `op` takes its one-element right operand at its original
/// value in float32 (multiply and the divisions; half * int64(70000) multiplies by 70000).
pub(crate) fn takes_original_scalar(op: BinaryOp, common: DType, right_numel: usize) -> bool {
    use BinaryOp::*;
    is_half(common) && matches!(op, Mul | Div | TruncDiv | FloorDiv) && right_numel == 1
}

/// Whether `op` on a half `common` dtype takes the stepwise path; a one-element divisor
/// takes the original-scalar path instead (it divides in float32).
pub(crate) fn applies(op: BinaryOp, common: DType, divisor_numel: usize) -> bool {
    match op {
        BinaryOp::Xlogy => is_half(common),
        BinaryOp::FloorDiv | BinaryOp::TruncDiv => {
            is_half(common) && !takes_original_scalar(op, common, divisor_numel)
        }
        _ => false,
    }
}

/// Rounding to the nearest value of a dtype that computes in float32 (None for others).
pub(crate) fn rounder(dt: DType) -> Option<fn(f32) -> f32> {
    match dt {
        DType::F32 => Some(|x| x),
        DType::F16 => Some(|x| half::f16::from_f32(x).to_f32()),
        DType::BF16 => Some(|x| half::bf16::from_f32(x).to_f32()),
        _ => None,
    }
}

/// Runs `op` over float32 sources holding half values, rounding each step with `common`'s type.
pub(crate) fn run(op: BinaryOp, a: Src<f32>, b: Src<f32>, out: &mut [f32], common: DType) {
    let r = rounder(common).expect("a half common dtype");
    match op {
        BinaryOp::Xlogy => zip(a, b, out, |x, y| {
            if y.is_nan() {
                y
            } else if x == 0.0 {
                0.0
            } else {
                r(x * r(y.ln()))
            }
        }),
        BinaryOp::TruncDiv => zip(a, b, out, |x, y| r(x / y).trunc()),
        BinaryOp::FloorDiv => zip(a, b, out, |x, y| floor_div(x, y, r)),
        _ => unreachable!("no stepwise half kernel for {op:?}"),
    }
}

/// Python's float `//` as PyTorch's vectorized kernel computes it, each step in the half type.
fn floor_div(a: f32, b: f32, r: fn(f32) -> f32) -> f32 {
    let quotient = r(a / b);
    if b == 0.0 {
        return quotient;
    }
    // Exact: fmod of half values is a half value. Where the quotient overflows, `a - m` would
    // lose `a`; the kernel divides `a` itself.
    let m = a % b;
    let floor = if quotient.is_infinite() && !a.is_infinite() {
        a
    } else {
        r(a - m)
    };
    let mut d = r(floor / b);
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        d = r(d - 1.0);
    }
    if d == 0.0 {
        return 0.0f32.copysign(quotient);
    }
    let f = d.floor();
    if r(d - f) > 0.5 {
        r(f + 1.0)
    } else {
        f
    }
}

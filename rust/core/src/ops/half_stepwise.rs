//! PyTorch's float16/bfloat16 binary kernels that round every intermediate step to the half
//! type (its `Vectorized<Half>` arithmetic and `std::log(Half)` return half values), where
//! ferrotorch otherwise computes in float32 and rounds once. Matching them keeps `//`,
//! truncating division and `xlogy` of half tensors equal to PyTorch's to the last bit.

use crate::cpu::parallel::{zip, Src};
use crate::ops::binary::BinaryOp;
use crate::DType;

/// Whether `op` on a half `common` dtype takes the stepwise path. A one-element divisor
/// does not: PyTorch's scalar path divides in float32 by the divisor's original value.
pub(crate) fn applies(op: BinaryOp, common: DType, divisor_numel: usize) -> bool {
    let half = matches!(common, DType::F16 | DType::BF16);
    match op {
        BinaryOp::Xlogy => half,
        BinaryOp::FloorDiv | BinaryOp::TruncDiv => half && divisor_numel != 1,
        _ => false,
    }
}

/// Rounds a float32 to the nearest value of the half type `dt`.
fn rounder(dt: DType) -> fn(f32) -> f32 {
    match dt {
        DType::F16 => |x| half::f16::from_f32(x).to_f32(),
        _ => |x| half::bf16::from_f32(x).to_f32(),
    }
}

/// Runs `op` over float32 sources holding half values, rounding each step with `common`'s type.
pub(crate) fn run(op: BinaryOp, a: Src<f32>, b: Src<f32>, out: &mut [f32], common: DType) {
    let r = rounder(common);
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
    let m = a % b; // exact: fmod of half values is a half value
                   // Where the quotient overflows, `a - m` would lose `a`; the kernel divides `a` itself.
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

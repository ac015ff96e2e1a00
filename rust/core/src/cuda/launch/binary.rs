//! Elementwise binary ops (kernels/binary.cu) with the dtype rules of
//! `ops::binary::binary_forward`.

use super::ew::{check_view, coalesce, launch, scalar_args};
use super::{suffix, Kernels, Strided};
use crate::cuda::kernels::elementwise::BINARY;
use crate::ops::BinaryOp;
use crate::{DType, Error, Result, Scalar};
use cudarc::driver::CudaStream;

/// The op code binary.cu switches on.
pub fn binary_code(op: BinaryOp) -> i32 {
    use BinaryOp::*;
    match op {
        Add => 0,
        Sub => 1,
        Mul => 2,
        Div => 3,
        FloorDiv => 4,
        Rem => 5,
        Pow => 6,
        Maximum => 7,
        Minimum => 8,
        Atan2 => 9,
        BitAnd => 10,
        BitOr => 11,
        BitXor => 12,
        Shl => 13,
        Shr => 14,
        Eq => 15,
        Ne => 16,
        Lt => 17,
        Le => 18,
        Gt => 19,
        Ge => 20,
        LogicalAnd => 21,
        LogicalOr => 22,
        LogicalXor => 23,
        Fmod => 24,
        TruncDiv => 25,
        Hypot => 26,
        Copysign => 27,
        Xlogy => 28,
        LogAddExp => 29,
    }
}

/// Comparisons and logical ops: their output is bool.
pub fn is_compare(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(
        op,
        Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
    )
}

fn is_bitwise(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, BitAnd | BitOr | BitXor | Shl | Shr)
}

/// Ops whose integer (and bool) inputs compute, and return, in float32 on the CPU.
pub fn int_to_float(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Div | Atan2 | Copysign | Xlogy)
}

/// The dtype the inputs must be cast to for `op` when their promoted dtype is `common`
/// (`torch.result_type`): float32 for div/atan2/copysign/xlogy of integers and bools, else
/// `common`. The output dtype is bool for comparisons, else this dtype.
pub fn input_dtype(op: BinaryOp, common: DType) -> DType {
    if int_to_float(op) && !common.is_float() {
        DType::F32
    } else {
        common
    }
}

/// The checks `binary_forward` makes for a compute dtype, with its messages. (Subtracting a
/// bool tensor from a float one is refused by the CPU too; that needs the input dtypes and
/// stays with the caller.)
pub fn check_dtype(op: BinaryOp, dt: DType) -> Result<()> {
    use BinaryOp::*;
    let name = op.name();
    if is_bitwise(op) && dt.is_float() {
        return Err(Error::runtime(format!(
            "\"{name}_cuda\" not implemented for '{}'",
            dt.name()
        )));
    }
    if dt == DType::Bool {
        if op == Sub {
            return Err(Error::runtime(
                "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use \
                 the `^` or `logical_xor()` operator instead.",
            ));
        }
        if matches!(op, Pow | Shl | Shr | Fmod | TruncDiv | Rem | FloorDiv) {
            return Err(Error::runtime(format!(
                "{name}: \"{name}_cuda\" not implemented for 'Bool'"
            )));
        }
    }
    if matches!(op, Hypot | LogAddExp) && !dt.is_float() {
        return Err(Error::runtime(format!(
            "{name}: \"{name}_cuda\" not implemented for '{}' (expected floating point inputs)",
            dt.name()
        )));
    }
    if int_to_float(op) && !dt.is_float() {
        return Err(Error::type_error(format!(
            "{name}: integer and bool inputs compute in float32; cast them first \
             (see cuda::launch::binary::input_dtype), got {}",
            dt.name()
        )));
    }
    Ok(())
}

/// The kernel `binary` (`scalar = false`) or `binary_scalar` (`scalar = true`) runs, after
/// checking the dtypes: `dtype` the compute dtype, `dst_dtype` bool for comparisons and
/// `dtype` otherwise.
pub fn kernel_name(op: BinaryOp, dtype: DType, dst_dtype: DType, scalar: bool) -> Result<String> {
    check_dtype(op, dtype)?;
    let want = if is_compare(op) { DType::Bool } else { dtype };
    if dst_dtype != want {
        return Err(Error::type_error(format!(
            "{}: the CUDA kernel for {} inputs writes {}, not {}",
            op.name(),
            dtype.name(),
            want.name(),
            dst_dtype.name()
        )));
    }
    let base = match (is_compare(op), scalar) {
        (false, false) => "binary",
        (true, false) => "compare",
        (false, true) => "binary_scalar",
        (true, true) => "compare_scalar",
    };
    Ok(format!("{base}_{}", suffix(dtype)))
}

/// `dst = a op b` elementwise. `dtype` is the compute dtype: both inputs are already in it
/// (see `input_dtype`); `a_view` and `b_view` (base pointers `a`, `b`, offsets in elements)
/// are broadcast to the output shape (stride 0 on broadcast dimensions) and cover `n`
/// elements; `dst` is contiguous, pointer at element 0, of `dst_dtype` (bool for
/// comparisons and logical ops, else `dtype`).
///
/// Semantics are the CPU's: floating dtypes compute in f32 (half types) or f64, integers and
/// bool in i64 wrapping back; floor_divide and remainder follow Python's signs, fmod and
/// trunc division C's; maximum/minimum propagate NaN; integer pow by square-and-multiply
/// (negative exponents give 0 except for bases 1 and -1); shifts by < 0 or >= 64 give 0
/// (right shift of a negative gives -1). Integer division by zero writes 0 where the CPU
/// raises ZeroDivisionError: callers that must raise check the divisor first.
#[allow(clippy::too_many_arguments)]
pub fn binary(
    k: &dyn Kernels,
    stream: &CudaStream,
    op: BinaryOp,
    dtype: DType,
    a: u64,
    a_view: &Strided,
    b: u64,
    b_view: &Strided,
    dst: u64,
    dst_dtype: DType,
    n: usize,
) -> Result<()> {
    let name = kernel_name(op, dtype, dst_dtype, false)?;
    check_view(op.name(), "first input", a_view, n)?;
    check_view(op.name(), "second input", b_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (code, av, bv, n64) = (
        binary_code(op),
        coalesce(a_view),
        coalesce(b_view),
        n as i64,
    );
    launch!(
        k,
        stream,
        &BINARY,
        name,
        n,
        [&code, &a, &av, &b, &bv, &dst, &n64]
    );
    Ok(())
}

/// `dst = a op scalar` (or `scalar op a` with `scalar_first`, for `2 - x`), with no device
/// scalar tensor. The scalar is converted to `dtype` first, as the CPU's
/// `Tensor::scalar(s, dtype)` does; `dtype` is the promoted compute dtype (for an integer
/// tensor and a float scalar, float32: cast `a` first). Otherwise as `binary`. Integer `pow`
/// with a negative integer scalar exponent is refused, as on the CPU.
#[allow(clippy::too_many_arguments)]
pub fn binary_scalar(
    k: &dyn Kernels,
    stream: &CudaStream,
    op: BinaryOp,
    dtype: DType,
    a: u64,
    a_view: &Strided,
    scalar: Scalar,
    scalar_first: bool,
    dst: u64,
    dst_dtype: DType,
    n: usize,
) -> Result<()> {
    if op == BinaryOp::Pow
        && !scalar_first
        && !dtype.is_float()
        && matches!(scalar, Scalar::Int(v) if v < 0)
    {
        return Err(Error::runtime(
            "pow: Integers to negative integer powers are not allowed.",
        ));
    }
    let name = kernel_name(op, dtype, dst_dtype, true)?;
    check_view(op.name(), "input", a_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (sf, si) = scalar_args(dtype, scalar);
    let first = i32::from(scalar_first);
    let (code, av, n64) = (binary_code(op), coalesce(a_view), n as i64);
    launch!(
        k,
        stream,
        &BINARY,
        name,
        n,
        [&code, &a, &av, &sf, &si, &first, &dst, &n64]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinaryOp::*;

    const ALL_OPS: [BinaryOp; 30] = [
        Add, Sub, Mul, Div, FloorDiv, Rem, Pow, Maximum, Minimum, Atan2, BitAnd, BitOr, BitXor,
        Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor, Fmod, TruncDiv, Hypot,
        Copysign, Xlogy, LogAddExp,
    ];

    #[test]
    fn every_binary_kernel_name_exists() {
        let mut codes: Vec<i32> = ALL_OPS.iter().map(|&o| binary_code(o)).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes, (0..30).collect::<Vec<_>>());
        for op in ALL_OPS {
            for dt in DType::REAL {
                let out = if is_compare(op) { DType::Bool } else { dt };
                for scalar in [false, true] {
                    if let Ok(name) = kernel_name(op, dt, out, scalar) {
                        assert!(BINARY.functions.contains(&name.as_str()), "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn dtype_rules_follow_the_cpu() {
        assert!(kernel_name(Sub, DType::Bool, DType::Bool, false).is_err());
        assert!(kernel_name(BitAnd, DType::F32, DType::F32, false).is_err());
        assert!(kernel_name(Hypot, DType::I64, DType::I64, false).is_err());
        assert!(kernel_name(Div, DType::I32, DType::I32, false).is_err());
        assert_eq!(input_dtype(Div, DType::I32), DType::F32);
        assert_eq!(input_dtype(Add, DType::I32), DType::I32);
        assert!(kernel_name(Lt, DType::F16, DType::F16, false).is_err());
        assert_eq!(
            kernel_name(Lt, DType::F16, DType::Bool, true).unwrap(),
            "compare_scalar_f16"
        );
        assert_eq!(
            kernel_name(Add, DType::Bool, DType::Bool, false).unwrap(),
            "binary_bool"
        );
    }
}

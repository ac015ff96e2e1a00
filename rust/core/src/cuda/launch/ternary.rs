//! Selections and fused pointwise ops with several inputs (kernels/ternary.cu): `where`,
//! `masked_fill`, `clamp` with scalar bounds, `lerp`, `addcmul`, `addcdiv`.
//!
//! Every input is a base pointer and a view (offset in elements) broadcast to the output
//! shape (stride 0 on broadcast dimensions) covering `n` elements; `dst` is contiguous,
//! pointer at element 0, of `dtype`. Scalars are converted to `dtype` first, as the CPU's
//! `Tensor::scalar(s, dtype)` does.

use super::ew::{check_view, coalesce, launch, round_to, scalar_args, unsupported};
use super::{suffix, Kernels, Strided};
use crate::cuda::kernels::elementwise::TERNARY;
use crate::{DType, Error, Result, Scalar};
use cudarc::driver::CudaStream;

/// The kernel for `op` ("where", "masked_fill", "clamp", "lerp", "addcmul", "addcdiv") on
/// `dtype`, or the error for a dtype the op does not take.
pub fn kernel_name(op: &str, dtype: DType) -> Result<String> {
    let ok = match op {
        "where" | "masked_fill" => true,
        "clamp" | "addcmul" => dtype != DType::Bool,
        "lerp" | "addcdiv" => dtype.is_float(),
        _ => return Err(Error::runtime(format!("no elementwise CUDA kernel {op}"))),
    };
    if !ok {
        if op == "addcdiv" && dtype != DType::Bool {
            return Err(Error::runtime(
                "addcdiv: Integer division with addcdiv is no longer supported, and in a future \
                 release addcdiv will perform a true division of tensor1 and tensor2.",
            ));
        }
        return Err(unsupported(op, dtype));
    }
    Ok(format!("{op}_{}", suffix(dtype)))
}

/// `torch.where(cond, a, b)`: `dst = cond ? a : b`. `cond` is bool or uint8 (nonzero is
/// true); `a` and `b` are already in `dtype` (their promoted dtype).
#[allow(clippy::too_many_arguments)]
pub fn where_(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    cond: u64,
    cond_view: &Strided,
    a: u64,
    a_view: &Strided,
    b: u64,
    b_view: &Strided,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = kernel_name("where", dtype)?;
    check_view("where", "condition", cond_view, n)?;
    check_view("where", "first input", a_view, n)?;
    check_view("where", "second input", b_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (cv, av, bv, n64) = (
        coalesce(cond_view),
        coalesce(a_view),
        coalesce(b_view),
        n as i64,
    );
    launch!(
        k,
        stream,
        &TERNARY,
        name,
        n,
        [&cond, &cv, &a, &av, &b, &bv, &dst, &n64]
    );
    Ok(())
}

/// `masked_fill(mask, value)`: `dst = mask ? value : x`, `mask` bool (or uint8).
#[allow(clippy::too_many_arguments)]
pub fn masked_fill(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    x_view: &Strided,
    mask: u64,
    mask_view: &Strided,
    value: Scalar,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = kernel_name("masked_fill", dtype)?;
    check_view("masked_fill", "input", x_view, n)?;
    check_view("masked_fill", "mask", mask_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (vf, vi) = scalar_args(dtype, value);
    let (xv, mv, n64) = (coalesce(x_view), coalesce(mask_view), n as i64);
    launch!(
        k,
        stream,
        &TERNARY,
        name,
        n,
        [&x, &xv, &mask, &mv, &vf, &vi, &dst, &n64]
    );
    Ok(())
}

/// `clamp(min, max)` with scalar bounds: `minimum(maximum(x, min), max)` as the CPU composes
/// it, so NaN (in x or a bound) propagates and min > max gives max. `dtype` is the input's
/// dtype after the CPU's promotion (float32 for an integer tensor with a float bound: cast
/// first); not bool. At least one bound is required.
#[allow(clippy::too_many_arguments)]
pub fn clamp(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    x_view: &Strided,
    min: Option<Scalar>,
    max: Option<Scalar>,
    dst: u64,
    n: usize,
) -> Result<()> {
    if min.is_none() && max.is_none() {
        return Err(Error::runtime(
            "clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    if dtype == DType::Bool {
        return Err(Error::runtime(
            "clamp: \"clamp_cuda\" not implemented for 'Bool'",
        ));
    }
    if !dtype.is_float()
        && [min, max]
            .iter()
            .any(|b| matches!(b, Some(Scalar::Float(_))))
    {
        return Err(Error::type_error(format!(
            "clamp: a float bound with a {} tensor computes in float32; cast it first",
            dtype.name()
        )));
    }
    let name = kernel_name("clamp", dtype)?;
    check_view("clamp", "input", x_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (has_min, has_max) = (i32::from(min.is_some()), i32::from(max.is_some()));
    let (minf, mini) = min.map_or((0.0, 0), |s| scalar_args(dtype, s));
    let (maxf, maxi) = max.map_or((0.0, 0), |s| scalar_args(dtype, s));
    let (xv, n64) = (coalesce(x_view), n as i64);
    launch!(
        k,
        stream,
        &TERNARY,
        name,
        n,
        [&x, &xv, &has_min, &minf, &mini, &has_max, &maxf, &maxi, &dst, &n64]
    );
    Ok(())
}

/// `lerp(a, b, w)` for a scalar weight: `a + w * (b - a)`, rounded to `dtype` after each
/// operation as the CPU's composition of ops does; floating dtypes only.
#[allow(clippy::too_many_arguments)]
pub fn lerp(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    a: u64,
    a_view: &Strided,
    b: u64,
    b_view: &Strided,
    w: f64,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = kernel_name("lerp", dtype)?;
    check_view("lerp", "input", a_view, n)?;
    check_view("lerp", "end", b_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let w = round_to(dtype, w);
    let (av, bv, n64) = (coalesce(a_view), coalesce(b_view), n as i64);
    launch!(
        k,
        stream,
        &TERNARY,
        name,
        n,
        [&a, &av, &b, &bv, &w, &dst, &n64]
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn addc(
    op: &str,
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    x_view: &Strided,
    t1: u64,
    t1_view: &Strided,
    t2: u64,
    t2_view: &Strided,
    value: Scalar,
    dst: u64,
    n: usize,
) -> Result<()> {
    let name = kernel_name(op, dtype)?;
    if !dtype.is_float() && matches!(value, Scalar::Float(_)) {
        return Err(Error::type_error(format!(
            "{op}: a float value with {} tensors computes in float32; cast them first",
            dtype.name()
        )));
    }
    check_view(op, "input", x_view, n)?;
    check_view(op, "tensor1", t1_view, n)?;
    check_view(op, "tensor2", t2_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (vf, vi) = scalar_args(dtype, value);
    let (xv, v1, v2, n64) = (
        coalesce(x_view),
        coalesce(t1_view),
        coalesce(t2_view),
        n as i64,
    );
    launch!(
        k,
        stream,
        &TERNARY,
        name,
        n,
        [&x, &xv, &t1, &v1, &t2, &v2, &vf, &vi, &dst, &n64]
    );
    Ok(())
}

/// `addcmul(x, t1, t2, value)`: `x + (value * t1) * t2`, rounded to `dtype` after each
/// operation (as the Python composition on the CPU). Floating and integer dtypes (an integer
/// dtype takes an integer or bool value).
#[allow(clippy::too_many_arguments)]
pub fn addcmul(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    x_view: &Strided,
    t1: u64,
    t1_view: &Strided,
    t2: u64,
    t2_view: &Strided,
    value: Scalar,
    dst: u64,
    n: usize,
) -> Result<()> {
    addc(
        "addcmul", k, stream, dtype, x, x_view, t1, t1_view, t2, t2_view, value, dst, n,
    )
}

/// `addcdiv(x, t1, t2, value)`: `x + (value * t1) / t2`, rounded to `dtype` after each
/// operation; floating dtypes only (PyTorch refuses integer addcdiv).
#[allow(clippy::too_many_arguments)]
pub fn addcdiv(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    x_view: &Strided,
    t1: u64,
    t1_view: &Strided,
    t2: u64,
    t2_view: &Strided,
    value: Scalar,
    dst: u64,
    n: usize,
) -> Result<()> {
    addc(
        "addcdiv", k, stream, dtype, x, x_view, t1, t1_view, t2, t2_view, value, dst, n,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ternary_kernel_name_exists() {
        for op in [
            "where",
            "masked_fill",
            "clamp",
            "lerp",
            "addcmul",
            "addcdiv",
        ] {
            let mut any = false;
            for dt in DType::REAL {
                if let Ok(name) = kernel_name(op, dt) {
                    any = true;
                    assert!(TERNARY.functions.contains(&name.as_str()), "{name}");
                }
            }
            assert!(any, "{op}");
        }
        assert!(kernel_name("clamp", DType::Bool).is_err());
        assert!(kernel_name("addcdiv", DType::I64).is_err());
        assert!(kernel_name("lerp", DType::I64).is_err());
    }
}

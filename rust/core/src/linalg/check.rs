//! Input checks shared by the linalg ops, in PyTorch's order and words.

use crate::{bail, DType, Error, Result, Tensor};

/// PyTorch's C++ name of a dtype, as its linalg messages print it ("Float", "Long").
pub(crate) fn scalar_type_name(dt: DType) -> &'static str {
    // Matched by name, so that dtypes added later fall through to their Python name.
    match dt.name() {
        "float32" => "Float",
        "float64" => "Double",
        "float16" => "Half",
        "bfloat16" => "BFloat16",
        "int64" => "Long",
        "int32" => "Int",
        "int16" => "Short",
        "int8" => "Char",
        "uint8" => "Byte",
        "bool" => "Bool",
        other => other,
    }
}

/// float32 and float64 have kernels; other dtypes raise NotImplementedError as in PyTorch.
pub(crate) fn float_dtype(op: &str, t: &Tensor) -> Result<()> {
    match t.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        dt @ (DType::F16 | DType::BF16) => Err(Error::NotImplemented(format!(
            "{op}: Low precision dtypes not supported. Got {}",
            scalar_type_name(dt)
        ))),
        dt if dt.is_complex() => Err(Error::complex_unsupported(op, dt)),
        dt => Err(Error::NotImplemented(format!(
            "{op}: Expected a floating point or complex tensor as input. Got {}",
            scalar_type_name(dt)
        ))),
    }
}

/// At least two dims: `name` is the argument's name in PyTorch's signature ("A", "B").
pub(crate) fn at_least_2d(op: &str, t: &Tensor, name: &str) -> Result<()> {
    if t.ndim() < 2 {
        bail!(
            Runtime,
            "{op}: The input tensor {name} must have at least 2 dimensions."
        );
    }
    Ok(())
}

/// `[..., n, n]` matrices.
pub(crate) fn square(op: &str, t: &Tensor, name: &str) -> Result<()> {
    let nd = t.ndim();
    let (m, n) = (t.shape()[nd - 2], t.shape()[nd - 1]);
    if m != n {
        bail!(
            Runtime,
            "{op}: {name} must be batches of square matrices, but they are {m} by {n} matrices"
        );
    }
    Ok(())
}

/// A float batch of square matrices: the checks of linalg.inv, det, cholesky ...
pub(crate) fn square_float(op: &str, t: &Tensor) -> Result<()> {
    at_least_2d(op, t, "A")?;
    square(op, t, "A")?;
    float_dtype(op, t)
}

/// Two operands of one dtype, as the solvers need.
pub(crate) fn same_dtype(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        bail!(
            Runtime,
            "{op}: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
            scalar_type_name(a.dtype()),
            scalar_type_name(b.dtype())
        );
    }
    Ok(())
}

/// The "(Batch element i): " that PyTorch puts before errors about one matrix of a batch.
pub(crate) fn batch_prefix(ndim: usize, index: usize) -> String {
    if ndim > 2 {
        format!("(Batch element {index}): ")
    } else {
        String::new()
    }
}

/// The first failed matrix of a batch of LAPACK-style info codes (0 means success).
pub(crate) fn first_failure(info: &[i32]) -> Option<(usize, i32)> {
    info.iter()
        .enumerate()
        .find(|(_, &i)| i != 0)
        .map(|(b, &i)| (b, i))
}

/// The dtype check of ops whose PyTorch kernel names itself for unsupported dtypes
/// (`"linalg_eigh_cpu" not implemented for 'Long'`).
pub(crate) fn kernel_dtype(kernel: &str, t: &Tensor) -> Result<()> {
    if matches!(t.dtype(), DType::F32 | DType::F64) {
        return Ok(());
    }
    Err(Error::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        scalar_type_name(t.dtype())
    )))
}

/// Whether every element is finite (NaN and inf make the iterative solvers fail).
pub(crate) fn all_finite(t: &Tensor) -> Result<bool> {
    Ok(t.try_to_vec::<f64>()?.iter().all(|x| x.is_finite()))
}

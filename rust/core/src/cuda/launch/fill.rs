//! Constant fills and ranges (kernels/fill.cu): `full`, `zeros`, `fill_`, `arange`,
//! `linspace`.

use super::ew::{check_view, coalesce, launch, scalar_args};
use super::{suffix, Kernels, Strided};
use crate::cuda::kernels::elementwise::FILL;
use crate::{DType, Result, Scalar};
use cudarc::driver::CudaStream;

/// Sets every element of the view (`n` elements, base pointer `dst`, offset in elements) to
/// `value` converted to `dtype` as the CPU's `Tensor::full` does (`Scalar::to_elem`: floats
/// rounded, float to int truncated and saturated, to bool `!= 0`).
pub fn fill(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    view: &Strided,
    dtype: DType,
    value: Scalar,
    n: usize,
) -> Result<()> {
    check_view("fill", "destination", view, n)?;
    if n == 0 {
        return Ok(());
    }
    let v = coalesce(view);
    let (fv, iv) = scalar_args(dtype, value);
    let n64 = n as i64;
    let name = format!("fill_{}", suffix(dtype));
    launch!(k, stream, &FILL, name, n, [&dst, &v, &fv, &iv, &n64]);
    Ok(())
}

/// `arange`: `dst` (contiguous, pointer at element 0) gets `n` values `start + i * step`,
/// computed in f64 and then rounded to a floating dtype, or truncated to i64 and wrapped for
/// integer dtypes and bool, as `Tensor::arange` does. The caller computes `n` (PyTorch's
/// `ceil((end - start) / step)`) and checks the arguments.
pub fn arange(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    start: f64,
    step: f64,
    n: usize,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    let name = format!("arange_{}", suffix(dtype));
    launch!(k, stream, &FILL, name, n, [&dst, &start, &step, &n64]);
    Ok(())
}

/// `linspace`: `dst` (contiguous, pointer at element 0) gets `steps` values from both ends as
/// `Tensor::linspace` computes them: with `step = (end - start) / (steps - 1)`, element i is
/// `start + step * i` in the first half and `end - step * (steps - 1 - i)` in the second.
pub fn linspace(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    start: f64,
    end: f64,
    steps: usize,
) -> Result<()> {
    if steps == 0 {
        return Ok(());
    }
    let step = if steps > 1 {
        (end - start) / (steps - 1) as f64
    } else {
        0.0
    };
    let n64 = steps as i64;
    let name = format!("linspace_{}", suffix(dtype));
    launch!(
        k,
        stream,
        &FILL,
        name,
        steps,
        [&dst, &start, &end, &step, &n64]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fill_kernel_name_exists() {
        for d in DType::REAL {
            for base in ["fill", "arange", "linspace"] {
                let name = format!("{base}_{}", suffix(d));
                assert!(FILL.functions.contains(&name.as_str()), "{name}");
            }
        }
    }
}

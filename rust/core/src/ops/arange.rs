//! `arange` with PyTorch's checks and arithmetic: a finite nonzero step, finite bounds on the
//! step's side, a length that fits int64; int64 ranges are sized and filled in wrapping int64
//! arithmetic (PyTorch's accumulate type), so huge int bounds give PyTorch's answer.

use crate::error::InOp;
use crate::{bail, with_dtype, DType, Element, Result, Scalar, Tensor};

/// A bound as int64, refusing floats outside its range (c10's checked Scalar conversion).
fn as_i64(s: Scalar) -> Result<i64> {
    match s {
        Scalar::Float(f) | Scalar::Complex(f, _)
            if !(f >= -(2f64.powi(63)) && f < 2f64.powi(63)) =>
        {
            bail!(
                Runtime,
                "arange: value cannot be converted to type int64_t without overflow"
            )
        }
        s => Ok(s.to_i64()),
    }
}

fn invalid_size() -> crate::Error {
    crate::Error::runtime("arange: invalid size, possible overflow?")
}

/// The length of an int64 range: ceil((end - start) / step) as PyTorch computes it in int64.
fn i64_len(start: i64, end: i64, step: i64) -> Result<usize> {
    let sgn = step.signum();
    let num = end.wrapping_sub(start).wrapping_add(step).wrapping_sub(sgn);
    let n = num.wrapping_div(step);
    usize::try_from(n).map_err(|_| invalid_size())
}

impl Tensor {
    /// `arange(start, end, step)` from Python numbers; the length is ceil((end - start) / step).
    pub fn arange_scalars(
        start: Scalar,
        end: Scalar,
        step: Scalar,
        dtype: DType,
    ) -> Result<Tensor> {
        if [start, end, step]
            .iter()
            .any(|s| matches!(s, Scalar::Complex(_, im) if *im != 0.0))
        {
            bail!(
                Runtime,
                "arange: value cannot be converted to type double without overflow"
            );
        }
        let (a, b, d) = (start.to_f64(), end.to_f64(), step.to_f64());
        if !d.is_finite() {
            bail!(Runtime, "arange: step must be finite but got {d}");
        }
        if d == 0.0 {
            bail!(Runtime, "arange: step must be nonzero");
        }
        if !a.is_finite() || !b.is_finite() {
            bail!(Runtime, "arange: unsupported range: {a} -> {b}");
        }
        if (d > 0.0 && b < a) || (d < 0.0 && b > a) {
            bail!(
                Runtime,
                "arange: upper bound and lower bound inconsistent with step sign"
            );
        }
        if dtype.is_complex() {
            return Err(crate::Error::complex_unsupported("arange_cpu", dtype));
        }
        if dtype == DType::I64 {
            let (a, b, d) = (as_i64(start)?, as_i64(end)?, as_i64(step)?);
            if d == 0 {
                bail!(Runtime, "arange: step must be nonzero");
            }
            let t = Tensor::uninit(&[i64_len(a, b, d)?], dtype).op("arange")?;
            let o: &mut [i64] = unsafe { t.contiguous_slice_mut() };
            for (i, v) in o.iter_mut().enumerate() {
                *v = a.wrapping_add((i as i64).wrapping_mul(d));
            }
            return Ok(t);
        }
        let n = ((b - a) / d).ceil();
        if !(n >= 0.0 && n <= i64::MAX as f64) {
            return Err(invalid_size());
        }
        let t = Tensor::uninit(&[n as usize], dtype).op("arange")?;
        with_dtype!(dtype, T => {
            let o: &mut [T] = unsafe { t.contiguous_slice_mut() };
            for (i, v) in o.iter_mut().enumerate() {
                *v = if dtype.is_float() { T::from_f64(a + i as f64 * d) } else { T::from_i64((a + i as f64 * d) as i64) };
            }
        });
        Ok(t)
    }
}

//! `clamp` with number bounds and with tensor bounds.

use crate::autograd::record;
use crate::ops::BinaryOp;
use crate::{bail, DType, Result, Scalar, Tensor};

/// The dtype `clamp` computes in, as PyTorch's clamp.Scalar decides it: a float tensor keeps
/// its dtype (a complex bound does not fit it), any other promotes with the bounds (a bool
/// tensor with int bounds becomes int64); complex and bool results have no kernel.
fn clamp_dtype(dt: DType, min: Option<Scalar>, max: Option<Scalar>) -> Result<DType> {
    use crate::dtype::{result_type, Operand};
    let complex =
        || crate::Error::NotImplemented("clamp is not supported for complex types".into());
    if dt.is_complex() {
        return Err(complex());
    }
    if dt.is_float() {
        // clamp_bounds refuses a bound the dtype cannot hold (a complex one among them).
        return Ok(dt);
    }
    let mut ops = vec![Operand::Dim(dt)];
    ops.extend(
        min.into_iter()
            .chain(max)
            .map(|s| Operand::Scalar(s.category())),
    );
    match result_type(&ops, DType::F32) {
        d if d.is_complex() => Err(complex()),
        DType::Bool => bail!(
            NotImplemented,
            "clamp: \"clamp_scalar_cpu\" not implemented for 'Bool'"
        ),
        d => Ok(d),
    }
}

impl Tensor {
    /// `clamp(min, max)` with tensor bounds (either may be absent): `minimum(maximum(x, min),
    /// max)`, so the result dtype promotes and gradients reach the bounds too; ties split the
    /// gradient evenly between the input and the bound, as PyTorch's maximum/minimum do.
    pub fn clamp_t(&self, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            bail!(
                Runtime,
                "clamp: At least one of 'min' or 'max' must not be None"
            );
        }
        let complex = self.dtype().is_complex()
            || min.is_some_and(|t| t.dtype().is_complex())
            || max.is_some_and(|t| t.dtype().is_complex());
        if complex {
            bail!(NotImplemented, "clamp is not supported for complex types");
        }
        if let (Some(lo), Some(hi)) = (min, max) {
            let dt = crate::dtype::promote_types(
                crate::dtype::promote_types(self.dtype(), lo.dtype()),
                hi.dtype(),
            );
            if dt == DType::Bool {
                // One bound alone is maximum/minimum, which take bools; both need clamp's kernel.
                bail!(
                    NotImplemented,
                    "clamp: \"clamp_cpu\" not implemented for 'Bool'"
                );
            }
        }
        let mut out = self.clone();
        if let Some(lo) = min {
            out = out.binary(BinaryOp::Maximum, lo)?;
        }
        if let Some(hi) = max {
            out = out.binary(BinaryOp::Minimum, hi)?;
        }
        Ok(out)
    }

    /// `clamp` with Python-number bounds (bounds take the tensor's dtype, or the default float
    /// type for an integer tensor with a float bound). The gradient is 1 strictly inside
    /// (min, max) and 0 at and beyond the bounds: PyTorch's minimum-norm subgradient.
    pub fn clamp(&self, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            bail!(
                Runtime,
                "clamp: At least one of 'min' or 'max' must not be None"
            );
        }
        let dt = clamp_dtype(self.dtype(), min, max)?;
        let x = self.to_dtype(dt)?;
        let imaginary = |s: &Scalar| s.to_complex().1 != 0.0;
        if dt.is_float() && [min, max].iter().flatten().any(imaginary) {
            // PyTorch reads each bound as a double before anything else, NaN bounds included.
            bail!(
                Runtime,
                "clamp: value cannot be converted to type double without overflow"
            );
        }
        let nan_bound = [min, max].iter().flatten().any(|s| s.to_f64().is_nan());
        if dt.is_float() && min.is_some() && max.is_some() && nan_bound {
            // PyTorch fills NaN when either of two bounds is NaN, before it converts the other
            // (so clamp(bf16, nan, 1e300) is NaN, not an overflow error); no gradient flows.
            let out =
                Tensor::full(self.shape(), Scalar::Float(f64::NAN), dt)?.to_device(x.device())?;
            return Ok(record("ClampBackward1", out, &[&x], &[], false, |g, _| {
                Ok(vec![Some(g.zeros_like()?)])
            }));
        }
        let (min, max) = crate::scalar_range::clamp_bounds(dt, min, max)?;
        let lo = min.map(|s| Tensor::scalar(s, dt));
        let hi = max.map(|s| Tensor::scalar(s, dt));
        let xd = x.detach();
        let mut out = xd.clone();
        if let Some(lo) = &lo {
            out = crate::ops::binary::binary_forward(BinaryOp::Maximum, &out, lo)?;
        }
        if let Some(hi) = &hi {
            out = crate::ops::binary::binary_forward(BinaryOp::Minimum, &out, hi)?;
        }
        if !out.dtype().is_float() {
            return Ok(out);
        }
        Ok(record(
            "ClampBackward1",
            out,
            &[&x],
            &[&xd],
            false,
            move |g, s| {
                let x = &s[0];
                // Built from comparisons of x, so the mask lives on x's device.
                let above = lo
                    .as_ref()
                    .map(|lo| x.binary(BinaryOp::Gt, lo))
                    .transpose()?;
                let below = hi
                    .as_ref()
                    .map(|hi| x.binary(BinaryOp::Lt, hi))
                    .transpose()?;
                let keep = match (above, below) {
                    (Some(a), Some(b)) => a.binary(BinaryOp::LogicalAnd, &b)?,
                    (Some(m), None) | (None, Some(m)) => m,
                    (None, None) => unreachable!("clamp checked that a bound is given"),
                };
                let z = Tensor::zeros(&[], g.dtype())?;
                Ok(vec![Some(keep.where_(g, &z)?)])
            },
        ))
    }
}

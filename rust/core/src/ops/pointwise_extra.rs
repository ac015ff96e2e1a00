//! Pointwise ops with parameters: clamp, lerp, nan_to_num, softplus, leaky_relu, elu,
//! hardtanh; isnan/isinf/isfinite.

use crate::autograd::record;
use crate::ops::BinaryOp;
use crate::{bail, with_dtype, DType, Element, Result, Scalar, Tensor};

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

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
        let nan_bound = [min, max].iter().flatten().any(|s| s.to_f64().is_nan());
        if dt.is_float() && min.is_some() && max.is_some() && nan_bound {
            // PyTorch fills NaN when either of two bounds is NaN, before it converts the other
            // (so clamp(bf16, nan, 1e300) is NaN, not an overflow error); no gradient flows.
            let out = Tensor::full(self.shape(), Scalar::Float(f64::NAN), dt)?;
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
                let mut keep = Tensor::full(x.shape(), Scalar::Bool(true), DType::Bool)?;
                if let Some(lo) = &lo {
                    keep = keep.binary(BinaryOp::LogicalAnd, &x.binary(BinaryOp::Gt, lo)?)?;
                }
                if let Some(hi) = &hi {
                    keep = keep.binary(BinaryOp::LogicalAnd, &x.binary(BinaryOp::Lt, hi)?)?;
                }
                let z = Tensor::zeros(&[], g.dtype())?;
                Ok(vec![Some(keep.where_(g, &z)?)])
            },
        ))
    }

    /// `lerp(end, weight)` in PyTorch's two-sided form: self + w (end - self) for |w| < 0.5,
    /// end - (end - self)(1 - w) otherwise, so w = 1 gives `end` exactly (infinities too).
    pub fn lerp(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        if self.dtype().is_complex() && end.dtype().is_complex() && weight.dtype().is_complex() {
            return self.complex_lerp(end, weight);
        }
        let diff = end.sub(self)?;
        let low = self.add(&weight.mul(&diff)?)?;
        let one_minus_w = weight.neg()?.add_scalar(f(1.0))?;
        let high = end.sub(&diff.mul(&one_minus_w)?)?;
        let small = weight.abs()?.binary_scalar(BinaryOp::Lt, f(0.5))?;
        small.where_(&low, &high)
    }

    /// Complex `lerp` with PyTorch's kernel arithmetic: sums and differences part by part
    /// (tensor add/sub is p + alpha * q, where an infinite part turns the other into NaN).
    fn complex_lerp(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        let parts_sub = |a: &Tensor, b: &Tensor| -> Result<Tensor> {
            Tensor::complex(&a.real()?.sub(&b.real()?)?, &a.imag()?.sub(&b.imag()?)?)
        };
        let parts_add = |a: &Tensor, b: &Tensor| -> Result<Tensor> {
            Tensor::complex(&a.real()?.add(&b.real()?)?, &a.imag()?.add(&b.imag()?)?)
        };
        let diff = parts_sub(end, self)?;
        let low = parts_add(self, &weight.mul(&diff)?)?;
        let one = Tensor::full(&[], f(1.0), weight.dtype())?;
        let high = parts_sub(end, &diff.mul(&parts_sub(&one, weight)?)?)?;
        let small = weight.abs()?.binary_scalar(BinaryOp::Lt, f(0.5))?;
        small.where_(&low, &high)
    }

    fn float_test(&self, op: &str, test: fn(f64) -> bool) -> Result<Tensor> {
        let out = Tensor::zeros(self.shape(), DType::Bool)?;
        if self.dtype().is_float() {
            let v = self.try_to_vec::<f64>()?;
            let o: &mut [bool] = unsafe { out.contiguous_slice_mut() };
            for (o, &x) in o.iter_mut().zip(&v) {
                *o = test(x);
            }
        } else if self.dtype().is_complex() {
            // A complex value is NaN (inf) when either part is, finite when both are.
            let (re, im) = (
                self.real()?.try_to_vec::<f64>()?,
                self.imag()?.try_to_vec::<f64>()?,
            );
            let o: &mut [bool] = unsafe { out.contiguous_slice_mut() };
            for ((o, &r), &i) in o.iter_mut().zip(&re).zip(&im) {
                *o = if op == "isfinite" {
                    test(r) && test(i)
                } else {
                    test(r) || test(i)
                };
            }
        } else if op == "isfinite" {
            return Tensor::full(self.shape(), Scalar::Bool(true), DType::Bool);
        }
        Ok(out)
    }

    pub fn isnan(&self) -> Result<Tensor> {
        self.float_test("isnan", f64::is_nan)
    }
    pub fn isinf(&self) -> Result<Tensor> {
        self.float_test("isinf", f64::is_infinite)
    }
    pub fn isfinite(&self) -> Result<Tensor> {
        self.float_test("isfinite", f64::is_finite)
    }
    pub fn isposinf(&self) -> Result<Tensor> {
        self.refuse_complex_inf_test("isposinf")?;
        self.float_test("isposinf", |x| x == f64::INFINITY)
    }
    pub fn isneginf(&self) -> Result<Tensor> {
        self.refuse_complex_inf_test("isneginf")?;
        self.float_test("isneginf", |x| x == f64::NEG_INFINITY)
    }

    /// `nan_to_num(nan, posinf, neginf)`; infinities default to the dtype's finite extremes.
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        if self.dtype().is_complex() {
            // Each part replaced on its own, with the part type's extremes (as PyTorch).
            let re = self.real()?.nan_to_num(nan, posinf, neginf)?;
            return Tensor::complex(&re, &self.imag()?.nan_to_num(nan, posinf, neginf)?);
        }
        if !self.dtype().is_float() {
            return self.clone_tensor();
        }
        let (big, small) = with_dtype!(self.dtype(), T => (max_of::<T>(), -max_of::<T>()));
        let (pi, ni) = (posinf.unwrap_or(big), neginf.unwrap_or(small));
        let x = self.detach();
        let mut out = x
            .isnan()?
            .where_(&Tensor::scalar(f(nan), self.dtype()), &x)?;
        out = out
            .isposinf()?
            .where_(&Tensor::scalar(f(pi), self.dtype()), &out)?;
        out = out
            .isneginf()?
            .where_(&Tensor::scalar(f(ni), self.dtype()), &out)?;
        let keep = self.isfinite()?;
        Ok(record(
            "NanToNumBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(keep.where_(g, &Tensor::zeros(&[], g.dtype())?)?)]),
        ))
    }

    /// `softplus(beta, threshold)`: log(1 + exp(beta x)) / beta, linear above the threshold.
    pub fn softplus(&self, beta: f64, threshold: f64) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "softplus: \"softplus_cpu\" not implemented for '{}'",
                self.dtype().name()
            );
        }
        let bx = self.mul_scalar(f(beta))?;
        let soft = bx
            .exp()?
            .unary(crate::ops::UnaryOp::Log1p)?
            .div_scalar(f(beta))?;
        let linear = bx.binary_scalar(BinaryOp::Gt, f(threshold))?;
        linear.where_(self, &soft)
    }

    /// A signed infinity has no meaning for a complex number (PyTorch: TypeError).
    fn refuse_complex_inf_test(&self, op: &str) -> Result<()> {
        if self.dtype().is_complex() {
            bail!(Type, "{op} does not support complex inputs.");
        }
        Ok(())
    }

    /// `leaky_relu(negative_slope)`; floating point only, as in PyTorch.
    pub fn leaky_relu(&self, slope: f64) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "\"leaky_relu_cpu\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            );
        }
        let pos = self.binary_scalar(BinaryOp::Gt, f(0.0))?;
        pos.where_(self, &self.mul_scalar(f(slope))?)
    }

    /// `elu(alpha)`: x for x > 0, alpha * (exp(x) - 1) otherwise.
    pub fn elu(&self, alpha: f64) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "\"elu_cpu\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            );
        }
        let pos = self.binary_scalar(BinaryOp::Gt, f(0.0))?;
        let neg = self
            .unary(crate::ops::UnaryOp::Expm1)?
            .mul_scalar(f(alpha))?;
        pos.where_(self, &neg)
    }

    /// `hardtanh(min_val, max_val)`.
    pub fn hardtanh(&self, lo: f64, hi: f64) -> Result<Tensor> {
        self.clamp(Some(f(lo)), Some(f(hi)))
    }
}

fn max_of<T: Element>() -> f64 {
    match T::DTYPE {
        DType::F32 => f32::MAX as f64,
        DType::F16 => 65504.0,
        DType::BF16 => half::bf16::MAX.to_f64(),
        _ => f64::MAX,
    }
}

//! `lerp`: linear interpolation between two tensors, real and complex.

use crate::ops::BinaryOp;
use crate::{Result, Scalar, Tensor};

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

impl Tensor {
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
}

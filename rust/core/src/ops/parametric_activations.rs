//! Activations with a parameter: softplus, leaky_relu, elu, hardtanh.

use crate::ops::BinaryOp;
use crate::{bail, Result, Scalar, Tensor};

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

impl Tensor {
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

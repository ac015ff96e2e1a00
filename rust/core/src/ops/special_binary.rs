//! Special functions of two tensors: `xlog1py`, the Hurwitz `zeta` and the regularized
//! incomplete gamma functions `gammainc`/`gammaincc` (igamma/igammac), with broadcasting,
//! PyTorch's type promotion and their gradients.

use crate::autograd::record;
use crate::cpu::parallel::{zip, Src};
use crate::cpu::special as sf;
use crate::dtype::{result_type, Operand};
use crate::layout::broadcast_shapes;
use crate::ops::special::host_only;
use crate::ops::BinaryOp;
use crate::{bail, DType, Result, Scalar, Tensor};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpecialBinaryOp {
    Xlog1py,
    Zeta,
    Gammainc,
    Gammaincc,
    /// An orthogonal polynomial `p_n(x)` (forward only, as in PyTorch).
    Polynomial(Poly),
}

use crate::cpu::special::orthogonal_polynomials::{polynomial, Polynomial as Poly};
use SpecialBinaryOp::*;

impl SpecialBinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            Xlog1py => "special_xlog1py",
            Zeta => "special_zeta",
            Gammainc => "igamma",
            Gammaincc => "igammac",
            Polynomial(p) => match p {
                Poly::ChebyshevT => "special_chebyshev_polynomial_t",
                Poly::ChebyshevU => "special_chebyshev_polynomial_u",
                Poly::ChebyshevV => "special_chebyshev_polynomial_v",
                Poly::ChebyshevW => "special_chebyshev_polynomial_w",
                Poly::ShiftedChebyshevT => "special_shifted_chebyshev_polynomial_t",
                Poly::ShiftedChebyshevU => "special_shifted_chebyshev_polynomial_u",
                Poly::ShiftedChebyshevV => "special_shifted_chebyshev_polynomial_v",
                Poly::ShiftedChebyshevW => "special_shifted_chebyshev_polynomial_w",
                Poly::HermiteH => "special_hermite_polynomial_h",
                Poly::HermiteHe => "special_hermite_polynomial_he",
                Poly::LaguerreL => "special_laguerre_polynomial_l",
                Poly::LegendreP => "special_legendre_polynomial_p",
            },
        }
    }
    fn backward_name(self) -> &'static str {
        match self {
            Xlog1py => "SpecialXlog1PyBackward0",
            Zeta => "SpecialZetaBackward0",
            Gammainc => "IgammaBackward0",
            Gammaincc => "IgammacBackward0",
            Polynomial(_) => "",
        }
    }
    fn eval(self, a: f64, b: f64) -> f64 {
        match self {
            Xlog1py => sf::xlog1py(a, b),
            Zeta => sf::zeta(a, b),
            Gammainc => sf::gammainc(a, b),
            Gammaincc => sf::gammaincc(a, b),
            Polynomial(p) => polynomial(p, a, b),
        }
    }
    /// PyTorch has no derivative in the first argument of these.
    fn first_grad_missing(self) -> Option<&'static str> {
        match self {
            Xlog1py => None,
            Zeta => Some("the derivative for 'zeta' is not implemented."),
            Gammainc => Some("the derivative for 'igamma: input' is not implemented."),
            Gammaincc => Some("the derivative for 'igammac: input' is not implemented."),
            Polynomial(_) => Some("the derivative is not implemented."),
        }
    }
}

fn operand(t: &Tensor) -> Operand {
    if t.ndim() == 0 {
        Operand::ZeroDim(t.dtype())
    } else {
        Operand::Dim(t.dtype())
    }
}

/// `t` cast to the common dtype (as PyTorch's iterator casts operands), then as contiguous
/// f64 over `shape` (broadcast), outside autograd.
fn f64_over(t: &Tensor, shape: &[usize], common: DType) -> Result<Tensor> {
    let t = t.detach().to_dtype_raw(common)?.to_dtype_raw(DType::F64)?;
    if t.shape() == shape && t.is_contiguous() {
        return Ok(t);
    }
    t.broadcast_to(shape)?.contiguous_copy()
}

/// Forward of a two-argument special function, outside autograd.
pub fn special_binary_forward(op: SpecialBinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let name = op.name();
    host_only(name, &[a, b])?;
    let shape = broadcast_shapes(name, a.shape(), b.shape())?;
    let mut common = result_type(&[operand(a), operand(b)], DType::F32);
    if !common.is_float() {
        if matches!(op, Gammainc | Gammaincc) {
            bail!(
                NotImplemented,
                "\"{name}_cpu\" not implemented for '{}'",
                common.scalar_type_name()
            );
        }
        common = DType::F32;
    }
    let (x, y) = (f64_over(a, &shape, common)?, f64_over(b, &shape, common)?);
    let out = Tensor::uninit(&shape, DType::F64)?;
    let (x, y) = (
        Src::Slice(x.contiguous_slice::<f64>()),
        Src::Slice(y.contiguous_slice::<f64>()),
    );
    let o = unsafe { out.contiguous_slice_mut() };
    match (op, crate::ops::half_stepwise::rounder(common)) {
        // PyTorch's float32 xlog1py computes in float32; its half one also rounds log1p to
        // the half type before the product.
        (Xlog1py, Some(r)) => zip(x, y, o, |u, v| {
            if v.is_nan() || u == 0.0 {
                sf::xlog1py(u, v)
            } else {
                (u as f32 * r((v as f32).ln_1p())) as f64
            }
        }),
        _ => zip(x, y, o, |u, v| op.eval(u, v)),
    }
    out.to_dtype_raw(common)
}

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

impl Tensor {
    /// A two-argument special function with broadcasting, promotion and autograd.
    pub fn special_binary(&self, op: SpecialBinaryOp, other: &Tensor) -> Result<Tensor> {
        let out = special_binary_forward(op, self, other)?;
        // PyTorch gives the polynomials no derivative: their results never require grad.
        if let Polynomial(_) = op {
            return Ok(out);
        }
        let (sa, sb) = (self.shape().to_vec(), other.shape().to_vec());
        let (da, db) = (self.dtype(), other.dtype());
        let first_needs_grad = self.requires_grad();
        Ok(record(
            op.backward_name(),
            out,
            &[self, other],
            &[self, other],
            false,
            move |g, s| {
                let (a, b) = (&s[0], &s[1]);
                let ga = match op {
                    // xlog1py(g, b), but 0 where a == 0 and b <= -1 (as PyTorch masks it).
                    Xlog1py => {
                        let dead = a.eq_scalar(f(0.0))?.binary(
                            BinaryOp::LogicalAnd,
                            &b.binary_scalar(BinaryOp::Le, f(-1.0))?,
                        )?;
                        let v = g.special_binary(Xlog1py, b)?;
                        Some(v.masked_fill(&dead, &Tensor::scalar(f(0.0), v.dtype()))?)
                    }
                    _ if first_needs_grad => {
                        bail!(NotImplemented, "{}", op.first_grad_missing().unwrap_or(""))
                    }
                    _ => None,
                };
                let gb = match op {
                    Xlog1py => g.mul(a)?.div(&b.add_scalar(f(1.0))?)?,
                    Zeta => g
                        .mul(a)?
                        .neg()?
                        .mul(&a.add_scalar(f(1.0))?.special_binary(Zeta, b)?)?,
                    // The density x^(a-1) e^-x / Gamma(a).
                    Polynomial(_) => unreachable!("polynomials are not recorded"),
                    Gammainc | Gammaincc => {
                        let log_pdf = a
                            .sub_scalar(f(1.0))?
                            .mul(&b.log()?)?
                            .sub(b)?
                            .sub(&a.lgamma()?)?;
                        let d = g.mul(&log_pdf.exp()?)?;
                        if op == Gammaincc {
                            d.neg()?
                        } else {
                            d
                        }
                    }
                };
                let fin =
                    |t: Option<Tensor>, shape: &[usize], dt: DType| -> Result<Option<Tensor>> {
                        match t {
                            Some(t) if dt.is_float() => Ok(Some(t.sum_to(shape)?.to_dtype(dt)?)),
                            _ => Ok(None),
                        }
                    };
                Ok(vec![fin(ga, &sa, da)?, fin(Some(gb), &sb, db)?])
            },
        ))
    }

    pub fn xlog1py(&self, other: &Tensor) -> Result<Tensor> {
        self.special_binary(Xlog1py, other)
    }
    pub fn zeta(&self, other: &Tensor) -> Result<Tensor> {
        self.special_binary(Zeta, other)
    }
    pub fn igamma(&self, other: &Tensor) -> Result<Tensor> {
        self.special_binary(Gammainc, other)
    }
    pub fn igammac(&self, other: &Tensor) -> Result<Tensor> {
        self.special_binary(Gammaincc, other)
    }
}

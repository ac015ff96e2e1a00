//! Special functions of one tensor (`torch.special` and its `torch.*` aliases): the gamma
//! family, error-function relatives, Bessel functions, sinc and entr. Each is one entry of
//! `SpecialOp` with its forward (the f64 kernels in `cpu::special`) and its backward, written in
//! differentiable ops so that higher derivatives follow.

use crate::autograd::{is_grad_enabled, record};
use crate::cpu::parallel::map;
use crate::cpu::special as sf;
use crate::ops::BinaryOp;
use crate::{bail, DType, Device, Result, Scalar, Tensor};
use std::f64::consts::PI;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpecialOp {
    Lgamma,
    Digamma,
    /// The n-th derivative of digamma (`Polygamma(0)` is digamma itself).
    Polygamma(u64),
    Erfc,
    Erfcx,
    I0,
    I0e,
    I1,
    I1e,
    Ndtr,
    Ndtri,
    LogNdtr,
    Sinc,
    Entr,
    BesselJ0,
    BesselJ1,
    BesselY0,
    BesselY1,
    ModifiedBesselI0,
    ModifiedBesselI1,
    ModifiedBesselK0,
    ModifiedBesselK1,
    ScaledModifiedBesselK0,
    ScaledModifiedBesselK1,
    SphericalBesselJ0,
    AiryAi,
}

use SpecialOp::*;

impl SpecialOp {
    pub fn name(self) -> &'static str {
        match self {
            Lgamma => "lgamma",
            Digamma => "digamma",
            Polygamma(_) => "polygamma",
            Erfc => "erfc",
            Erfcx => "special_erfcx",
            I0 => "i0",
            I0e => "special_i0e",
            I1 => "special_i1",
            I1e => "special_i1e",
            Ndtr => "special_ndtr",
            Ndtri => "special_ndtri",
            LogNdtr => "special_log_ndtr",
            Sinc => "sinc",
            Entr => "special_entr",
            BesselJ0 => "special_bessel_j0",
            BesselJ1 => "special_bessel_j1",
            BesselY0 => "special_bessel_y0",
            BesselY1 => "special_bessel_y1",
            ModifiedBesselI0 => "special_modified_bessel_i0",
            ModifiedBesselI1 => "special_modified_bessel_i1",
            ModifiedBesselK0 => "special_modified_bessel_k0",
            ModifiedBesselK1 => "special_modified_bessel_k1",
            ScaledModifiedBesselK0 => "special_scaled_modified_bessel_k0",
            ScaledModifiedBesselK1 => "special_scaled_modified_bessel_k1",
            SphericalBesselJ0 => "special_spherical_bessel_j0",
            AiryAi => "special_airy_ai",
        }
    }

    fn backward_name(self) -> &'static str {
        match self {
            Lgamma => "LgammaBackward0",
            Digamma => "DigammaBackward0",
            Polygamma(_) => "PolygammaBackward0",
            Erfc => "ErfcBackward0",
            Erfcx => "SpecialErfcxBackward0",
            I0 => "I0Backward0",
            I0e => "SpecialI0EBackward0",
            I1 => "SpecialI1Backward0",
            I1e => "SpecialI1EBackward0",
            Ndtr => "SpecialNdtrBackward0",
            Ndtri => "SpecialNdtriBackward0",
            LogNdtr => "SpecialLogNdtrBackward0",
            Sinc => "SincBackward0",
            Entr => "SpecialEntrBackward0",
            BesselJ0 => "SpecialBesselJ0Backward0",
            BesselJ1 => "SpecialBesselJ1Backward0",
            BesselY0 => "SpecialBesselY0Backward0",
            BesselY1 => "SpecialBesselY1Backward0",
            ModifiedBesselI0 => "SpecialModifiedBesselI0Backward0",
            ModifiedBesselI1 => "SpecialModifiedBesselI1Backward0",
            ModifiedBesselK0 => "SpecialModifiedBesselK0Backward0",
            ModifiedBesselK1 => "SpecialModifiedBesselK1Backward0",
            ScaledModifiedBesselK0 => "SpecialScaledModifiedBesselK0Backward0",
            ScaledModifiedBesselK1 => "SpecialScaledModifiedBesselK1Backward0",
            SphericalBesselJ0 => "SpecialSphericalBesselJ0Backward0",
            AiryAi => "SpecialAiryAiBackward0",
        }
    }

    /// PyTorch's CPU kernel name for the ops it defines for float32/float64 (and integers,
    /// promoted) only: half and complex inputs are NotImplementedError naming it.
    fn double_only_kernel(self) -> Option<&'static str> {
        match self {
            AiryAi => Some("airy_ai_cpu"),
            _ => None,
        }
    }

    /// The function at one point, in f64.
    #[inline]
    pub fn eval(self, x: f64) -> f64 {
        match self {
            Lgamma => sf::lgamma(x),
            Digamma => sf::digamma(x),
            Polygamma(n) => sf::polygamma(n, x),
            Erfc => sf::erfc(x),
            Erfcx => sf::erfcx(x),
            I0 => sf::i0(x),
            I0e => sf::i0e(x),
            I1 => sf::i1(x),
            I1e => sf::i1e(x),
            Ndtr => sf::ndtr(x),
            Ndtri => sf::ndtri(x),
            LogNdtr => sf::log_ndtr(x),
            Sinc => sinc(x),
            Entr => sf::entr(x),
            BesselJ0 => sf::bessel_j0(x),
            BesselJ1 => sf::bessel_j1(x),
            BesselY0 => sf::bessel_y0(x),
            BesselY1 => sf::bessel_y1(x),
            ModifiedBesselI0 => sf::i0(x),
            ModifiedBesselI1 => sf::i1(x),
            ModifiedBesselK0 => sf::modified_bessel_k0(x),
            ModifiedBesselK1 => sf::modified_bessel_k1(x),
            ScaledModifiedBesselK0 => sf::scaled_modified_bessel_k0(x),
            ScaledModifiedBesselK1 => sf::scaled_modified_bessel_k1(x),
            SphericalBesselJ0 => sf::spherical_bessel_j0(x),
            AiryAi => sf::airy_ai(x),
        }
    }
}

/// `sin(pi x) / (pi x)`, 1 at 0. Written once for both float types: float32 inputs take
/// PyTorch's float32 arithmetic here, as the rounding of `pi x` shows in the result.
fn sinc<F: crate::cpu::math::Float>(x: F) -> F {
    if x == F::zero() {
        return F::one();
    }
    let p = F::from_f64c(PI) * x;
    p.sin() / p
}

/// The error for ops that only have host kernels, when an input lives on a GPU.
pub(crate) fn host_only(op: &str, inputs: &[&Tensor]) -> Result<()> {
    if let Some(t) = inputs.iter().find(|t| t.device() != Device::Cpu) {
        bail!(
            NotImplemented,
            "{op}: not implemented for tensors on {} (ferrotorch has no CUDA kernel for it yet; \
             move the input to the CPU with .cpu())",
            t.device()
        );
    }
    Ok(())
}

/// The dtype a special function returns: floating inputs keep theirs, integers and bools
/// compute in float32 (the default float type), as PyTorch promotes them.
pub(crate) fn float_result(dt: DType) -> DType {
    if dt.is_float() {
        dt
    } else {
        DType::F32
    }
}

/// Forward of a special function, outside autograd.
pub fn special_forward(op: SpecialOp, x: &Tensor) -> Result<Tensor> {
    host_only(op.name(), &[x])?;
    if let Some(kernel) = op.double_only_kernel() {
        if matches!(x.dtype(), DType::F16 | DType::BF16) || x.dtype().is_complex() {
            return Err(crate::Error::complex_unsupported(kernel, x.dtype()));
        }
    }
    let out_dt = float_result(x.dtype());
    if op == Sinc && out_dt == DType::F32 {
        let src = x.to_dtype_raw(DType::F32)?.contiguous_copy_if_needed()?;
        let out = Tensor::uninit(x.shape(), DType::F32)?;
        map(
            src.contiguous_slice::<f32>(),
            unsafe { out.contiguous_slice_mut() },
            sinc,
        );
        return Ok(out);
    }
    let src = x.to_dtype_raw(DType::F64)?.contiguous_copy_if_needed()?;
    let out = Tensor::uninit(x.shape(), DType::F64)?;
    map(
        src.contiguous_slice::<f64>(),
        unsafe { out.contiguous_slice_mut() },
        |v| op.eval(v),
    );
    out.to_dtype_raw(out_dt)
}

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

/// `value` where `x == 0`, else `other` (the removable singularities of i1, i1e, sinc, J1).
fn at_zero(x: &Tensor, value: f64, other: &Tensor) -> Result<Tensor> {
    let zero = x.eq_scalar(f(0.0))?;
    zero.where_(&Tensor::scalar(f(value), other.dtype()), other)
}

impl Tensor {
    /// A special function with its gradient. Backwards that use the output recompute it when
    /// building a higher-order graph (the saved output is detached).
    pub fn special(&self, op: SpecialOp) -> Result<Tensor> {
        let out = special_forward(op, self)?;
        // PyTorch gives these no derivative: their results never require grad.
        if matches!(
            op,
            ScaledModifiedBesselK0 | ScaledModifiedBesselK1 | SphericalBesselJ0 | AiryAi
        ) {
            return Ok(out);
        }
        Ok(record(
            op.backward_name(),
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                let x = &s[0];
                let y = || -> Result<Tensor> {
                    if is_grad_enabled() {
                        x.special(op)
                    } else {
                        Ok(s[1].clone())
                    }
                };
                let d = match op {
                    Lgamma => x.special(Digamma)?,
                    Digamma => x.special(Polygamma(1))?,
                    Polygamma(n) => x.special(Polygamma(n + 1))?,
                    Erfc => x
                        .mul(x)?
                        .neg()?
                        .exp()?
                        .mul_scalar(f(-std::f64::consts::FRAC_2_SQRT_PI))?,
                    // d/dx erfcx = 2x erfcx(x) - 2/sqrt(pi)
                    Erfcx => x
                        .mul(&y()?)?
                        .mul_scalar(f(2.0))?
                        .sub_scalar(f(std::f64::consts::FRAC_2_SQRT_PI))?,
                    I0 => x.special(I1)?,
                    I0e => x.special(I1e)?.sub(&x.sign()?.mul(&y()?)?)?,
                    I1 => at_zero(x, 0.5, &x.special(I0)?.sub(&y()?.div(x)?)?)?,
                    I1e => {
                        let k = x.sign()?.add(&x.unary(crate::ops::UnaryOp::Reciprocal)?)?;
                        at_zero(x, 0.5, &x.special(I0e)?.sub(&y()?.mul(&k)?)?)?
                    }
                    Ndtr => normal_pdf(x)?,
                    Ndtri => {
                        let y = y()?;
                        y.mul(&y)?
                            .mul_scalar(f(0.5))?
                            .exp()?
                            .mul_scalar(f((2.0 * PI).sqrt()))?
                    }
                    // pdf(x) / ndtr(x), as exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)
                    LogNdtr => x
                        .mul(x)?
                        .mul_scalar(f(0.5))?
                        .add(&y()?)?
                        .neg()?
                        .exp()?
                        .mul_scalar(f(1.0 / (2.0 * PI).sqrt()))?,
                    Sinc => {
                        let px = x.mul_scalar(f(PI))?;
                        let num = px.mul(&px.cos()?)?.sub(&px.sin()?)?;
                        at_zero(x, 0.0, &num.div(&px.mul(x)?)?)?
                    }
                    Entr => x.log()?.add_scalar(f(1.0))?.neg()?,
                    BesselJ0 => x.special(BesselJ1)?.neg()?,
                    BesselJ1 => at_zero(x, 0.5, &x.special(BesselJ0)?.sub(&y()?.div(x)?)?)?,
                    BesselY0 => x.special(BesselY1)?.neg()?,
                    BesselY1 => x.special(BesselY0)?.sub(&y()?.div(x)?)?,
                    ModifiedBesselI0 => x.special(ModifiedBesselI1)?,
                    ModifiedBesselI1 => {
                        at_zero(x, 0.5, &x.special(ModifiedBesselI0)?.sub(&y()?.div(x)?)?)?
                    }
                    ModifiedBesselK0 => x.special(ModifiedBesselK1)?.neg()?,
                    ModifiedBesselK1 => x.special(ModifiedBesselK0)?.neg()?.sub(&y()?.div(x)?)?,
                    ScaledModifiedBesselK0
                    | ScaledModifiedBesselK1
                    | SphericalBesselJ0
                    | AiryAi => {
                        unreachable!("recorded without a backward")
                    }
                };
                Ok(vec![Some(g.mul(&d)?)])
            },
        ))
    }

    pub fn lgamma(&self) -> Result<Tensor> {
        self.special(Lgamma)
    }
    pub fn digamma(&self) -> Result<Tensor> {
        self.special(Digamma)
    }
    /// `polygamma(n, x)`; a negative `n` is PyTorch's RuntimeError.
    pub fn polygamma(&self, n: i64) -> Result<Tensor> {
        if n < 0 {
            bail!(Runtime, "polygamma(n, x) does not support negative n.");
        }
        self.special(Polygamma(n as u64))
    }
    pub fn erfc(&self) -> Result<Tensor> {
        self.special(Erfc)
    }
    pub fn i0(&self) -> Result<Tensor> {
        self.special(I0)
    }
    pub fn sinc(&self) -> Result<Tensor> {
        self.special(Sinc)
    }

    /// `mvlgamma(p)`: the log of the multivariate gamma function,
    /// `p(p-1)/4 ln(pi) + sum_{i<p} lgamma(x - i/2)`, built from lgamma so it differentiates.
    pub fn mvlgamma(&self, p: i64) -> Result<Tensor> {
        if p < 1 {
            bail!(Runtime, "p has to be greater than or equal to 1");
        }
        if self.dtype() == DType::Bool {
            bail!(
                Runtime,
                "mvlgamma: The input tensor may not be a boolean tensor."
            );
        }
        let dt = float_result(self.dtype());
        let x = self.to_dtype(dt)?;
        let halves: Vec<f64> = (0..p).map(|i| -0.5 * i as f64).collect();
        let offsets = Tensor::from_vec(halves, &[p as usize])?.to_dtype_raw(dt)?;
        let terms = x.unsqueeze(-1)?.binary(BinaryOp::Add, &offsets)?.lgamma()?;
        let pf = p as f64;
        terms
            .sum_dims(&[-1], false)?
            .add_scalar(f(pf * (pf - 1.0) / 4.0 * PI.ln()))
    }
}

/// The standard normal density.
fn normal_pdf(x: &Tensor) -> Result<Tensor> {
    x.mul(x)?
        .mul_scalar(f(-0.5))?
        .exp()?
        .mul_scalar(f(1.0 / (2.0 * PI).sqrt()))
}

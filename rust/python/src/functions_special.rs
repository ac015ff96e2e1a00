//! Module functions of `torch.special` that are not Tensor methods (`special_erfcx`,
//! `special_zeta`, ...), and the samplers of `torch.distributions` (`_standard_gamma`,
//! `poisson`, `binomial`, `_sample_dirichlet`).

use crate::convert::extract_operand;
use crate::errors::IntoPy;
use crate::random::PyGenerator;
use crate::tensor::{operand_tensor, PyTensor};
use ferrotorch::cpu::special::orthogonal_polynomials::Polynomial as Poly;
use ferrotorch::ops::special::SpecialOp;
use ferrotorch::ops::special_binary::SpecialBinaryOp;
use ferrotorch::random::SharedGenerator;
use ferrotorch::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

macro_rules! special_functions {
    ($($name:ident => $op:expr;)*) => {
        $(
            #[pyfunction]
            pub fn $name(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
                let t = &input.t;
                Ok(PyTensor::new(py.detach(|| t.special($op)).py()?))
            }
        )*
        fn register_unary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

special_functions! {
    special_erfcx => SpecialOp::Erfcx;
    special_i0e => SpecialOp::I0e;
    special_i1 => SpecialOp::I1;
    special_i1e => SpecialOp::I1e;
    special_ndtr => SpecialOp::Ndtr;
    special_ndtri => SpecialOp::Ndtri;
    special_log_ndtr => SpecialOp::LogNdtr;
    special_entr => SpecialOp::Entr;
    special_bessel_j0 => SpecialOp::BesselJ0;
    special_bessel_j1 => SpecialOp::BesselJ1;
    special_bessel_y0 => SpecialOp::BesselY0;
    special_bessel_y1 => SpecialOp::BesselY1;
    special_modified_bessel_i0 => SpecialOp::ModifiedBesselI0;
    special_modified_bessel_i1 => SpecialOp::ModifiedBesselI1;
    special_modified_bessel_k0 => SpecialOp::ModifiedBesselK0;
    special_modified_bessel_k1 => SpecialOp::ModifiedBesselK1;
    special_scaled_modified_bessel_k0 => SpecialOp::ScaledModifiedBesselK0;
    special_scaled_modified_bessel_k1 => SpecialOp::ScaledModifiedBesselK1;
    special_spherical_bessel_j0 => SpecialOp::SphericalBesselJ0;
    special_airy_ai => SpecialOp::AiryAi;
}

macro_rules! polynomials {
    ($($name:ident => $kind:ident;)*) => {
        $(
            #[pyfunction]
            pub fn $name(input: &Bound<'_, PyAny>, n: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(stringify!($name), SpecialBinaryOp::Polynomial(Poly::$kind), input, n)
            }
        )*
        fn register_polynomials(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

polynomials! {
    special_chebyshev_polynomial_t => ChebyshevT;
    special_chebyshev_polynomial_u => ChebyshevU;
    special_chebyshev_polynomial_v => ChebyshevV;
    special_chebyshev_polynomial_w => ChebyshevW;
    special_shifted_chebyshev_polynomial_t => ShiftedChebyshevT;
    special_shifted_chebyshev_polynomial_u => ShiftedChebyshevU;
    special_shifted_chebyshev_polynomial_v => ShiftedChebyshevV;
    special_shifted_chebyshev_polynomial_w => ShiftedChebyshevW;
    special_hermite_polynomial_h => HermiteH;
    special_hermite_polynomial_he => HermiteHe;
    special_laguerre_polynomial_l => LaguerreL;
    special_legendre_polynomial_p => LegendreP;
}

/// The two operands as tensors: either (not both) may be a Python number, which takes the
/// dtype PyTorch gives a wrapped number beside the other.
fn operands(
    name: &str,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<(Tensor, Tensor)> {
    let bad = || {
        PyTypeError::new_err(format!(
            "{name}() received an invalid combination of arguments - got ({}, {})",
            input
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default(),
            other
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    };
    match (input.cast::<PyTensor>(), other.cast::<PyTensor>()) {
        (Ok(a), _) => {
            let a = a.borrow().t.clone();
            let b = operand_tensor(&a, other, name)?;
            Ok((a, b))
        }
        (Err(_), Ok(b)) => {
            let b = b.borrow().t.clone();
            match extract_operand(input)? {
                Some(_) => Ok((operand_tensor(&b, input, name)?, b)),
                None => Err(bad()),
            }
        }
        _ => Err(bad()),
    }
}

fn binary(
    name: &str,
    op: SpecialBinaryOp,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<PyTensor> {
    let (a, b) = operands(name, input, other)?;
    Ok(PyTensor::new(a.special_binary(op, &b).py()?))
}

#[pyfunction]
pub fn special_xlog1py(input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary("special_xlog1py", SpecialBinaryOp::Xlog1py, input, other)
}

#[pyfunction]
pub fn special_zeta(input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary("special_zeta", SpecialBinaryOp::Zeta, input, other)
}

#[pyfunction]
pub fn igamma(input: PyRef<'_, PyTensor>, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.igamma(&other.t).py()?))
}

#[pyfunction]
pub fn igammac(input: PyRef<'_, PyTensor>, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.igammac(&other.t).py()?))
}

#[pyfunction]
pub fn polygamma(n: i64, input: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.polygamma(n).py()?))
}

fn gen_of(g: Option<PyRef<'_, PyGenerator>>) -> Option<SharedGenerator> {
    g.map(|g| g.g.clone())
}

#[pyfunction]
#[pyo3(signature = (input, generator=None))]
pub fn _standard_gamma(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    let (t, g) = (&input.t, gen_of(generator));
    Ok(PyTensor::new(
        py.detach(|| t.standard_gamma(g.as_ref())).py()?,
    ))
}

#[pyfunction]
pub fn _standard_gamma_grad(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output: PyRef<'_, PyTensor>,
) -> PyResult<PyTensor> {
    let (a, x) = (&input.t, &output.t);
    Ok(PyTensor::new(py.detach(|| a.standard_gamma_grad(x)).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, generator=None))]
pub fn poisson(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    let (t, g) = (&input.t, gen_of(generator));
    Ok(PyTensor::new(py.detach(|| t.poisson(g.as_ref())).py()?))
}

#[pyfunction]
#[pyo3(signature = (count, prob, generator=None))]
pub fn binomial(
    py: Python<'_>,
    count: PyRef<'_, PyTensor>,
    prob: PyRef<'_, PyTensor>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    let (c, p, g) = (&count.t, &prob.t, gen_of(generator));
    Ok(PyTensor::new(py.detach(|| c.binomial(p, g.as_ref())).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, generator=None))]
pub fn _sample_dirichlet(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    let (t, g) = (&input.t, gen_of(generator));
    Ok(PyTensor::new(
        py.detach(|| t.sample_dirichlet(g.as_ref())).py()?,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    register_unary(m)?;
    register_polynomials(m)?;
    for f in [
        wrap_pyfunction!(special_xlog1py, m)?,
        wrap_pyfunction!(special_zeta, m)?,
        wrap_pyfunction!(igamma, m)?,
        wrap_pyfunction!(igammac, m)?,
        wrap_pyfunction!(polygamma, m)?,
        wrap_pyfunction!(_standard_gamma, m)?,
        wrap_pyfunction!(_standard_gamma_grad, m)?,
        wrap_pyfunction!(poisson, m)?,
        wrap_pyfunction!(binomial, m)?,
        wrap_pyfunction!(_sample_dirichlet, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}

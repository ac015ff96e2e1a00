//! Scalar special functions in f64 (float32 inputs are computed here and rounded), with
//! PyTorch's values at poles, signed zeros, infinities and NaN.

pub mod airy;
pub mod bessel;
pub mod bessel_y;
pub mod gamma;
pub mod incomplete_gamma;
pub mod modified_bessel_k;
pub mod normal;
pub mod orthogonal_polynomials;
pub mod zeta;

pub use airy::airy_ai;
pub use bessel::{bessel_j0, bessel_j1, i0, i0e, i1, i1e};
pub use bessel_y::{bessel_y0, bessel_y1, spherical_bessel_j0};
pub use gamma::{digamma, lgamma, polygamma, trigamma};
pub use incomplete_gamma::{gammainc, gammaincc, standard_gamma_grad};
pub use modified_bessel_k::{
    modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1,
};
pub use normal::{erfc, erfcx, log_ndtr, ndtr, ndtri};
pub use zeta::zeta;

/// `-x ln x` (entropy term): 0 at 0, -inf below 0.
pub fn entr(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        -x * x.ln()
    } else if x == 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// `x * log1p(y)`, 0 where x is 0 (unless y is NaN), as `xlogy`.
pub fn xlog1py(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        y
    } else if x == 0.0 {
        0.0
    } else {
        x * y.ln_1p()
    }
}

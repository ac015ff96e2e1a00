//! Scalar special functions in f64 (float32 inputs are computed here and rounded), with
//! PyTorch's values at poles, signed zeros, infinities and NaN.

pub mod bessel;
pub mod gamma;
pub mod incomplete_gamma;
pub mod normal;
pub mod zeta;

pub use bessel::{bessel_j0, bessel_j1, i0, i0e, i1, i1e};
pub use gamma::{digamma, lgamma, polygamma, trigamma};
pub use incomplete_gamma::{gammainc, gammaincc, standard_gamma_grad};
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

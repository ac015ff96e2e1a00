//! The normal distribution's special functions: erfc, the scaled erfcx, the CDF `ndtr`, its
//! logarithm and its inverse `ndtri`.

use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};

const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;

pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `exp(x^2)` without the rounding of x^2 magnified by the exponential: the product's low
/// part (recovered with an FMA) enters as a first-order factor.
fn exp_x2(x: f64) -> f64 {
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    hi.exp() * (1.0 + lo)
}

/// `exp(x^2) erfc(x)`: the direct product while erfc does not underflow, the asymptotic
/// series `1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k` beyond, and the reflection
/// `2 exp(x^2) - erfcx(-x)` for negative x.
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        if x < -26.7 {
            return f64::INFINITY;
        }
        return 2.0 * exp_x2(x) - erfcx(-x);
    }
    if x < 26.0 {
        return exp_x2(x) * libm::erfc(x);
    }
    if x > 1e8 {
        return FRAC_1_SQRT_PI / x;
    }
    let z = 0.5 / (x * x);
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..40 {
        term *= -((2 * k - 1) as f64) * z;
        sum += term;
        if term.abs() < f64::EPSILON * 0.25 {
            break;
        }
    }
    FRAC_1_SQRT_PI * sum / x
}

/// The standard normal CDF, `erfc(-x/sqrt 2) / 2` (accurate in the lower tail).
pub fn ndtr(x: f64) -> f64 {
    let t = x * FRAC_1_SQRT_2;
    if t.abs() < FRAC_1_SQRT_2 {
        0.5 + 0.5 * libm::erf(t)
    } else if t > 0.0 {
        1.0 - 0.5 * libm::erfc(t)
    } else {
        0.5 * libm::erfc(-t)
    }
}

/// `log(ndtr(x))`: through erfcx in the lower tail (no underflow), log1p above.
pub fn log_ndtr(x: f64) -> f64 {
    let t = x * FRAC_1_SQRT_2;
    if x < -1.0 {
        (erfcx(-t) / 2.0).ln() - t * t
    } else {
        (-libm::erfc(t) / 2.0).ln_1p()
    }
}

/// The standard normal quantile. Near the median it is `sqrt 2 erfinv(2p - 1)` (p - 1/2 is
/// exact there); in the tails a rational first guess is refined by Newton steps on
/// `log ndtr`, which keep full relative precision down to the smallest p. `1 - p` is exact
/// for p >= 1/2, so the upper tail is the mirror image.
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if (0.25..=0.75).contains(&p) {
        return SQRT_2 * crate::cpu::math::erfinv_f64(2.0 * (p - 0.5));
    }
    if p > 0.5 {
        return -lower_tail_quantile(1.0 - p);
    }
    lower_tail_quantile(p)
}

/// The quantile for p < 1/4.
fn lower_tail_quantile(p: f64) -> f64 {
    let log_p = p.ln();
    // Abramowitz & Stegun 26.2.23 (error below 5e-4) as the first guess.
    let t = (-2.0 * log_p).sqrt();
    let mut x = -(t
        - (2.515_517 + t * (0.802_853 + t * 0.010_328))
            / (1.0 + t * (1.432_788 + t * (0.189_269 + t * 0.001_308))));
    let norm = (2.0 * PI).sqrt();
    for _ in 0..8 {
        // Newton on g(x) = log ndtr(x) - log p, with g' = pdf(x) / ndtr(x).
        let lc = log_ndtr(x);
        let ratio = (-0.5 * x * x - lc).exp() / norm;
        let step = (lc - log_p) / ratio;
        x -= step;
        if step.abs() <= 1e-16 * x.abs() {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_inverts_cdf() {
        for &p in &[
            1e-300, 1e-20, 1e-5, 0.01, 0.1, 0.2499, 0.25, 0.3, 0.5, 0.7, 0.9, 0.999,
        ] {
            let x = ndtri(p);
            let back = ndtr(x);
            // ndtr's condition number near x is about x^2.
            assert!(
                (back - p).abs() <= 1e-15 * p * x.mul_add(x, 4.0),
                "{p} {x} {back}"
            );
        }
        assert!((ndtri(0.975) - 1.959_963_984_540_054).abs() < 1e-15);
        assert_eq!(ndtri(0.5), 0.0);
    }

    #[test]
    fn scaled_erfc() {
        assert_eq!(erfcx(0.0), 1.0);
        assert!((erfcx(1.0) - 0.427_583_576_155_807).abs() < 1e-15);
        assert!((erfcx(30.0) - 0.018_795_888_861_416_75).abs() < 1e-16);
        assert!((erfcx(-2.0) - 108.940_904_389_977_97).abs() < 1e-12);
        assert_eq!(erfcx(f64::INFINITY), 0.0);
    }
}

//! The gamma function's logarithm and its derivatives (digamma, trigamma, polygamma).

use std::f64::consts::PI;

/// `ln |Gamma(x)|`; +inf at the poles (0 and the negative integers).
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Digamma: -inf at +0 and +inf at -0 (the C++ convention), NaN at the negative integers,
/// the reflection formula below zero, the recurrence up to 10 and Stirling's series above.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.trunc() {
            return f64::NAN;
        }
        // tan of pi times the fractional part: pi * x itself would round for large |x|.
        let frac = x - x.trunc();
        return digamma(1.0 - x) - PI / (PI * frac).tan();
    }
    let (mut acc, mut x) = (0.0, x);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    acc + x.ln() - 0.5 / x - stirling_tail(1.0 / (x * x))
}

/// `sum B_2k / (2k x^2k)` for k = 1..7, in `z = 1/x^2` (digamma's asymptotic tail).
fn stirling_tail(z: f64) -> f64 {
    const C: [f64; 7] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
    ];
    z * C.iter().rev().fold(0.0, |acc, &c| acc * z + c)
}

/// Trigamma: the reflection formula below 1/2 (so +inf at 0 and very large values at the
/// negative integers, where sin(pi x) rounds away from 0), recurrence and asymptotic series.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.5 {
        let s = (PI * x).sin();
        return PI * PI / (s * s) - trigamma(1.0 - x);
    }
    let (mut acc, mut x) = (0.0, x);
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
    let z = 1.0 / (x * x);
    const B: [f64; 8] = [
        1.0 / 6.0,
        -1.0 / 30.0,
        1.0 / 42.0,
        -1.0 / 30.0,
        5.0 / 66.0,
        -691.0 / 2730.0,
        7.0 / 6.0,
        -3617.0 / 510.0,
    ];
    let tail = B.iter().rev().fold(0.0, |a, &b| a * z + b) * z;
    acc + (1.0 + 0.5 / x + tail) / x
}

/// `polygamma(n, x)`, the n-th derivative of digamma; `n >= 2` is
/// `(-1)^(n+1) n! zeta(n+1, x)`, as PyTorch defines it (so poles give signed infinities).
pub fn polygamma(n: u64, x: f64) -> f64 {
    match n {
        0 => digamma(x),
        1 => trigamma(x),
        _ => {
            let fact = (2..=n).fold(1.0f64, |f, k| f * k as f64);
            let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
            sign * fact * super::zeta((n + 1) as f64, x)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + euler).abs() < 1e-15);
        assert!((digamma(0.5) + euler + 2.0 * 2f64.ln()).abs() < 1e-15);
        assert!((trigamma(1.0) - PI * PI / 6.0).abs() < 1e-15);
        assert!((trigamma(0.5) - PI * PI / 2.0).abs() < 1e-14);
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert_eq!(digamma(-0.0), f64::INFINITY);
        assert!(digamma(-2.0).is_nan());
        // psi''(1) = -2 zeta(3)
        assert!((polygamma(2, 1.0) + 2.0 * 1.202_056_903_159_594_2).abs() < 1e-14);
    }
}

//! Bessel functions of the second kind Y0 and Y1: Neumann series over J_{2k} (from Miller's
//! backward recurrence, stable, every term bounded) up to x = 25, Hankel's asymptotic
//! expansion beyond, where it is accurate to rounding.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// J_0 .. J_top at `x` (0 < x <= 25) by backward recurrence, normalized by
/// J_0 + 2 (J_2 + J_4 + ...) = 1.
fn bessel_j_table(x: f64, top: usize) -> Vec<f64> {
    let start = 2 * ((top.max(x as usize) + 40) / 2);
    let mut j = vec![0.0f64; start + 2];
    j[start] = 1e-280;
    for k in (1..=start).rev() {
        j[k - 1] = 2.0 * k as f64 / x * j[k] - j[k + 1];
        if j[k - 1].abs() > 1e250 {
            // Rescale what has been computed so far to stay in range.
            for v in j[k - 1..].iter_mut() {
                *v *= 1e-250;
            }
        }
    }
    let norm = j[0] + 2.0 * j.iter().skip(2).step_by(2).sum::<f64>();
    j.truncate(top + 1);
    j.iter_mut().for_each(|v| *v /= norm);
    j
}

/// (Y0, Y1) for 0 < x <= 25 from the Neumann series
/// Y0 = 2/pi [(ln(x/2) + gamma) J0 - 2 sum (-1)^k J_2k / k] and its derivative.
fn neumann(x: f64) -> (f64, f64) {
    let top = x as usize + 45;
    let j = bessel_j_table(x, top + 1);
    let log_term = (x / 2.0).ln() + EULER_GAMMA;
    let (mut s0, mut s1) = (0.0, 0.0);
    let mut k = 1;
    while 2 * k < top {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        s0 += sign * j[2 * k] / k as f64;
        s1 += sign * (j[2 * k - 1] - j[2 * k + 1]) / k as f64;
        k += 1;
    }
    let y0 = 2.0 / PI * (log_term * j[0] - 2.0 * s0);
    let y1 = -2.0 / PI * (j[0] / x - log_term * j[1] - s1);
    (y0, y1)
}

/// Y_v(x) for x > 25 (v = 0 or 1) from Hankel's expansion in 1/x, summed until its terms
/// reach rounding.
fn hankel(v: f64, x: f64) -> f64 {
    let mu = 4.0 * v * v;
    let (mut p, mut q) = (1.0, 0.0);
    let mut term = 1.0f64;
    for k in 1..60 {
        let next = term * (mu - ((2 * k - 1) * (2 * k - 1)) as f64) / (k as f64 * 8.0 * x);
        if next.abs() >= term.abs() && k > 2 {
            break;
        }
        term = next;
        // Terms alternate in sign in pairs: +t0, +t1, -t2, -t3, +t4 ...
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            p += sign * term;
        } else {
            q += sign * term;
        }
        if term.abs() < 1e-17 {
            break;
        }
    }
    let (s, c) = x.sin_cos();
    // chi = x - (v/2 + 1/4) pi, expanded so large x keeps its exact argument reduction.
    let (sin_chi, cos_chi) = if v == 0.0 {
        ((s - c) * FRAC_1_SQRT_2, (c + s) * FRAC_1_SQRT_2)
    } else {
        ((-s - c) * FRAC_1_SQRT_2, (s - c) * FRAC_1_SQRT_2)
    };
    (2.0 / (PI * x)).sqrt() * (p * sin_chi + q * cos_chi)
}

fn y(v: f64, x: f64) -> f64 {
    // PyTorch's values: NaN below 0 and at +inf, -inf at 0.
    if x.is_nan() || x < 0.0 || x == f64::INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 1e-8 {
        // The leading terms; the next ones are below rounding.
        return if v == 0.0 {
            2.0 / PI * ((x / 2.0).ln() + EULER_GAMMA)
        } else {
            -2.0 / (PI * x)
        };
    }
    if x > 25.0 {
        return hankel(v, x);
    }
    let (y0, y1) = neumann(x);
    if v == 0.0 {
        y0
    } else {
        y1
    }
}

/// `Y0(x)`: NaN below 0 (and at inf, as PyTorch gives), -inf at 0.
pub fn bessel_y0(x: f64) -> f64 {
    y(0.0, x)
}

/// `Y1(x)`: NaN below 0, -inf at 0.
pub fn bessel_y1(x: f64) -> f64 {
    y(1.0, x)
}

/// `sin(x) / x`, 1 at 0, 0 at +-inf.
pub fn spherical_bessel_j0(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    if x.abs() < 0.5 {
        // The Taylor series, which avoids the cancellation in sin(x)/x near 0.
        let x2 = x * x;
        let mut term = 1.0;
        let mut sum = 1.0;
        for k in 1..10 {
            term *= -x2 / ((2 * k) as f64 * (2 * k + 1) as f64);
            sum += term;
        }
        return sum;
    }
    x.sin() / x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() < tol * b.abs().max(1e-300);
        assert!(close(bessel_y0(1.0), 0.088_256_964_215_676_96, 1e-13));
        assert!(close(bessel_y1(1.0), -0.781_212_821_300_288_7, 1e-13));
        assert!(close(bessel_y0(10.0), 0.055_671_167_283_599_39, 1e-12));
        assert!(close(bessel_y1(10.0), 0.249_015_424_206_953_9, 1e-12));
        assert!(close(bessel_y0(30.0), -0.117_295_731_686_663_9, 1e-13));
        assert!(close(bessel_y0(1e-3), -4.471_416_611_375_923, 1e-14));
    }
}

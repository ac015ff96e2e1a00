//! Bessel functions of orders 0 and 1: the modified `I` (plain and exponentially scaled) and
//! the first kind `J`. Power series where they converge without cancellation, Miller's
//! backward recurrence for `J` in between, Hankel's asymptotic expansions for large |x|.

use std::f64::consts::PI;

/// Where the asymptotic expansions take over (their smallest term is about e^(-2x)).
const ASYMPTOTIC_FROM: f64 = 25.0;

/// `I_nu(x)` for x >= 0 by its power series (all terms positive).
fn i_series(nu: u32, x: f64) -> f64 {
    let q = 0.25 * x * x;
    let mut term = if nu == 0 { 1.0 } else { 0.5 * x };
    let mut sum = term;
    for k in 1..500 {
        term *= q / (k as f64 * (k + nu) as f64);
        sum += term;
        if term < f64::EPSILON * 0.5 * sum {
            break;
        }
    }
    sum
}

/// `I_nu(x) e^-x` for large x > 0: `sum (-1)^k a_k(nu) / x^k / sqrt(2 pi x)`.
fn i_scaled_asymptotic(nu: u32, x: f64) -> f64 {
    let mu = 4.0 * (nu * nu) as f64;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..200 {
        let odd = (2 * k - 1) as f64;
        let next = -term * (mu - odd * odd) / (8.0 * k as f64 * x);
        if next.abs() > term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() < f64::EPSILON * 0.5 * sum.abs() {
            break;
        }
    }
    sum / (2.0 * PI * x).sqrt()
}

fn i_scaled(nu: u32, ax: f64) -> f64 {
    if ax > ASYMPTOTIC_FROM {
        i_scaled_asymptotic(nu, ax)
    } else {
        i_series(nu, ax) * (-ax).exp()
    }
}

fn i_plain(nu: u32, ax: f64) -> f64 {
    if ax.is_infinite() {
        // PyTorch's i0/i1 meet inf / inf at infinity: NaN, not the limit.
        f64::NAN
    } else if ax > ASYMPTOTIC_FROM {
        ax.exp() * i_scaled_asymptotic(nu, ax)
    } else {
        i_series(nu, ax)
    }
}

/// Modified Bessel function of the first kind, order 0 (even).
pub fn i0(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    i_plain(0, x.abs())
}

/// `exp(-|x|) * i0(x)`.
pub fn i0e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    i_scaled(0, x.abs())
}

/// Modified Bessel function of the first kind, order 1 (odd).
pub fn i1(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let v = i_plain(1, x.abs());
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// `exp(-|x|) * i1(x)`.
pub fn i1e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let v = i_scaled(1, x.abs());
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// `J_nu(x)` for small |x| <= 1 by its alternating power series (no cancellation there).
fn j_series(nu: u32, x: f64) -> f64 {
    let q = -0.25 * x * x;
    let mut term = if nu == 0 { 1.0 } else { 0.5 * x };
    let mut sum = term;
    for k in 1..60 {
        term *= q / (k as f64 * (k + nu) as f64);
        sum += term;
        if term.abs() < f64::EPSILON * 0.25 * sum.abs() {
            break;
        }
    }
    sum
}

/// `(J0(x), J1(x))` for 1 <= x <= 25 by Miller's backward recurrence, normalised with
/// `J0 + 2 (J2 + J4 + ...) = 1`.
fn j_miller(x: f64) -> (f64, f64) {
    let n = 2 * ((1.5 * x) as usize / 2 + 16);
    let (mut above, mut cur) = (0.0f64, 1e-30f64);
    let (mut norm, mut j1) = (0.0f64, 0.0f64);
    for k in (1..=n).rev() {
        if k % 2 == 0 {
            norm += 2.0 * cur;
        }
        let below = 2.0 * k as f64 / x * cur - above;
        above = cur;
        cur = below;
        if k == 1 {
            j1 = above;
        }
        if cur.abs() > 1e250 {
            // Rescale everything kept so the recurrence cannot overflow.
            for v in [&mut above, &mut cur, &mut norm, &mut j1] {
                *v *= 1e-250;
            }
        }
    }
    norm += cur;
    (cur / norm, j1 / norm)
}

/// Hankel's expansion of `J_nu(x)` for large x > 0, with the phase built from sin x and
/// cos x (exact argument reduction) rather than from x - nu pi/2 - pi/4.
fn j_asymptotic(nu: u32, x: f64) -> f64 {
    let mu = 4.0 * (nu * nu) as f64;
    let (mut p, mut q, mut term) = (1.0f64, 0.0f64, 1.0f64);
    for k in 1..200 {
        let odd = (2 * k - 1) as f64;
        let next = term * (mu - odd * odd) / (8.0 * k as f64 * x);
        if next.abs() > term.abs() {
            break;
        }
        term = next;
        // a_k enters P (even k) or Q (odd k) with alternating signs.
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            p += sign * term;
        } else {
            q += sign * term;
        }
        if term.abs() < f64::EPSILON * 0.25 {
            break;
        }
    }
    let (s, c) = x.sin_cos();
    let (cos_w, sin_w) = if nu == 0 {
        (c + s, s - c)
    } else {
        (s - c, -s - c)
    };
    (2.0 / (PI * x)).sqrt() * std::f64::consts::FRAC_1_SQRT_2 * (p * cos_w - q * sin_w)
}

fn j_of(nu: u32, ax: f64) -> f64 {
    // At infinity the phase is undefined: NaN, as PyTorch gives.
    if ax <= 1.0 {
        j_series(nu, ax)
    } else if ax <= ASYMPTOTIC_FROM {
        let (j0, j1) = j_miller(ax);
        if nu == 0 {
            j0
        } else {
            j1
        }
    } else {
        j_asymptotic(nu, ax)
    }
}

/// Bessel function of the first kind, order 0 (even).
pub fn bessel_j0(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    j_of(0, x.abs())
}

/// Bessel function of the first kind, order 1 (odd).
pub fn bessel_j1(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let v = j_of(1, x.abs());
    if x < 0.0 {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Reference values of I0, I1, J0, J1 (Abramowitz & Stegun tables).
        assert!((i0(1.0) - 1.266_065_877_752_008_4).abs() < 1e-15);
        assert!((i1(1.0) - 0.565_159_103_992_485).abs() < 1e-15);
        assert!((i0e(30.0) * (30f64).exp() / 7.816_722_978_239_9e11 - 1.0).abs() < 1e-12);
        assert!((bessel_j0(1.0) - 0.765_197_686_557_966_6).abs() < 1e-15);
        assert!((bessel_j1(2.0) - 0.576_724_807_756_873_4).abs() < 1e-15);
        assert!((bessel_j0(10.0) + 0.245_935_764_451_348_3).abs() < 1e-14);
        assert!((bessel_j0(30.0) + 0.086_367_983_581_040_23).abs() < 1e-14);
        assert_eq!(i1e(f64::NEG_INFINITY), -0.0);
        assert!(i0(f64::INFINITY).is_nan());
    }
}

//! The Airy function Ai. Beyond |x| = 10 its asymptotic expansions (DLMF 9.7.5, 9.7.9) are
//! accurate to rounding; inside, Ai'' = x Ai is integrated by Taylor series from nodes every
//! 0.5, whose values come once from Ai(0), Ai'(0) going left and from the expansion at 10
//! going right (the direction in which the decaying solution is stable).

use std::f64::consts::PI;
use std::sync::OnceLock;

/// Ai(0) = 1 / (3^(2/3) Gamma(2/3)) and Ai'(0) = -1 / (3^(1/3) Gamma(1/3)).
const AI0: f64 = 0.355_028_053_887_817_2;
const AIP0: f64 = -0.258_819_403_792_806_8;
/// Where the asymptotic expansions take over, and the spacing of the Taylor nodes.
const EDGE: f64 = 10.0;
const SPACING: f64 = 0.5;
const NODES: usize = 20;
/// Terms of the expansions kept: at |x| >= 10 the smallest term is below 1e-18.
const TERMS: usize = 40;

/// (Ai, Ai') at `x0 + h` from their values at `x0`, by the Taylor series of Ai'' = x Ai,
/// whose coefficients satisfy (k+2)(k+1) a_{k+2} = x0 a_k + a_{k-1}.
fn taylor_step(x0: f64, y: f64, dy: f64, h: f64) -> (f64, f64) {
    let (mut prev, mut cur, mut next) = (0.0, y, dy);
    let (mut value, mut slope) = (y + dy * h, dy);
    let mut h_pow = h; // h^(k+1)
    let mut small = 0;
    for k in 0..200 {
        let kf = k as f64;
        let a = (x0 * cur + prev) / ((kf + 2.0) * (kf + 1.0));
        let dv = a * h_pow * h;
        let dd = (kf + 2.0) * a * h_pow;
        value += dv;
        slope += dd;
        // Every third coefficient vanishes at x0 = 0: stop after three negligible terms.
        if dv.abs() <= 1e-18 * value.abs() && dd.abs() <= 1e-18 * slope.abs() {
            small += 1;
            if small == 3 {
                break;
            }
        } else {
            small = 0;
        }
        (prev, cur, next) = (cur, next, a);
        h_pow *= h;
    }
    (value, slope)
}

/// The coefficients u_k and v_k of DLMF 9.7.2.
fn coefficients() -> &'static ([f64; TERMS], [f64; TERMS]) {
    static C: OnceLock<([f64; TERMS], [f64; TERMS])> = OnceLock::new();
    C.get_or_init(|| {
        let (mut u, mut v) = ([1.0; TERMS], [1.0; TERMS]);
        for k in 1..TERMS {
            let kf = k as f64;
            u[k] = u[k - 1] * (6.0 * kf - 5.0) * (6.0 * kf - 3.0) * (6.0 * kf - 1.0)
                / ((2.0 * kf - 1.0) * 216.0 * kf);
            v[k] = -(6.0 * kf + 1.0) / (6.0 * kf - 1.0) * u[k];
        }
        (u, v)
    })
}

/// (Ai, Ai') for large positive x: e^-zeta / (2 sqrt(pi) x^(1/4)) sum (-1)^k u_k zeta^-k.
fn decaying(x: f64) -> (f64, f64) {
    let (u, v) = coefficients();
    let zeta = 2.0 / 3.0 * x * x.sqrt();
    let (mut s, mut sd, mut t, mut last) = (0.0f64, 0.0, 1.0, f64::INFINITY);
    for k in 0..TERMS {
        let term = u[k] * t;
        if term.abs() > last || term.abs() < 1e-18 * s.abs() {
            break;
        }
        s += term;
        sd += v[k] * t;
        last = term.abs();
        t *= -1.0 / zeta;
    }
    let e = (-zeta).exp() / (2.0 * PI.sqrt());
    let q = x.sqrt().sqrt();
    (e / q * s, -e * q * sd)
}

/// Ai(-z) for large positive z: the two interleaved series times cos and sin of
/// zeta - pi/4 (taken from cos and sin of zeta, so a large zeta loses nothing more).
fn oscillating(z: f64) -> f64 {
    let (u, _) = coefficients();
    let zeta = 2.0 / 3.0 * z * z.sqrt();
    let (mut even, mut odd, mut t, mut last) = (0.0f64, 0.0f64, 1.0f64, f64::INFINITY);
    for (k, &uk) in u.iter().enumerate() {
        let term = uk * t;
        if term > last || term < 1e-18 {
            break;
        }
        let signed = if (k / 2) % 2 == 0 { term } else { -term };
        if k % 2 == 0 {
            even += signed;
        } else {
            odd += signed;
        }
        last = term;
        t /= zeta;
    }
    let (s, c) = zeta.sin_cos();
    let r = std::f64::consts::FRAC_1_SQRT_2;
    ((c + s) * r * even + (s - c) * r * odd) / (PI.sqrt() * z.sqrt().sqrt())
}

/// (Ai, Ai') at each node of one half line.
type Nodes = [(f64, f64); NODES + 1];

/// (Ai, Ai') at the nodes 0, -0.5, ..., -10 and 0, 0.5, ..., 10.
fn nodes() -> &'static (Nodes, Nodes) {
    static N: OnceLock<(Nodes, Nodes)> = OnceLock::new();
    N.get_or_init(|| {
        let mut left = [(AI0, AIP0); NODES + 1];
        for i in 0..NODES {
            let (y, dy) = left[i];
            left[i + 1] = taylor_step(-(i as f64) * SPACING, y, dy, -SPACING);
        }
        let mut right = [(AI0, AIP0); NODES + 1];
        right[NODES] = decaying(EDGE);
        for i in (1..NODES).rev() {
            let (y, dy) = right[i + 1];
            right[i] = taylor_step((i + 1) as f64 * SPACING, y, dy, -SPACING);
        }
        (left, right)
    })
}

/// The Airy function Ai(x); NaN at NaN and at both infinities, as PyTorch's.
pub fn airy_ai(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x >= EDGE {
        return decaying(x).0;
    }
    if x <= -EDGE {
        return oscillating(-x);
    }
    let (left, right) = nodes();
    let i = (x.abs() / SPACING).round() as usize;
    let (x0, (y, dy)) = if x >= 0.0 {
        (i as f64 * SPACING, right[i])
    } else {
        (-(i as f64) * SPACING, left[i])
    };
    taylor_step(x0, y, dy, x - x0).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Values from mpmath.airyai at 30 digits.
        for (x, ai) in [
            (0.0, 0.355_028_053_887_817_2),
            (1.0, 0.135_292_416_312_881_4),
            (-1.0, 0.535_560_883_292_352_1),
            (5.0, 1.083_444_281_360_744_2e-4),
            (-5.0, 0.350_761_009_024_114_3),
            (-10.0, 0.040_241_238_486_443_19),
            (20.0, 1.691_672_868_670_540_3e-27),
        ] {
            let got = airy_ai(x);
            assert!(
                (got - ai).abs() <= 1e-14 * ai.abs(),
                "Ai({x}) = {got}, not {ai}"
            );
        }
        assert!(airy_ai(f64::INFINITY).is_nan() && airy_ai(f64::NEG_INFINITY).is_nan());
    }

    #[test]
    fn continuous_where_the_methods_meet() {
        for x in [EDGE, -EDGE, 0.25, -0.25, 9.75, -9.75] {
            let (a, b) = (airy_ai(x - 1e-12), airy_ai(x + 1e-12));
            assert!((a - b).abs() < 1e-11, "{x}: {a} vs {b}");
        }
    }
}

//! Classical orthogonal polynomials of degree `n` at `x` (`torch.special.*_polynomial_*`):
//! three-term recurrences, with the closed trigonometric forms PyTorch switches to for
//! Chebyshev polynomials of high degree inside (-1, 1), its values at the end points, and 0
//! for a negative degree.

/// Which polynomial family.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Polynomial {
    ChebyshevT,
    ChebyshevU,
    ChebyshevV,
    ChebyshevW,
    ShiftedChebyshevT,
    ShiftedChebyshevU,
    ShiftedChebyshevV,
    ShiftedChebyshevW,
    HermiteH,
    HermiteHe,
    LaguerreL,
    LegendreP,
}

/// The degree as PyTorch reads it: truncated toward zero; NaN counts as negative.
pub fn degree(n: f64) -> i64 {
    if n.is_nan() {
        -1
    } else {
        n.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64
    }
}

/// `p_{k+1} = a_k(x) p_k - b_k p_{k-1}` run from `(p0, p1)` up to degree `n >= 1`.
fn recur(n: i64, p0: f64, p1: f64, step: impl Fn(i64, f64, f64) -> f64) -> f64 {
    let (mut p, mut q) = (p0, p1);
    for k in 1..n {
        let r = step(k, p, q);
        p = q;
        q = r;
    }
    q
}

fn odd(n: i64) -> bool {
    n % 2 != 0
}

/// Chebyshev T, U, V, W at `y` (already shifted for the shifted families), where `edge` is
/// the end point value when `|y| == 1` and `trig` the closed form for high degrees.
fn chebyshev(kind: u8, y: f64, n: i64, trig_from: i64) -> f64 {
    let nf = n as f64;
    if y.abs() == 1.0 {
        let positive = y > 0.0;
        return match kind {
            b'T' => {
                if positive || !odd(n) {
                    1.0
                } else {
                    -1.0
                }
            }
            b'U' => {
                if positive || !odd(n) {
                    nf + 1.0
                } else {
                    -(nf + 1.0)
                }
            }
            b'V' => {
                if positive {
                    1.0
                } else if !odd(n) {
                    2.0 * nf + 1.0
                } else {
                    -(2.0 * nf + 1.0)
                }
            }
            _ => {
                if positive {
                    2.0 * nf + 1.0
                } else if !odd(n) {
                    1.0
                } else {
                    -1.0
                }
            }
        };
    }
    if n > trig_from && y.abs() < 1.0 {
        let theta = y.acos();
        return match kind {
            b'T' => (nf * theta).cos(),
            b'U' => {
                let s = theta.sin();
                if s != 0.0 {
                    ((nf + 1.0) * theta).sin() / s
                } else {
                    (nf + 1.0) * ((nf + 1.0) * theta).cos()
                }
            }
            b'V' => ((nf + 0.5) * theta).cos() / (theta / 2.0).cos(),
            _ => ((nf + 0.5) * theta).sin() / (theta / 2.0).sin(),
        };
    }
    let first = match kind {
        b'T' => y,
        b'U' => 2.0 * y,
        b'V' => 2.0 * y - 1.0,
        _ => 2.0 * y + 1.0,
    };
    if n == 0 {
        return 1.0;
    }
    if n == 1 {
        return first;
    }
    recur(n, 1.0, first, |_, p, q| 2.0 * y * q - p)
}

/// The polynomial of the family `kind` and degree `n` at `x`.
pub fn polynomial(kind: Polynomial, x: f64, n: f64) -> f64 {
    use Polynomial::*;
    let n = degree(n);
    if n < 0 {
        return 0.0;
    }
    match kind {
        ChebyshevT => chebyshev(b'T', x, n, 6),
        ChebyshevU => chebyshev(b'U', x, n, 8),
        ChebyshevV => chebyshev(b'V', x, n, 8),
        ChebyshevW => chebyshev(b'W', x, n, 8),
        ShiftedChebyshevT => chebyshev(b'T', 2.0 * x - 1.0, n, 6),
        ShiftedChebyshevU => chebyshev(b'U', 2.0 * x - 1.0, n, 6),
        ShiftedChebyshevV => chebyshev(b'V', 2.0 * x - 1.0, n, 6),
        ShiftedChebyshevW => chebyshev(b'W', 2.0 * x - 1.0, n, 4),
        // H_{k+1} = 2x H_k - 2k H_{k-1}
        HermiteH => match n {
            0 => 1.0,
            1 => 2.0 * x,
            _ => recur(n, 1.0, 2.0 * x, |k, p, q| 2.0 * x * q - 2.0 * k as f64 * p),
        },
        // He_{k+1} = x He_k - k He_{k-1}
        HermiteHe => match n {
            0 => 1.0,
            1 => x,
            _ => recur(n, 1.0, x, |k, p, q| x * q - k as f64 * p),
        },
        // (k+1) L_{k+1} = (2k+1-x) L_k - k L_{k-1}
        LaguerreL => {
            if x == 0.0 || n == 0 {
                return 1.0;
            }
            if n == 1 {
                return 1.0 - x;
            }
            recur(n, 1.0, 1.0 - x, |k, p, q| {
                let k = k as f64;
                ((2.0 * k + 1.0 - x) * q - k * p) / (k + 1.0)
            })
        }
        // (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}
        LegendreP => {
            if x.abs() == 1.0 {
                return if x > 0.0 || !odd(n) { 1.0 } else { -1.0 };
            }
            match n {
                0 => 1.0,
                1 => x,
                _ => recur(n, 1.0, x, |k, p, q| {
                    let k = k as f64;
                    ((2.0 * k + 1.0) * x * q - k * p) / (k + 1.0)
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Polynomial::*;
    use super::*;

    #[test]
    fn low_degrees_match_closed_forms() {
        let x = 0.3;
        assert!((polynomial(ChebyshevT, x, 3.0) - (4.0 * x * x * x - 3.0 * x)).abs() < 1e-15);
        assert!((polynomial(ChebyshevT, x, 9.0) - (9.0 * x.acos()).cos()).abs() < 1e-14);
        assert!((polynomial(HermiteH, x, 2.0) - (4.0 * x * x - 2.0)).abs() < 1e-15);
        assert!((polynomial(HermiteHe, x, 3.0) - (x * x * x - 3.0 * x)).abs() < 1e-15);
        assert!((polynomial(LegendreP, x, 2.0) - (1.5 * x * x - 0.5)).abs() < 1e-15);
        assert!((polynomial(LaguerreL, x, 2.0) - (0.5 * x * x - 2.0 * x + 1.0)).abs() < 1e-15);
        assert_eq!(polynomial(LegendreP, x, -1.0), 0.0);
        assert_eq!(polynomial(ChebyshevU, -1.0, 3.0), -4.0);
    }
}

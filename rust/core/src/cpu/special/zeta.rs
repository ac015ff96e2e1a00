//! The Hurwitz zeta function `zeta(s, q) = sum_k (q + k)^-s`.

/// `B_2k / (2k)!` for k = 1..12: the Euler-Maclaurin correction coefficients.
const EM: [f64; 12] = [
    1.0 / 12.0,
    -1.0 / 720.0,
    1.0 / 30240.0,
    -1.0 / 1209600.0,
    1.0 / 47900160.0,
    -691.0 / 1307674368000.0,
    1.0 / 74724249600.0,
    -3617.0 / 10670622842880000.0,
    43867.0 / 5109094217170944000.0,
    -174611.0 / 802857662698291200000.0,
    77683.0 / 14101100039391805440000.0,
    -236364091.0 / 1693824136731743669452800000.0,
];

/// Hurwitz zeta for real `s > 1`. PyTorch's domain rules: inf at s == 1, NaN below; for
/// `q <= 0` inf at the integers and NaN unless `s` is an integer (then the sum is real).
pub fn zeta(s: f64, q: f64) -> f64 {
    if s == 1.0 {
        return f64::INFINITY;
    }
    if s < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if s != s.floor() {
            return f64::NAN;
        }
    }
    if s.is_nan() || q.is_nan() {
        return f64::NAN;
    }
    // PyTorch's series meets 0 * inf at q = inf: NaN, not the limit 0.
    if q == f64::INFINITY {
        return f64::NAN;
    }
    // Direct terms until q + n is large enough for the Euler-Maclaurin tail (the tail's
    // series needs a > (s + 24) / (2 pi)), stopping early once the terms no longer matter.
    let threshold = 10f64.max((s + 24.0) / 6.0);
    let (mut sum, mut a, mut n) = (0.0f64, q, 0);
    while a < threshold || n < 10 {
        let t = a.powf(-s);
        sum += t;
        n += 1;
        a += 1.0;
        if a > 0.0 && t.abs() <= f64::EPSILON * 1e-3 * sum.abs() {
            return sum;
        }
    }
    let b = a.powf(-s);
    let mut tail = a * b / (s - 1.0) + 0.5 * b;
    // Terms B_2k/(2k)! * s(s+1)...(s+2k-2) * a^(-s-2k+1).
    let (mut poch, mut pw) = (s, b / a);
    for (k, c) in EM.iter().enumerate() {
        let t = c * poch * pw;
        tail += t;
        if t.abs() < f64::EPSILON * 1e-2 * (sum + tail).abs() {
            break;
        }
        let k2 = 2.0 * k as f64;
        poch *= (s + k2 + 1.0) * (s + k2 + 2.0);
        pw /= a * a;
    }
    sum + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn riemann_values() {
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((zeta(2.0, 1.0) - pi2 / 6.0).abs() < 1e-15);
        assert!((zeta(4.0, 1.0) - pi2 * pi2 / 90.0).abs() < 1e-15);
        assert!((zeta(2.0, 2.0) - (pi2 / 6.0 - 1.0)).abs() < 1e-15);
        assert!((zeta(1.5, 1.0) - 2.612_375_348_685_488).abs() < 1e-14);
        assert!((zeta(100.0, 1.0) - 1.0).abs() < 1e-15);
        assert_eq!(zeta(2.0, -1.0), f64::INFINITY);
        assert!(zeta(2.5, -1.5).is_nan());
        assert!(zeta(0.5, 1.0).is_nan());
    }
}

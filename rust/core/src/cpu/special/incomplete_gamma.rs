//! The regularized incomplete gamma functions `P(a, x)` (gammainc) and `Q(a, x)` (gammaincc),
//! and `d x / d a` at fixed `P(a, x)`: the reparameterized gradient of a gamma sample.
//!
//! Both come from one evaluation: the power series of P (x < a + 1) or Legendre's continued
//! fraction of Q, each carried with its derivative in `a` (forward-mode dual numbers). Dividing
//! `dP/da` by the density cancels the prefactor `x^a e^-x / Gamma(a)`, so the gradient needs
//! no exponential and neither overflows nor underflows.

use super::gamma::{digamma, lgamma};

/// A value with its derivative in the shape `a`.
#[derive(Clone, Copy, Debug)]
struct Dual {
    v: f64,
    d: f64,
}

impl Dual {
    fn new(v: f64, d: f64) -> Dual {
        Dual { v, d }
    }
    fn add(self, o: Dual) -> Dual {
        Dual::new(self.v + o.v, self.d + o.d)
    }
    fn mul(self, o: Dual) -> Dual {
        Dual::new(self.v * o.v, self.d * o.v + self.v * o.d)
    }
    fn recip(self) -> Dual {
        let r = 1.0 / self.v;
        Dual::new(r, -self.d * r * r)
    }
    fn div(self, o: Dual) -> Dual {
        self.mul(o.recip())
    }
}

const MAX_TERMS: usize = 1_000_000;
const TINY: f64 = 1e-300;

/// `S = sum_n x^n / ((a+1)...(a+n))`, so `P = x^a e^-x S / Gamma(a+1)`, with `dS/da`.
fn lower_series(a: f64, x: f64) -> Dual {
    let (mut term, mut sum) = (Dual::new(1.0, 0.0), Dual::new(1.0, 0.0));
    for n in 1..MAX_TERMS {
        let an = a + n as f64;
        let r = x / an;
        term = Dual::new(term.v * r, term.d * r - term.v * r / an);
        sum = sum.add(term);
        // All values are positive and all derivatives negative: no cancellation to wait for.
        if term.v <= f64::EPSILON * 0.25 * sum.v
            && term.d.abs() <= f64::EPSILON * 0.25 * sum.d.abs()
        {
            break;
        }
    }
    sum
}

/// Legendre's continued fraction `h`, with `Q = x^a e^-x h / Gamma(a)` (modified Lentz).
fn upper_fraction(a: f64, x: f64) -> Dual {
    let clamp = |v: Dual| {
        if v.v.abs() < TINY {
            Dual::new(TINY, v.d)
        } else {
            v
        }
    };
    let mut b = Dual::new(x + 1.0 - a, -1.0);
    let mut c = Dual::new(1.0 / TINY, 0.0);
    let mut d = clamp(b).recip();
    let mut h = d;
    for i in 1..MAX_TERMS {
        let fi = i as f64;
        let an = Dual::new(-fi * (fi - a), fi);
        b = b.add(Dual::new(2.0, 0.0));
        d = clamp(an.mul(d).add(b)).recip();
        c = clamp(b.add(an.div(c)));
        let del = d.mul(c);
        h = h.mul(del);
        if (del.v - 1.0).abs() <= f64::EPSILON
            && del.d.abs() <= f64::EPSILON * (h.d / h.v).abs().max(TINY)
        {
            break;
        }
    }
    h
}

/// `ln a - digamma(a)`, by its asymptotic series for large a (no cancellation there).
fn log_minus_digamma(a: f64) -> f64 {
    if a < 10.0 {
        return a.ln() - digamma(a);
    }
    let z = 1.0 / (a * a);
    0.5 / a + z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z * (1.0 / 240.0))))
}

/// `d/da ln(x^a e^-x / Gamma(a)) = ln x - digamma(a)`; near x = a as `ln(x/a) + (ln a -
/// digamma(a))` so that large shapes keep their digits.
fn log_prefactor_slope(a: f64, x: f64) -> f64 {
    if x >= 0.5 * a && x <= 2.0 * a {
        ((x - a) / a).ln_1p() + log_minus_digamma(a)
    } else {
        x.ln() - digamma(a)
    }
}

/// `ln(x^a e^-x / Gamma(a))`. For large a the three terms are huge and nearly cancel, so it
/// is taken as `-a phi((x - a)/a) + ln(a / 2pi)/2 - stirling(a)`, `phi(u) = u - ln(1 + u)`.
fn log_prefactor(a: f64, x: f64) -> f64 {
    if a < 10.0 {
        return a * x.ln() - x - lgamma(a);
    }
    let u = (x - a) / a;
    let phi = if u.abs() < 0.3 {
        // u^2/2 - u^3/3 + u^4/4 - ...: no cancellation near u = 0.
        let (mut p, mut sum) = (u * u, 0.0f64);
        for k in 2..80 {
            let t = p / k as f64;
            sum += t;
            if t.abs() < 1e-17 * sum.abs() {
                break;
            }
            p *= -u;
        }
        sum
    } else if u > -0.5 {
        u - u.ln_1p()
    } else {
        // Far below a, 1 + u would lose x/a: take the logarithm of the ratio itself.
        u - (x / a).ln()
    };
    let z = 1.0 / (a * a);
    let stirling =
        (1.0 / 12.0 - z * (1.0 / 360.0 - z * (1.0 / 1260.0 - z * (1.0 / 1680.0 - z / 1188.0)))) / a;
    -a * phi + 0.5 * (a / (2.0 * std::f64::consts::PI)).ln() - stirling
}

/// The domain rules shared by P and Q (SciPy's and PyTorch's, in their order): NaN for
/// negative arguments, then the edges a == 0, x == 0, a == inf, x == inf (which decide even
/// when the other argument is NaN); `Some(p)` there, None inside the domain.
fn edge_p(a: f64, x: f64) -> Option<f64> {
    if a < 0.0 || x < 0.0 {
        return Some(f64::NAN);
    }
    if a == 0.0 {
        return Some(if x > 0.0 { 1.0 } else { f64::NAN });
    }
    if x == 0.0 {
        return Some(0.0);
    }
    if a.is_infinite() {
        return Some(if x.is_infinite() { f64::NAN } else { 0.0 });
    }
    if x.is_infinite() {
        return Some(1.0);
    }
    if a.is_nan() || x.is_nan() {
        return Some(f64::NAN);
    }
    None
}

/// `P(a, x)`, the regularized lower incomplete gamma function.
pub fn gammainc(a: f64, x: f64) -> f64 {
    if let Some(p) = edge_p(a, x) {
        return p;
    }
    if x < a + 1.0 {
        (log_prefactor(a, x) - a.ln()).exp() * lower_series(a, x).v
    } else {
        1.0 - (log_prefactor(a, x)).exp() * upper_fraction(a, x).v
    }
}

/// `Q(a, x) = 1 - P(a, x)`, computed directly where it is the small one.
pub fn gammaincc(a: f64, x: f64) -> f64 {
    if let Some(p) = edge_p(a, x) {
        return if p.is_nan() { p } else { 1.0 - p };
    }
    if x < a + 1.0 {
        1.0 - (log_prefactor(a, x) - a.ln()).exp() * lower_series(a, x).v
    } else {
        log_prefactor(a, x).exp() * upper_fraction(a, x).v
    }
}

/// `dx/da` for a gamma(a, 1) sample x: `-(dP/da) / (dP/dx)`. 0 at x == 0; NaN outside the
/// domain (a <= 0, a or x infinite or NaN).
pub fn standard_gamma_grad(a: f64, x: f64) -> f64 {
    if a.is_nan() || x.is_nan() || a <= 0.0 || x < 0.0 || a.is_infinite() || x.is_infinite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    let slope = log_prefactor_slope(a, x);
    if x < a + 1.0 {
        let s = lower_series(a, x);
        -(x / a) * (s.v * (slope - 1.0 / a) + s.d)
    } else {
        let h = upper_fraction(a, x);
        x * (slope * h.v + h.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_shapes_keep_their_digits() {
        // P(10, 1e-16) = 1e-160 / 10! * (1 - 10/11 * 1e-16 ...)
        let p = gammainc(10.0, 1e-16);
        assert!((p / (1e-160 / 3_628_800.0) - 1.0).abs() < 1e-13, "{p}");
        // Q(a, a) tends to 1/2 - 1/(3 sqrt(2 pi a)); at a = 1e4 the next term is below 1e-8.
        let q = gammaincc(1e4, 1e4);
        assert!((q - 0.5 + 1.0 / (3.0 * (2.0 * std::f64::consts::PI * 1e4).sqrt())).abs() < 1e-8);
    }

    #[test]
    fn exponential_case_is_closed_form() {
        // a = 1: P = 1 - e^-x and dx/da = (ln x - digamma(1)) ... checked via finite differences.
        for &x in &[0.01, 0.5, 1.0, 2.0, 7.0, 30.0] {
            assert!((gammainc(1.0, x) - (1.0 - (-x).exp())).abs() < 1e-15);
            assert!((gammaincc(1.0, x) - (-x).exp()).abs() < 1e-14 * (-x).exp());
        }
    }

    #[test]
    fn gradient_matches_finite_differences_of_the_cdf() {
        for &a in &[0.05, 0.7, 1.0, 3.3, 25.0, 400.0] {
            for &x in &[0.2 * a, 0.9 * a, a + 1.5, 3.0 * a + 2.0] {
                let h = 1e-6 * a;
                // Differences of whichever of P and Q is small (the other has no digits left).
                let dp_da = if x < a {
                    (gammainc(a + h, x) - gammainc(a - h, x)) / (2.0 * h)
                } else {
                    (gammaincc(a - h, x) - gammaincc(a + h, x)) / (2.0 * h)
                };
                let pdf = (log_prefactor(a, x)).exp() / x;
                let fd = -dp_da / pdf;
                let g = standard_gamma_grad(a, x);
                assert!(
                    (g - fd).abs() < 1e-5 * g.abs().max(1e-3),
                    "a={a} x={x} {g} {fd}"
                );
            }
        }
    }
}

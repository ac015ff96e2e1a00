//! Every vector kernel at every level this CPU has, against float64 references: a dense sweep,
//! lengths with tails, and special values (zeros, infinities, NaN, subnormals, large |x|).

use super::{imp, Grad, Unary};
use crate::cpu::simd::Level;

fn levels() -> Vec<Level> {
    let mut v = Vec::new();
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        v.push(Level::Avx2);
    }
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
    {
        v.push(Level::Avx512);
    }
    v
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;

fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / 2f64.sqrt())
}
fn pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}
fn sig(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The float64 value and a scale for its error: the magnitude of the terms it is a sum of
/// (relative error where nothing cancels; near a zero crossing, error against the terms).
fn reference_unary(op: Unary, x: f64) -> (f64, f64) {
    let v = match op {
        Unary::Exp => x.exp(),
        Unary::Log => x.ln(),
        Unary::Tanh => x.tanh(),
        Unary::Sigmoid => sig(x),
        Unary::Silu => x * sig(x),
        Unary::Gelu => x * phi(x),
        // 0.5 x (1 + tanh u) = x sigmoid(2u), which keeps the negative tail in float64.
        Unary::GeluTanh => x * sig(2.0 * SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)),
        // The difference is rounded to f32 first, as the kernel's input to exp is.
        Unary::ExpMinus(m) => ((x as f32 - m) as f64).exp(),
    };
    (v, v.abs())
}

fn reference_grad(op: Grad, x: f64) -> (f64, f64) {
    match op {
        Grad::Silu => {
            let s = sig(x);
            (s * (1.0 + x * (1.0 - s)), s + (x * s * (1.0 - s)).abs())
        }
        Grad::Gelu => (phi(x) + x * pdf(x), phi(x) + (x * pdf(x)).abs()),
        Grad::GeluTanh => {
            let u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
            let du = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * x * x);
            // 0.5 (1 + tanh u) = sigmoid(2u) and 1 - tanh^2 u = 4 sigmoid(2u) (1 - sigmoid(2u)).
            let s = sig(2.0 * u);
            let (a, b) = (s, 2.0 * x * s * (1.0 - s) * du);
            (a + b, a + b.abs())
        }
    }
}

/// Asserts `got` is `want` to `rel` of `scale`; values below `floor` are judged by absolute
/// error `floor * rel` (results near the f32 underflow). Where the function has a factor
/// e^(-x^2 / 2), the f32 input's own rounding moves it by about 6e-8 x^2: `rel` grows by that.
fn check(what: &str, x: f32, got: f32, (want, scale): (f64, f64), rel: f64, floor: f64) {
    let rel = if what.contains("Gelu") {
        rel + 1.2e-7 * (x as f64).powi(2).min(1e4)
    } else {
        rel
    };
    if want.is_nan() {
        assert!(got.is_nan(), "{what}({x:e}) = {got:e}, want NaN");
        return;
    }
    if want.abs() > f32::MAX as f64 {
        assert_eq!(got, want as f32, "{what}({x:e}) overflows");
        return;
    }
    let err = (got as f64 - want).abs();
    let bound = if scale >= floor {
        rel * scale
    } else {
        rel * floor
    };
    // Results in the f32 subnormal range carry only absolute precision (and 1 / (1 + e^-x)
    // is 0 once e^-x overflows, as PyTorch's is, so x / (1 + e^-x) too).
    let bound = bound.max(1e-36);
    assert!(
        err <= bound,
        "{what}({x:e}) = {got:e}, want {want:e} (err {err:e} > {bound:e})"
    );
}

const SPECIAL: [f32; 22] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e-45,
    -1e-45,
    1e-40,
    -1e-40,
    f32::MIN_POSITIVE,
    1e-30,
    1e30,
    -1e30,
    f32::MAX,
    f32::MIN,
    88.7,
    88.73,
    89.0,
    -103.9,
    -104.5,
    20.0,
    -20.0,
];

/// A sweep over [lo, hi] (length 20011: leaves a tail at both widths) plus the specials.
fn inputs(lo: f32, hi: f32) -> Vec<f32> {
    let n = 20_011;
    let mut v: Vec<f32> = (0..n)
        .map(|i| lo + (hi - lo) * i as f32 / (n - 1) as f32)
        .collect();
    v.extend_from_slice(&SPECIAL);
    v
}

/// (op, sweep range, relative tolerance, floor below which error is absolute)
fn unary_cases() -> Vec<(Unary, f32, f32, f64, f64)> {
    vec![
        (Unary::Exp, -110.0, 90.0, 4e-7, 1e-37),
        (Unary::ExpMinus(1.5), -100.0, 90.0, 4e-7, 1e-37),
        (Unary::Log, 1e-3, 1e3, 3e-7, 0.0),
        (Unary::Log, 0.5, 2.0, 3e-7, 0.0),
        (Unary::Tanh, -12.0, 12.0, 1e-6, 0.0),
        (Unary::Sigmoid, -110.0, 30.0, 1e-6, 1e-37),
        (Unary::Silu, -110.0, 30.0, 1e-6, 1e-37),
        (Unary::Gelu, -15.0, 12.0, 2e-6, 1e-37),
        // Every vector inside |x| < 3: the short form of the normal tail alone.
        (Unary::Gelu, -2.9999, 2.9999, 3e-7, 0.0),
        (Unary::GeluTanh, -15.0, 12.0, 2e-6, 1e-37),
    ]
}

#[test]
fn unary_kernels_match_float64() {
    for lv in levels() {
        for (op, lo, hi, rel, floor) in unary_cases() {
            let x = inputs(lo, hi);
            let mut out = vec![0f32; x.len()];
            imp::map(lv, op, &x, &mut out);
            for (&xi, &yi) in x.iter().zip(&out) {
                let what = format!("{lv:?} {op:?}");
                check(&what, xi, yi, reference_unary(op, xi as f64), rel, floor);
            }
        }
    }
}

#[test]
fn log_of_subnormals_and_powers_of_two_is_exact_enough() {
    for lv in levels() {
        let x: Vec<f32> = (-149..128)
            .map(|e| 2f32.powi(e))
            .chain([1.5e-42, 3e-39])
            .collect();
        let mut out = vec![0f32; x.len()];
        imp::map(lv, Unary::Log, &x, &mut out);
        for (&xi, &yi) in x.iter().zip(&out) {
            let want = (xi as f64).ln();
            assert!(
                ((yi as f64 - want) / want.abs().max(1e-30)).abs() < 3e-7 || yi as f64 == want,
                "{lv:?} ln({xi:e}) = {yi}"
            );
        }
    }
}

#[test]
fn grad_kernels_match_float64() {
    let cases = [
        (Grad::Silu, -110.0, 30.0, 2e-6, 1e-30),
        (Grad::Gelu, -15.0, 12.0, 2e-6, 1e-37),
        (Grad::Gelu, -2.9999, 2.9999, 3e-7, 0.0),
        (Grad::GeluTanh, -15.0, 12.0, 2e-6, 1e-37),
    ];
    for lv in levels() {
        for (op, lo, hi, rel, floor) in cases {
            let x = inputs(lo, hi);
            // A gradient of 1 except one lane of -2.5, to see `g` multiply through.
            let g: Vec<f32> = (0..x.len())
                .map(|i| if i == 7 { -2.5 } else { 1.0 })
                .collect();
            let mut out = vec![0f32; x.len()];
            imp::grad(lv, op, &g, &x, &mut out);
            for ((&xi, &gi), &yi) in x.iter().zip(&g).zip(&out) {
                // Huge |x| overflows x^2 in f32: PyTorch gives NaN for the tanh GELU there.
                if op == Grad::GeluTanh && xi.is_finite() && xi.abs() > 1e15 {
                    continue;
                }
                let (v, s) = reference_grad(op, xi as f64);
                let what = format!("{lv:?} {op:?}");
                check(
                    &what,
                    xi,
                    yi,
                    (gi as f64 * v, s * gi.abs() as f64),
                    rel,
                    floor,
                );
            }
        }
    }
}

#[test]
fn every_length_gets_every_element() {
    for lv in levels() {
        for n in 0..70 {
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.1 - 3.0).collect();
            let mut out = vec![f32::NAN; n];
            imp::map(lv, Unary::Exp, &x, &mut out);
            for (&xi, &yi) in x.iter().zip(&out) {
                assert!(((yi as f64 - (xi as f64).exp()) / (xi as f64).exp()).abs() < 4e-7);
            }
        }
    }
}

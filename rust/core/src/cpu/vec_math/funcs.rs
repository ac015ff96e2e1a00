//! The float32 math of the vector kernels, written once over `F32Vec`. Polynomials use fused
//! multiply-adds; special values (NaN, infinities, zeros, subnormals) come out as the scalar
//! forms in `cpu::math` give them.
#![allow(clippy::excessive_precision)]

use super::lanes::F32Vec;

#[inline(always)]
fn sp<V: F32Vec>(v: f32) -> V {
    V::splat(v)
}

/// Horner's rule, coefficients from the highest degree down.
#[inline(always)]
fn poly<V: F32Vec, const N: usize>(x: V, c: [f32; N]) -> V {
    let mut p = sp::<V>(c[0]);
    for &k in &c[1..] {
        p = p.mul_add(x, sp(k));
    }
    p
}

/// The same polynomial by Estrin's scheme: pairs combined with x, x^2, x^4, ... so the
/// dependent chain is log2(N) multiply-adds instead of N. Used where it measured faster:
/// the AVX2 kernels are bound by how many long chains fit in flight, not by arithmetic.
#[inline(always)]
fn poly_estrin<V: F32Vec, const N: usize>(x: V, c: [f32; N]) -> V {
    // terms[i] is the coefficient of x^i (c is highest degree first).
    let mut terms: [V; N] = [sp::<V>(0.0); N];
    for (i, &k) in c.iter().rev().enumerate() {
        terms[i] = sp(k);
    }
    let (mut len, mut xp) = (N, x);
    while len > 1 {
        let half = len / 2;
        for i in 0..half {
            terms[i] = terms[2 * i + 1].mul_add(xp, terms[2 * i]);
        }
        if len % 2 == 1 {
            terms[half] = terms[len - 1];
        }
        len = half + len % 2;
        xp = xp * xp;
    }
    terms[0]
}

const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;

/// e^x: 2^n e^r with r = x - n ln2 (two-part ln2) and a degree-7 Taylor polynomial (as
/// `math::exp_f32`). The clamp keeps n in [-150, 128]: the scaling then overflows to inf
/// and underflows gradually to 0 by itself, and NaN passes through every step.
#[inline(always)]
pub(super) fn exp<V: F32Vec>(x: V) -> V {
    let xc = x.at_least(-104.0).at_most(88.8);
    let n = (xc * sp(std::f32::consts::LOG2_E)).round();
    let r = n.neg_mul_add(sp(LN2_HI), xc);
    let r = n.neg_mul_add(sp(LN2_LO), r);
    let p = poly(
        r,
        [
            1.0 / 5040.0,
            1.0 / 720.0,
            1.0 / 120.0,
            1.0 / 24.0,
            1.0 / 6.0,
            0.5,
            1.0,
            1.0,
        ],
    );
    p.mul_pow2(n)
}

/// 2^w for w in [-151, 128] (NaN passes): a degree-5 near-minimax polynomial on the exactly
/// reduced r = w - round(w), relative error about 2e-7.
#[inline(always)]
fn exp2<V: F32Vec>(w: V) -> V {
    let n = w.round();
    let p = poly(
        w - n,
        [
            1.327_647_2e-3,
            9.675_541e-3,
            5.550_713_1e-2,
            0.240_221_2,
            0.693_146_94,
            1.0,
        ],
    );
    p.mul_pow2(n)
}

/// Natural log: x = m 2^e with m in [sqrt(1/2), sqrt 2), log(m) = f - f^2/2 + f^3 P(f) for
/// f = m - 1 (Cephes' minimax P), e ln2 added in two parts.
#[inline(always)]
pub(super) fn ln<V: F32Vec>(x: V) -> V {
    let (m, e) = x.split_exponent();
    let f = m - sp(1.0);
    let z = f * f;
    let p = poly(
        f,
        [
            7.037_683_6e-2,
            -1.151_461e-1,
            1.167_699_9e-1,
            -1.242_014_1e-1,
            1.424_932_3e-1,
            -1.666_805_8e-1,
            2.000_071_4e-1,
            -2.499_999_4e-1,
            3.333_333_1e-1,
        ],
    );
    let y = p * f * z;
    let y = e.mul_add(sp(-2.121_944_4e-4), y);
    let y = z.neg_mul_add(sp(0.5), y);
    e.mul_add(sp(0.693_359_375), f + y).log_specials(x)
}

/// tanh: an odd Taylor polynomial below |x| = 0.25 (relative accuracy near 0), else
/// 1 - 2 / (e^{2|x|} + 1) with the sign of x (as `math::tanh_f32`).
#[inline(always)]
pub(super) fn tanh<V: F32Vec>(x: V) -> V {
    let a = x.abs();
    let small = x * poly(
        x * x,
        [
            -1382.0 / 155_925.0,
            62.0 / 2835.0,
            -17.0 / 315.0,
            2.0 / 15.0,
            -1.0 / 3.0,
            1.0,
        ],
    );
    let one = sp::<V>(1.0);
    let big = (one - sp::<V>(2.0) / (exp(a + a) + one)).copysign(x);
    V::select(a.lt(sp(0.25)), small, big)
}

/// 1 / (1 + e^-x).
#[inline(always)]
pub(super) fn sigmoid<V: F32Vec>(x: V) -> V {
    let one = sp::<V>(1.0);
    one / (one + exp(sp::<V>(0.0) - x))
}

/// x / (1 + e^-x).
#[inline(always)]
pub(super) fn silu<V: F32Vec>(x: V) -> V {
    x / (sp::<V>(1.0) + exp(sp::<V>(0.0) - x))
}

/// g * d/dx silu = g * s (1 + x (1 - s)), s = sigmoid(x).
#[inline(always)]
pub(super) fn silu_grad<V: F32Vec>(g: V, x: V) -> V {
    let one = sp::<V>(1.0);
    let s = sigmoid(x);
    g * (s * x.mul_add(one - s, one))
}

/// 2 sqrt(2 / pi) and 2 sqrt(2 / pi) 0.044715: 2u = x (K1 + K2 x^2) for the tanh GELU's u.
const K1: f32 = 1.595_769_1;
const K2: f32 = 0.071_354_816;

/// The tanh GELU, 0.5 x (1 + tanh u) = x / (1 + e^{-2u}): no cancellation for negative x.
#[inline(always)]
pub(super) fn gelu_tanh<V: F32Vec>(x: V) -> V {
    let minus_2u = x * (x * x).mul_add(sp(-K2), sp(-K1));
    x / (sp::<V>(1.0) + exp(minus_2u))
}

/// g * d/dx of the tanh GELU: with s = sigmoid(2u), s + x s (1 - s) (2u)'.
#[inline(always)]
pub(super) fn gelu_tanh_grad<V: F32Vec>(g: V, x: V) -> V {
    let one = sp::<V>(1.0);
    let x2 = x * x;
    let s = one / (one + exp(x * x2.mul_add(sp(-K2), sp(-K1))));
    let du = x2.mul_add(sp(3.0 * K2), sp(K1));
    g * (s * (x * (one - s)).mul_add(du, one))
}

/// The lower normal tail, q = P(X <= -|x|) = erfc(|x| / sqrt 2) / 2, as
/// t 2^(P(t) - x^2 log2(e) / 2) with t = 1 / (1 + |x| / (2 sqrt 2)): the Chebyshev erfc fit of
/// `math::gelu_f32` (relative error below 1.2e-7) in base 2, its 1/2 folded into P.
/// Returns q and 2^(-x^2 log2(e) / 2)'s argument base, xs = x sqrt(log2(e) / 2).
#[inline(always)]
fn lower_tail<V: F32Vec>(x: V) -> (V, V) {
    let one = sp::<V>(1.0);
    let t = one / x.abs().mul_add(sp(0.353_553_39), one);
    let p = poly(
        t,
        [
            0.246_517_3,
            -1.186_114_9,
            2.147_474_5,
            -1.637_753_1,
            0.402_321_58,
            -0.268_756_87,
            0.139_630_05,
            0.539_700_6,
            1.442_729_2,
            -2.825_748_2,
        ],
    );
    let xs = x * sp(0.849_321_8);
    let q = t * exp2(xs.neg_mul_add(xs, p).at_least(-151.0));
    (q, xs)
}

/// Below this |x| the normal tail takes the short form `lower_tail_near`.
const NEAR: f32 = 3.0;

/// The lower normal tail for |x| < `NEAR` (the usual activations), q = 2^(H(a) - xs^2) with
/// a = |x|, xs = a sqrt(log2(e) / 2) and H a degree-9 minimax fit of log2(q) + xs^2 on [0, 3]
/// (4e-8; the result's error is exp2's and the exponent's rounding): no division and half of
/// `lower_tail`'s dependent chain (Estrin's scheme), 1.3-1.5x faster. Returns q and xs as `lower_tail` does.
#[inline(always)]
fn lower_tail_near<V: F32Vec>(a: V) -> (V, V) {
    let h = poly_estrin(
        a,
        [
            5.471_185_9e-7,
            -9.829_241_2e-6,
            7.544_855_9e-5,
            -2.829_157_5e-4,
            8.061_963_9e-6,
            6.942_043_1e-3,
            -5.244_280_0e-2,
            0.262_128_74,
            -1.151_104_6,
            -1.0,
        ],
    );
    let xs = a * sp(0.849_321_8);
    (exp2(xs.neg_mul_add(xs, h)), xs)
}

/// `lower_tail_near` when every lane is near 0, else the full-range `lower_tail`.
#[inline(always)]
fn lower_tail_any<V: F32Vec>(x: V) -> (V, V) {
    let a = x.abs();
    if V::all(a.lt(sp(NEAR))) {
        lower_tail_near(a)
    } else {
        lower_tail(x)
    }
}

/// P(X <= x) from the lower tail q: q for x < 0, 1 - q for x >= 0.
#[inline(always)]
fn normal_cdf<V: F32Vec>(x: V, q: V) -> V {
    V::select(x.ge(sp(0.0)), sp::<V>(1.0) - q, q)
}

/// The exact GELU, x P(X <= x).
#[inline(always)]
pub(super) fn gelu<V: F32Vec>(x: V) -> V {
    let (q, _) = lower_tail_any(x);
    x * normal_cdf(x, q)
}

/// g * d/dx of the exact GELU: g (P(X <= x) + x phi(x)).
#[inline(always)]
pub(super) fn gelu_grad<V: F32Vec>(g: V, x: V) -> V {
    let (q, xs) = lower_tail_any(x);
    // phi(x) = e^(-x^2 / 2) / sqrt(2 pi) = 2^(-xs^2) / sqrt(2 pi).
    let pdf = exp2(xs.neg_mul_add(xs, sp(0.0)).at_least(-151.0)) * sp(0.398_942_3);
    g * x.mul_add(pdf, normal_cdf(x, q))
}

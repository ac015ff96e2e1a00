//! exp and the exact GELU over float32 slices in explicit AVX-512 code. The portable forms in
//! `math.rs` are compiled per instruction set, but without fused multiply-adds (Rust never
//! contracts `a * b + c`, and `mul_add` is a libm call in the baseline build) and with a
//! two-step scaling by 2^n; here the polynomials use FMA and `scalef` does the scaling.
//! Same algorithms and ranges as `math::exp_f32` / `math::gelu_f32`.

use crate::cpu::parallel::{chunks_claimed, worth, CHUNK};
use crate::cpu::simd::{level, Level};

/// Which slice function to run.
#[derive(Clone, Copy)]
pub enum Op {
    Exp,
    Gelu,
    /// exp(x - m): softmax's exponentials.
    ExpMinus(f32),
}

/// `out = op(a)` when the CPU has AVX-512 (true), else nothing (false: use the portable path).
pub fn map(op: Op, a: &[f32], out: &mut [f32]) -> bool {
    if level() != Level::Avx512 {
        return false;
    }
    // SAFETY (both calls): the level says the CPU has AVX-512F.
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |i, o| unsafe {
            imp::map(op, &a[i * CHUNK..i * CHUNK + o.len()], o)
        });
    } else {
        unsafe { imp::map(op, a, out) };
    }
    true
}

/// `y = exp(x - m)` on this thread: AVX-512 code where the CPU has it, else the portable loop.
#[inline(always)]
pub fn exp_minus_f32(x: &[f32], m: f32, y: &mut [f32]) {
    if level() == Level::Avx512 {
        // SAFETY: the level says the CPU has AVX-512F.
        unsafe { imp::map(Op::ExpMinus(m), x, y) }
    } else {
        exp_minus_portable(x, m, y)
    }
}

/// `y = exp(x - m)` in the portable vector loop.
#[inline(always)]
pub fn exp_minus_portable<F: crate::cpu::math::Float>(x: &[F], m: F, y: &mut [F]) {
    crate::cpu::parallel::map_blocked(x, y, |v| (v - m).exp())
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub unsafe fn map(_: super::Op, _: &[f32], _: &mut [f32]) {
        unreachable!("AVX-512 is only detected on x86_64")
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::Op;
    use std::arch::x86_64::*;

    #[inline(always)]
    unsafe fn splat(v: f32) -> __m512 {
        _mm512_set1_ps(v)
    }

    /// e^x: 2^n e^r with r = x - n ln2 (two-part ln2), a degree-6 Taylor polynomial, and
    /// `scalef` for 2^n (gradual underflow included); inf above 88.72, 0 below -104, NaN kept.
    #[inline(always)]
    unsafe fn exp(x: __m512) -> __m512 {
        let xc = _mm512_min_ps(_mm512_max_ps(x, splat(-104.0)), splat(88.8));
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm512_mul_ps(xc, splat(std::f32::consts::LOG2_E)),
        );
        let r = _mm512_fnmadd_ps(n, splat(0.693_145_75), xc);
        let r = _mm512_fnmadd_ps(n, splat(1.428_606_8e-6), r);
        let mut p = splat(1.0 / 720.0);
        for c in [1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
            p = _mm512_fmadd_ps(p, r, splat(c));
        }
        let y = _mm512_scalef_ps(p, n);
        let y = _mm512_mask_blend_ps(
            _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, splat(88.72)),
            y,
            splat(f32::INFINITY),
        );
        let y = _mm512_mask_blend_ps(
            _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, splat(-104.0)),
            y,
            _mm512_setzero_ps(),
        );
        _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x), y, x)
    }

    /// Exact GELU, 0.5 x erfc(-x / sqrt 2), with erfc(|z|) = t exp(-z^2 + P(t)),
    /// t = 1 / (1 + |z| / 2) (the Chebyshev fit of `math::gelu_f32`).
    #[inline(always)]
    #[allow(clippy::excessive_precision)]
    unsafe fn gelu(x: __m512) -> __m512 {
        let z = _mm512_mul_ps(x, splat(std::f32::consts::FRAC_1_SQRT_2));
        let za = _mm512_abs_ps(z);
        let t = _mm512_div_ps(splat(1.0), _mm512_fmadd_ps(za, splat(0.5), splat(1.0)));
        let mut p = splat(0.170_872_77);
        for c in [
            -0.822_152_23,
            1.488_515_87,
            -1.135_203_98,
            0.278_868_07,
            -0.186_288_06,
            0.096_784_18,
            0.374_091_96,
            1.000_023_7,
            -1.265_512_2,
        ] {
            p = _mm512_fmadd_ps(p, t, splat(c));
        }
        let e = _mm512_mul_ps(t, exp(_mm512_fnmadd_ps(za, za, p)));
        // erfc(-z) = 2 - erfc(z) for z >= 0, and erfc(|z|) itself for z < 0.
        let c = _mm512_mask_blend_ps(
            _mm512_cmp_ps_mask::<_CMP_GE_OQ>(z, _mm512_setzero_ps()),
            e,
            _mm512_sub_ps(splat(2.0), e),
        );
        _mm512_mul_ps(_mm512_mul_ps(splat(0.5), x), c)
    }

    #[inline(always)]
    unsafe fn apply(op: Op, v: __m512) -> __m512 {
        match op {
            Op::Exp => exp(v),
            Op::Gelu => gelu(v),
            Op::ExpMinus(m) => exp(_mm512_sub_ps(v, splat(m))),
        }
    }

    /// Two vectors per step (independent chains to overlap), then a masked tail.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn map(op: Op, a: &[f32], out: &mut [f32]) {
        let n = a.len().min(out.len());
        let (src, dst) = (a.as_ptr(), out.as_mut_ptr());
        let mut i = 0;
        while i + 32 <= n {
            let (v0, v1) = (
                _mm512_loadu_ps(src.add(i)),
                _mm512_loadu_ps(src.add(i + 16)),
            );
            _mm512_storeu_ps(dst.add(i), apply(op, v0));
            _mm512_storeu_ps(dst.add(i + 16), apply(op, v1));
            i += 32;
        }
        while i < n {
            let m = if n - i >= 16 {
                u16::MAX
            } else {
                ((1u32 << (n - i)) - 1) as u16
            };
            let v = _mm512_maskz_loadu_ps(m, src.add(i));
            _mm512_mask_storeu_ps(dst.add(i), m, apply(op, v));
            i += 16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: Op, x: &[f32]) -> Option<Vec<f32>> {
        let mut out = vec![0f32; x.len()];
        map(op, x, &mut out).then_some(out)
    }

    #[test]
    fn exp_and_gelu_match_float64_over_their_range() {
        // Lengths that leave a masked tail; values across exp's whole range.
        let x: Vec<f32> = (0..20_011).map(|i| -110.0 + i as f32 * 0.01).collect();
        let Some(e) = run(Op::Exp, &x) else {
            return; // no AVX-512 on this CPU: the portable path is tested elsewhere
        };
        let g = run(Op::Gelu, &x).unwrap();
        for ((&v, &ev), &gv) in x.iter().zip(&e).zip(&g) {
            let (vd, want_e) = (v as f64, (v as f64).exp());
            if want_e > 1e-37 && want_e < 1e38 {
                assert!(
                    ((ev as f64 - want_e) / want_e).abs() < 4e-7,
                    "exp({v}) = {ev}"
                );
            }
            let want_g = 0.5 * vd * libm::erfc(-vd / 2f64.sqrt());
            let err = if vd >= -5.0 {
                ((gv as f64 - want_g) / want_g).abs()
            } else {
                (gv as f64 - want_g).abs() * 1e3
            };
            if want_g != 0.0 {
                assert!(err < 2e-6, "gelu({v}) = {gv}, want {want_g}");
            }
        }
        let special = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            89.0,
            -105.0,
            100.0,
        ];
        let e = run(Op::Exp, &special).unwrap();
        assert!(e[0].is_nan());
        assert_eq!(
            &e[1..],
            &[f32::INFINITY, 0.0, 1.0, f32::INFINITY, 0.0, f32::INFINITY]
        );
        let g = run(Op::Gelu, &special).unwrap();
        assert!(g[0].is_nan());
        assert_eq!(g[1], f32::INFINITY);
        assert_eq!(g[3], 0.0);
        assert_eq!(g[6], 100.0);
    }
}

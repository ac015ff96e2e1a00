//! Row reductions written with independent accumulators so that, inside
//! `simd::dispatch`, they compile to vector code (a single running sum cannot be
//! reordered by the compiler and stays scalar).

use crate::cpu::math::Float;

const LANES: usize = 16;

/// Sum of `x` (f32 and f64 use explicit vector code where the CPU has AVX-512).
#[inline(always)]
pub fn sum<F: Float>(x: &[F]) -> F {
    F::sum_slice(x)
}

/// Sum in 16 interleaved partial sums: the portable form, which the compiler vectorizes.
#[inline(always)]
pub fn sum_portable<F: Float>(x: &[F]) -> F {
    let mut acc = [F::zero(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = acc[i] + c[i];
        }
    }
    let mut s = F::zero();
    for &v in rest {
        s = s + v;
    }
    for a in acc {
        s = s + a;
    }
    s
}

/// Dispatches a slice reduction to its AVX-512 form when the CPU has it.
macro_rules! with_avx512 {
    ($x:expr, $fast:path, $portable:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::simd::level() == crate::cpu::simd::Level::Avx512 {
            // SAFETY: the level says the CPU has AVX-512F.
            return unsafe { $fast($x) };
        }
        $portable($x)
    }};
}

/// f32 sum: four AVX-512 accumulators (four adds in flight, so rows are summed at load
/// speed; the portable loop waits out one add's latency per vector).
#[inline(always)]
pub fn sum_f32(x: &[f32]) -> f32 {
    with_avx512!(x, avx512::sum_f32, sum_portable)
}

/// f64 sum, as [`sum_f32`].
#[inline(always)]
pub fn sum_f64(x: &[f64]) -> f64 {
    with_avx512!(x, avx512::sum_f64, sum_portable)
}

/// f32 max (NaNs skipped), as [`sum_f32`].
#[inline(always)]
pub fn max_f32(x: &[f32]) -> f32 {
    with_avx512!(x, avx512::max_f32, max_portable)
}

/// f64 max (NaNs skipped), as [`sum_f32`].
#[inline(always)]
pub fn max_f64(x: &[f64]) -> f64 {
    with_avx512!(x, avx512::max_f64, max_portable)
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// One reduction over a slice: four vector accumulators over blocks of four vectors,
    /// then single vectors, then a masked load of the tail (lanes not loaded keep `init`).
    macro_rules! reduction {
        ($name:ident, $t:ty, $width:expr, $mask:ty, $set1:ident, $loadu:ident, $mask_loadu:ident,
         $op:ident, $reduce:ident, $init:expr) => {
            #[target_feature(enable = "avx512f")]
            pub unsafe fn $name(x: &[$t]) -> $t {
                let (n, p) = (x.len(), x.as_ptr());
                let init = $set1($init);
                let mut acc = [init; 4];
                let mut i = 0;
                while i + 4 * $width <= n {
                    for (k, a) in acc.iter_mut().enumerate() {
                        // Loaded value first: max returns its second operand when one is NaN.
                        *a = $op($loadu(p.add(i + $width * k)), *a);
                    }
                    i += 4 * $width;
                }
                while i + $width <= n {
                    acc[0] = $op($loadu(p.add(i)), acc[0]);
                    i += $width;
                }
                if i < n {
                    let mask = ((1u32 << (n - i)) - 1) as $mask;
                    acc[1] = $op($mask_loadu(init, mask, p.add(i)), acc[1]);
                }
                $reduce($op($op(acc[0], acc[1]), $op(acc[2], acc[3])))
            }
        };
    }

    reduction!(
        sum_f32,
        f32,
        16,
        u16,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_mask_loadu_ps,
        _mm512_add_ps,
        _mm512_reduce_add_ps,
        0.0
    );
    reduction!(
        sum_f64,
        f64,
        8,
        u8,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_mask_loadu_pd,
        _mm512_add_pd,
        _mm512_reduce_add_pd,
        0.0
    );
    reduction!(
        max_f32,
        f32,
        16,
        u16,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_mask_loadu_ps,
        _mm512_max_ps,
        _mm512_reduce_max_ps,
        f32::MIN
    );
    reduction!(
        max_f64,
        f64,
        8,
        u8,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_mask_loadu_pd,
        _mm512_max_pd,
        _mm512_reduce_max_pd,
        f64::MIN
    );
}

/// Sum of (x - c), in the same lanes as [`sum_sq_dev`]: with c a computed mean, the mean's
/// rounding error times the length.
#[inline(always)]
pub fn sum_dev<F: Float>(x: &[F], c: F) -> F {
    let mut acc = [F::zero(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for ch in chunks {
        for i in 0..LANES {
            acc[i] = acc[i] + (ch[i] - c);
        }
    }
    let mut s = F::zero();
    for &v in rest {
        s = s + (v - c);
    }
    for a in acc {
        s = s + a;
    }
    s
}

/// Sum of (x - c)^2.
#[inline(always)]
pub fn sum_sq_dev<F: Float>(x: &[F], c: F) -> F {
    let mut acc = [F::zero(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for ch in chunks {
        for i in 0..LANES {
            let d = ch[i] - c;
            acc[i] = acc[i] + d * d;
        }
    }
    let mut s = F::zero();
    for &v in rest {
        let d = v - c;
        s = s + d * d;
    }
    for a in acc {
        s = s + a;
    }
    s
}

/// Largest element (NaNs are skipped: callers see them through the values themselves);
/// the lowest finite value for an empty or all-NaN slice.
#[inline(always)]
pub fn max<F: Float>(x: &[F]) -> F {
    F::max_slice(x)
}

/// [`max`] in 16 lanes, the portable form.
#[inline(always)]
pub fn max_portable<F: Float>(x: &[F]) -> F {
    let mut acc = [F::min_value(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    let mut m = F::min_value();
    for &v in rest.iter().chain(acc.iter()) {
        m = if v > m { v } else { m };
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn lane_reductions_match_plain_loops() {
        let x: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
        for n in [
            0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 999, 1000,
        ] {
            let s = &x[..n];
            assert_eq!(super::sum(s), s.iter().sum::<f64>());
            assert_eq!(super::sum_portable(s), s.iter().sum::<f64>());
            let s32: Vec<f32> = s.iter().map(|&v| v as f32).collect();
            assert_eq!(super::sum(&s32[..]), s32.iter().sum::<f32>(), "f32 n={n}");
            let m = s.iter().cloned().fold(f64::MIN, f64::max);
            assert_eq!(super::max(s), m);
            assert_eq!(super::max_portable(s), m);
            let mut s32: Vec<f32> = s.iter().map(|&v| v as f32).collect();
            let m32 = s32.iter().cloned().fold(f32::MIN, f32::max);
            assert_eq!(super::max(&s32[..]), m32, "f32 n={n}");
            if n > 3 {
                // NaNs are skipped wherever they sit (vector body or masked tail).
                s32[n - 1] = f32::NAN;
                s32[1] = f32::NAN;
                let want = s32
                    .iter()
                    .cloned()
                    .filter(|v| !v.is_nan())
                    .fold(f32::MIN, f32::max);
                assert_eq!(super::max(&s32[..]), want, "f32 NaN n={n}");
            }
            let c = 1.5;
            let want: f64 = s.iter().map(|v| (v - c) * (v - c)).sum();
            assert!((super::sum_sq_dev(s, c) - want).abs() < 1e-9);
        }
    }
}

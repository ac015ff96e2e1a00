//! The usual max pool (2x2 windows, stride 2, no padding or dilation) without branches:
//! on real data "is this element bigger" is a coin toss, and a mispredicted branch per
//! comparison made the general window loop the largest item of a small CNN's step.

use crate::Element;

/// Whether a window's running max `best` gives way to `v`: a NaN wins and keeps its window
/// (the first NaN in window order, as in PyTorch), else the strictly greater value.
#[inline(always)]
#[allow(clippy::eq_op)]
fn replaces<T: Element>(best: T, v: T) -> bool {
    let best_nan = best != best;
    let v_nan = v != v;
    !best_nan & ((v > best) | v_nan)
}

/// Max and flat argmax (`h * W + w`) of each 2x2 window at stride 2 over one plane of width
/// `wd`; `out` and `idx` hold the `oh x ow` results, and every window lies inside the plane.
pub(crate) fn max_pool_2x2_plane<T: Element>(
    plane: &[T],
    wd: usize,
    ow: usize,
    out: &mut [T],
    idx: &mut [i64],
) {
    for (i, (orow, irow)) in out.chunks_mut(ow).zip(idx.chunks_mut(ow)).enumerate() {
        let top = &plane[2 * i * wd..2 * i * wd + 2 * ow];
        let bottom = &plane[(2 * i + 1) * wd..(2 * i + 1) * wd + 2 * ow];
        let row_start = (2 * i * wd) as i64;
        let done = simd_row(top, bottom, wd, row_start, orow, irow);
        for j in done..ow {
            let (mut best, mut at) = (top[2 * j], 0i64);
            for (v, pos) in [
                (top[2 * j + 1], 1),
                (bottom[2 * j], wd as i64),
                (bottom[2 * j + 1], wd as i64 + 1),
            ] {
                let take = replaces(best, v);
                best = if take { v } else { best };
                at = if take { pos } else { at };
            }
            orow[j] = best;
            irow[j] = row_start + 2 * j as i64 + at;
        }
    }
}

/// The first outputs of a row, 16 at a time, with AVX-512 for float32 (the scalar loop only
/// gets 2-wide vectors, as the window pairs must be de-interleaved); returns how many.
fn simd_row<T: Element>(
    top: &[T],
    bottom: &[T],
    wd: usize,
    row_start: i64,
    out: &mut [T],
    idx: &mut [i64],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::simd::{level, Level};
        if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
            && level() == Level::Avx512
            && std::arch::is_x86_feature_detected!("avx512f")
            && wd < 1 << 30
        {
            // SAFETY: T is f32 (same layout); AVX-512F is present.
            return unsafe {
                avx512::row(
                    &*(top as *const [T] as *const [f32]),
                    &*(bottom as *const [T] as *const [f32]),
                    wd,
                    row_start,
                    &mut *(out as *mut [T] as *mut [f32]),
                    idx,
                )
            };
        }
    }
    let _ = (top, bottom, wd, row_start, out, idx);
    0
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// As `max_pool_2x2_plane`'s row loop for outputs `0..16 * (out.len() / 16)`: the
    /// same comparisons in the same order (`replaces`), 16 windows per step.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn row(
        top: &[f32],
        bottom: &[f32],
        wd: usize,
        row_start: i64,
        out: &mut [f32],
        idx: &mut [i64],
    ) -> usize {
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
        let offsets = [
            _mm512_set1_epi32(1),
            _mm512_set1_epi32(wd as i32),
            _mm512_set1_epi32(wd as i32 + 1),
        ];
        let base = _mm512_set1_epi64(row_start);
        let ow = out.len().min(top.len() / 2).min(bottom.len() / 2);
        let mut j = 0;
        while j + 16 <= ow {
            let ((a, b), (c, d)) = (
                pairs(top, 2 * j, even, odd),
                pairs(bottom, 2 * j, even, odd),
            );
            let (mut best, mut at) = (a, _mm512_setzero_si512());
            for (v, off) in [(b, offsets[0]), (c, offsets[1]), (d, offsets[2])] {
                let greater = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(v, best);
                let v_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
                let best_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(best, best);
                let take = (greater | v_nan) & !best_nan;
                best = _mm512_mask_blend_ps(take, best, v);
                at = _mm512_mask_blend_epi32(take, at, off);
            }
            _mm512_storeu_ps(out.as_mut_ptr().add(j), best);
            // Flat index: row start + 2 * (j + lane) + the winner's offset in its window.
            let pos = _mm512_add_epi32(_mm512_add_epi32(even, _mm512_set1_epi32(2 * j as i32)), at);
            let lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(pos));
            let hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(pos));
            let dst = idx.as_mut_ptr().add(j) as *mut __m512i;
            _mm512_storeu_si512(dst, _mm512_add_epi64(lo, base));
            _mm512_storeu_si512(dst.add(1), _mm512_add_epi64(hi, base));
            j += 16;
        }
        j
    }

    /// The left and right elements of the 16 window pairs from `r[at..at + 32]`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn pairs(r: &[f32], at: usize, even: __m512i, odd: __m512i) -> (__m512, __m512) {
        let lo = _mm512_loadu_ps(r.as_ptr().add(at));
        let hi = _mm512_loadu_ps(r.as_ptr().add(at + 16));
        (
            _mm512_permutex2var_ps(lo, even, hi),
            _mm512_permutex2var_ps(lo, odd, hi),
        )
    }
}

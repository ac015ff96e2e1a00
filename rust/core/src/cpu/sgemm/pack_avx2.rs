//! Packing for the AVX2 tile (6 x 16), in the layout `Isa::pack_a` / `Isa::pack_b` give:
//! a straight copy when the panel's short side is contiguous, an 8 x 8 register transpose
//! when the k side is, element by element otherwise. Partial vectors go through lane masks,
//! which never touch memory outside the mask.

use super::kernel_avx2::{MR, NR};
use super::pack::{gather_panel, Strided, PREFETCH_ROWS, PREFETCH_STEPS};
use core::arch::x86_64::*;

/// All-ones in the first `n` of 8 lanes.
#[inline(always)]
unsafe fn first_lanes(n: usize) -> __m256i {
    let n = n.min(8) as i32;
    _mm256_cmpgt_epi32(
        _mm256_set1_epi32(n),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    )
}

/// As `Isa::pack_b` for `Avx2`.
///
/// # Safety
/// AVX2 is available; otherwise as `Isa::pack_b`.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn pack_b(kc: usize, nc: usize, b: Strided, dst: *mut f32) {
    for q in 0..nc.div_ceil(NR) {
        let cols = (nc - q * NR).min(NR);
        let panel = dst.add(q * kc * NR);
        if b.cs == 1 {
            copy_rows(kc, cols, b.at(0, q * NR), b.rs, panel);
        } else if b.rs == 1 {
            transpose_panel(kc, cols, b.transposed().at(q * NR, 0), b.cs, panel, NR);
        } else {
            gather_panel(kc, cols, b.transposed(), q * NR, panel, NR);
        }
    }
}

/// As `Isa::pack_a` for `Avx2`.
///
/// # Safety
/// AVX2 is available; otherwise as `Isa::pack_a`.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn pack_a(mc: usize, kc: usize, mr: usize, a: Strided, dst: *mut f32) {
    for q in 0..mc.div_ceil(mr) {
        let rows = (mc - q * mr).min(mr);
        let panel = dst.add(q * kc * MR);
        if a.rs == 1 {
            copy_short_rows(kc, rows, a.at(q * mr, 0), a.cs, panel);
        } else if a.cs == 1 {
            transpose_panel(kc, rows, a.at(q * mr, 0), a.rs, panel, MR);
        } else {
            gather_panel(kc, rows, a, q * mr, panel, MR);
        }
    }
}

/// `kc` rows of `cols <= NR` contiguous floats, `src_step` apart, into rows of NR.
///
/// # Safety
/// AVX2; source rows readable over `cols` floats; `dst` 32-byte aligned, `kc * NR` floats.
#[target_feature(enable = "avx2,fma")]
unsafe fn copy_rows(kc: usize, cols: usize, src: *const f32, src_step: isize, dst: *mut f32) {
    let (m0, m1) = (first_lanes(cols), first_lanes(cols.saturating_sub(8)));
    let whole = cols == NR;
    for p in 0..kc {
        let s = src.offset(p as isize * src_step);
        let d = dst.add(p * NR);
        // Rows a stride apart defeat the hardware prefetcher; ask for a later row now.
        let ahead = s.wrapping_offset(PREFETCH_ROWS * src_step);
        _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
        _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(cols - 1) as *const i8);
        if whole {
            _mm256_store_ps(d, _mm256_loadu_ps(s));
            _mm256_store_ps(d.add(8), _mm256_loadu_ps(s.add(8)));
        } else {
            // Masked-off lanes read nothing, so the address may lie past the row.
            _mm256_store_ps(d, _mm256_maskload_ps(s, m0));
            _mm256_store_ps(d.add(8), _mm256_maskload_ps(s.wrapping_add(8), m1));
        }
    }
}

/// `kc` runs of `rows <= MR` contiguous floats, `src_step` apart, into runs of MR.
///
/// # Safety
/// AVX2; source runs readable over `rows` floats; `dst` writable for `kc * MR` floats.
#[target_feature(enable = "avx2,fma")]
unsafe fn copy_short_rows(kc: usize, rows: usize, src: *const f32, src_step: isize, dst: *mut f32) {
    let (load, store) = (first_lanes(rows), first_lanes(MR));
    for p in 0..kc {
        let x = _mm256_maskload_ps(src.offset(p as isize * src_step), load);
        let d = dst.add(p * MR);
        // A whole vector spills 2 floats into the next step, rewritten right after (a
        // masked store is several times slower); only the last step must stop at MR.
        if p + 1 < kc {
            _mm256_storeu_ps(d, x);
        } else {
            _mm256_maskstore_ps(d, store, x);
        }
    }
}

/// Panel of `width` (MR or NR) lines from `lines <= width` sources that are contiguous along
/// k (line `l` at `src + l * line_step`): 8 lines x 8 steps at a time through a register
/// transpose. Lines past `lines` are zero.
///
/// # Safety
/// AVX2; each of the `lines` sources readable over `kc` floats; `dst` writable for
/// `kc * width` floats.
#[target_feature(enable = "avx2,fma")]
unsafe fn transpose_panel(
    kc: usize,
    lines: usize,
    src: *const f32,
    line_step: isize,
    dst: *mut f32,
    width: usize,
) {
    for l0 in (0..width).step_by(8) {
        let n_lines = lines.saturating_sub(l0).min(8);
        let store_lanes = (width - l0).min(8);
        let store = first_lanes(store_lanes);
        for p0 in (0..kc).step_by(8) {
            let steps = (kc - p0).min(8);
            let load = first_lanes(steps);
            let mut x = [_mm256_setzero_ps(); 8];
            for (l, v) in x.iter_mut().enumerate().take(n_lines) {
                let line = src.offset((l0 + l) as isize * line_step).add(p0);
                _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(PREFETCH_STEPS) as *const i8);
                *v = if steps == 8 {
                    _mm256_loadu_ps(line)
                } else {
                    _mm256_maskload_ps(line, load)
                };
            }
            transpose8(&mut x);
            for (s, &v) in x.iter().enumerate().take(steps) {
                let d = dst.add((p0 + s) * width + l0);
                if store_lanes == 8 {
                    _mm256_storeu_ps(d, v);
                } else {
                    _mm256_maskstore_ps(d, store, v);
                }
            }
        }
    }
}

/// Transposes an 8 x 8 block held as 8 row vectors, in place.
///
/// # Safety
/// AVX is available.
#[target_feature(enable = "avx2,fma")]
unsafe fn transpose8(x: &mut [__m256; 8]) {
    // Pairs, then quads inside each 128-bit lane (t[4h + j]: column j of rows 4h..4h+4 in
    // the low lane, column 4 + j in the high one); then the halves swap across vectors.
    let mut p = [_mm256_setzero_ps(); 8];
    for i in 0..4 {
        p[2 * i] = _mm256_unpacklo_ps(x[2 * i], x[2 * i + 1]);
        p[2 * i + 1] = _mm256_unpackhi_ps(x[2 * i], x[2 * i + 1]);
    }
    let mut t = [_mm256_setzero_ps(); 8];
    for h in 0..2 {
        let (lo0, hi0, lo1, hi1) = (p[4 * h], p[4 * h + 1], p[4 * h + 2], p[4 * h + 3]);
        t[4 * h] = _mm256_shuffle_ps::<0x44>(lo0, lo1);
        t[4 * h + 1] = _mm256_shuffle_ps::<0xEE>(lo0, lo1);
        t[4 * h + 2] = _mm256_shuffle_ps::<0x44>(hi0, hi1);
        t[4 * h + 3] = _mm256_shuffle_ps::<0xEE>(hi0, hi1);
    }
    for j in 0..4 {
        x[j] = _mm256_permute2f128_ps::<0x20>(t[j], t[4 + j]);
        x[4 + j] = _mm256_permute2f128_ps::<0x31>(t[j], t[4 + j]);
    }
}

//! Packing: copies a block of A into row panels (MR rows at most) and a block of B into
//! NR-column panels,
//! laid out in the order the kernel reads them (one k step after another), so the kernel
//! streams contiguous memory whatever the operands' strides. Unit-stride sources take
//! vector paths: a straight copy when the panel's short side is contiguous, a 16 x 16
//! register transpose when the k side is.

use super::kernel::{MR, NR};
use core::arch::x86_64::*;

/// A strided read-only matrix: element `(i, j)` at `ptr + i * rs + j * cs`.
#[derive(Clone, Copy)]
pub struct Strided {
    pub ptr: *const f32,
    pub rs: isize,
    pub cs: isize,
}

impl Strided {
    /// # Safety
    /// `(i, j)` lies inside the matrix.
    #[inline(always)]
    pub(super) unsafe fn at(&self, i: usize, j: usize) -> *const f32 {
        self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
    }

    pub(super) fn transposed(self) -> Strided {
        Strided {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

/// How far ahead the copies prefetch: rows of B, and floats along k in the transposes.
pub(super) const PREFETCH_ROWS: isize = 8;
pub(super) const PREFETCH_STEPS: usize = 64;

/// The first `n` of 16 lanes.
#[inline(always)]
fn first_lanes(n: usize) -> __mmask16 {
    ((1u32 << n.min(16)) - 1) as __mmask16
}

/// Packs the `kc x nc` matrix `b` into `ceil(nc / NR)` panels of `kc x NR` (column `j` of
/// step `p` of panel `q` at `dst[(q * kc + p) * NR + j]`), zero past column `nc`.
///
/// # Safety
/// AVX-512F is available; `b` is readable over `kc x nc`; `dst` is 64-byte aligned and
/// writable for `kc * NR * ceil(nc / NR)` floats.
#[target_feature(enable = "avx512f")]
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

/// Packs the `mc x kc` matrix `a` into `ceil(mc / mr)` panels of `mr <= MR` rows, each
/// stored as `kc x MR` (row `i` of step `p` of panel `q` at `dst[(q * kc + p) * MR + i]`),
/// zero past the panel's rows.
///
/// # Safety
/// AVX-512F is available; `a` is readable over `mc x kc`; `dst` is writable for
/// `kc * MR * ceil(mc / mr)` floats; `1 <= mr <= MR`.
#[target_feature(enable = "avx512f")]
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
/// AVX-512F; source rows readable over `cols` floats; `dst` 64-byte aligned, `kc * NR` floats.
#[target_feature(enable = "avx512f")]
unsafe fn copy_rows(kc: usize, cols: usize, src: *const f32, src_step: isize, dst: *mut f32) {
    let (m0, m1) = (first_lanes(cols), first_lanes(cols.saturating_sub(16)));
    for p in 0..kc {
        let s = src.offset(p as isize * src_step);
        let d = dst.add(p * NR);
        // Rows a stride apart defeat the hardware prefetcher; ask for a later row now.
        let ahead = s.wrapping_offset(PREFETCH_ROWS * src_step);
        _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
        _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(cols - 1) as *const i8);
        _mm512_store_ps(d, _mm512_maskz_loadu_ps(m0, s));
        // With an empty mask nothing is read, so the address may lie past the row.
        _mm512_store_ps(d.add(16), _mm512_maskz_loadu_ps(m1, s.wrapping_add(16)));
    }
}

/// `kc` runs of `rows <= MR` contiguous floats, `src_step` apart, into runs of MR.
///
/// # Safety
/// AVX-512F; source runs readable over `rows` floats; `dst` writable for `kc * MR` floats.
#[target_feature(enable = "avx512f")]
unsafe fn copy_short_rows(kc: usize, rows: usize, src: *const f32, src_step: isize, dst: *mut f32) {
    let (load, store) = (first_lanes(rows), first_lanes(MR));
    for p in 0..kc {
        let x = _mm512_maskz_loadu_ps(load, src.offset(p as isize * src_step));
        _mm512_mask_storeu_ps(dst.add(p * MR), store, x);
    }
}

/// Panel of `width` (MR or NR) lines from `lines <= width` sources that are contiguous along
/// k (line `l` at `src + l * line_step`): 16 lines x 16 steps at a time through a register
/// transpose. Lines past `lines` are zero.
///
/// # Safety
/// AVX-512F; each of the `lines` sources readable over `kc` floats; `dst` writable for
/// `kc * width` floats.
#[target_feature(enable = "avx512f")]
unsafe fn transpose_panel(
    kc: usize,
    lines: usize,
    src: *const f32,
    line_step: isize,
    dst: *mut f32,
    width: usize,
) {
    for l0 in (0..width).step_by(16) {
        let n_lines = lines.saturating_sub(l0).min(16);
        let store = first_lanes(width - l0);
        for p0 in (0..kc).step_by(16) {
            let steps = (kc - p0).min(16);
            let load = first_lanes(steps);
            let mut x = [_mm512_setzero_ps(); 16];
            for (l, v) in x.iter_mut().enumerate().take(n_lines) {
                let line = src.offset((l0 + l) as isize * line_step).add(p0);
                _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(PREFETCH_STEPS) as *const i8);
                *v = _mm512_maskz_loadu_ps(load, line);
            }
            transpose16(&mut x);
            for (s, &v) in x.iter().enumerate().take(steps) {
                _mm512_mask_storeu_ps(dst.add((p0 + s) * width + l0), store, v);
            }
        }
    }
}

/// Any strides: element by element. Line `l` of the panel is row `first + l` of `src`.
///
/// # Safety
/// `src` readable over rows `first..first + lines` and columns `0..kc`; `dst` writable for
/// `kc * width` floats.
pub(super) unsafe fn gather_panel(
    kc: usize,
    lines: usize,
    src: Strided,
    first: usize,
    dst: *mut f32,
    width: usize,
) {
    for p in 0..kc {
        for l in 0..width {
            *dst.add(p * width + l) = if l < lines {
                *src.at(first + l, p)
            } else {
                0.0
            };
        }
    }
}

/// Transposes a 16 x 16 block held as 16 row vectors, in place.
///
/// # Safety
/// AVX-512F is available.
#[target_feature(enable = "avx512f")]
unsafe fn transpose16(x: &mut [__m512; 16]) {
    // Pairs, then quads inside each 128-bit lane; then whole lanes across vectors.
    let mut t = [_mm512_setzero_ps(); 16];
    for i in 0..8 {
        t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
    }
    // u[4g + j], lane L = rows 4g..4g+4 at column 4L + j.
    let mut u = [_mm512_setzero_ps(); 16];
    for g in 0..4 {
        let (lo0, hi0, lo1, hi1) = (t[4 * g], t[4 * g + 1], t[4 * g + 2], t[4 * g + 3]);
        let pd = |v: __m512| _mm512_castps_pd(v);
        u[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(lo0), pd(lo1)));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(lo0), pd(lo1)));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(hi0), pd(hi1)));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(hi0), pd(hi1)));
    }
    for j in 0..4 {
        let even01 = _mm512_shuffle_f32x4::<0x88>(u[j], u[4 + j]);
        let odd01 = _mm512_shuffle_f32x4::<0xDD>(u[j], u[4 + j]);
        let even23 = _mm512_shuffle_f32x4::<0x88>(u[8 + j], u[12 + j]);
        let odd23 = _mm512_shuffle_f32x4::<0xDD>(u[8 + j], u[12 + j]);
        x[j] = _mm512_shuffle_f32x4::<0x88>(even01, even23);
        x[4 + j] = _mm512_shuffle_f32x4::<0x88>(odd01, odd23);
        x[8 + j] = _mm512_shuffle_f32x4::<0xDD>(even01, even23);
        x[12 + j] = _mm512_shuffle_f32x4::<0xDD>(odd01, odd23);
    }
}

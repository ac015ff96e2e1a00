//! The AVX2 + FMA register tile: up to 6 rows x 2 ymm vectors of C (12 accumulators) stay
//! in registers, with 2 for the B row and 1 for the broadcast A value: 15 of the 16 ymm
//! registers, enough independent FMAs to cover their latency on both FMA ports.

use super::isa::{PanelA, TileDst};
use core::arch::x86_64::*;

/// Rows of C per tile (A values broadcast per k step).
pub const MR: usize = 6;
/// Columns of C per tile: two 8-lane vectors (B values loaded per k step).
pub const NR: usize = 16;

/// As `Isa::tile` for `Avx2`.
///
/// # Safety
/// The CPU has AVX2 and FMA; otherwise as `Isa::tile`.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn tile(rows: usize, cols: usize, kc: usize, a: PanelA, b: *const f32, dst: TileDst) {
    // One monomorphized kernel per shape, so every accumulator index is a constant and
    // the whole tile stays in registers.
    macro_rules! by_rows {
        ($v:literal) => {
            match rows {
                1 => tile_rv::<1, $v>(cols, kc, a, b, dst),
                2 => tile_rv::<2, $v>(cols, kc, a, b, dst),
                3 => tile_rv::<3, $v>(cols, kc, a, b, dst),
                4 => tile_rv::<4, $v>(cols, kc, a, b, dst),
                5 => tile_rv::<5, $v>(cols, kc, a, b, dst),
                _ => tile_rv::<6, $v>(cols, kc, a, b, dst),
            }
        };
    }
    debug_assert!((1..=MR).contains(&rows) && (1..=NR).contains(&cols));
    if cols > 8 {
        by_rows!(2)
    } else {
        by_rows!(1)
    }
}

/// All-ones in the lanes of vector `v` that hold one of the first `cols` columns (the
/// form `maskload`/`maskstore` take).
#[inline(always)]
unsafe fn lane_mask(cols: usize, v: usize) -> __m256i {
    let n = cols.saturating_sub(8 * v).min(8) as i32;
    _mm256_cmpgt_epi32(
        _mm256_set1_epi32(n),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    )
}

/// `tile` for exactly `R` rows and `V` column vectors (`8 * (V - 1) < cols <= 8 * V`).
///
/// # Safety
/// As `tile`, with `rows == R`.
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_rv<const R: usize, const V: usize>(
    cols: usize,
    kc: usize,
    a: PanelA,
    b: *const f32,
    dst: TileDst,
) {
    if dst.cs == 1 {
        // Start fetching C now: its lines arrive while the k loop runs.
        for r in 0..R {
            let row = dst.c.wrapping_offset(r as isize * dst.rs);
            _mm_prefetch::<_MM_HINT_T0>(row as *const i8);
            _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(8 * V - 1) as *const i8);
        }
    }
    let mut acc = [[_mm256_setzero_ps(); V]; R];
    let mut pb = b;
    // One k step: a row of B in V registers, each A value broadcast against it.
    macro_rules! step {
        ($a_at:expr) => {
            let mut bv = [_mm256_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm256_load_ps(pb.add(8 * v));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm256_broadcast_ss(&*$a_at(r));
                for (x, &bx) in row.iter_mut().zip(&bv) {
                    *x = _mm256_fmadd_ps(av, bx, *x);
                }
            }
            pb = pb.add(NR);
        };
    }
    if a.row_step == 1 {
        let mut pa = a.ptr;
        for _ in 0..kc {
            step!(|r: usize| pa.add(r));
            pa = pa.offset(a.k_step);
        }
    } else {
        // Rows of A read in place: one pointer per row, all moving one float a step.
        let mut rows = [a.ptr; R];
        for (r, p) in rows.iter_mut().enumerate() {
            *p = a.ptr.offset(r as isize * a.row_step);
        }
        for p in 0..kc {
            step!(|r: usize| rows[r].add(p));
        }
    }
    if dst.cs == 1 {
        store_rows(&acc, cols, dst)
    } else {
        store_strided(&acc, cols, dst)
    }
}

/// Writes a tile into C whose rows are contiguous; a vector that runs past `cols` goes
/// through a lane mask.
///
/// # Safety
/// As `tile`, with `dst.cs == 1`.
#[target_feature(enable = "avx2,fma")]
unsafe fn store_rows<const R: usize, const V: usize>(
    acc: &[[__m256; V]; R],
    cols: usize,
    dst: TileDst,
) {
    let alpha = _mm256_set1_ps(dst.alpha);
    let beta = _mm256_set1_ps(dst.beta);
    let mut masks = [_mm256_setzero_si256(); V];
    for (v, m) in masks.iter_mut().enumerate() {
        *m = lane_mask(cols, v);
    }
    for (r, row) in acc.iter().enumerate() {
        let c = dst.c.offset(r as isize * dst.rs);
        for (v, &x) in row.iter().enumerate() {
            // In bounds: vector v > 0 exists only when cols > 8 * v.
            let p = c.add(8 * v);
            let whole = cols >= 8 * (v + 1);
            let mut y = x;
            if dst.alpha != 1.0 {
                y = _mm256_mul_ps(y, alpha);
            }
            if dst.beta != 0.0 {
                let old = if whole {
                    _mm256_loadu_ps(p)
                } else {
                    _mm256_maskload_ps(p, masks[v])
                };
                y = if dst.beta == 1.0 {
                    _mm256_add_ps(old, y)
                } else {
                    _mm256_fmadd_ps(old, beta, y)
                };
            }
            if whole {
                _mm256_storeu_ps(p, y);
            } else {
                _mm256_maskstore_ps(p, masks[v], y);
            }
        }
    }
}

/// Writes a tile into C with any strides, through a scratch copy of the registers.
///
/// # Safety
/// As `tile`.
#[target_feature(enable = "avx2,fma")]
unsafe fn store_strided<const R: usize, const V: usize>(
    acc: &[[__m256; V]; R],
    cols: usize,
    dst: TileDst,
) {
    let mut scratch = [[0f32; NR]; R];
    for (row, out) in acc.iter().zip(scratch.iter_mut()) {
        for (v, &x) in row.iter().enumerate() {
            _mm256_storeu_ps(out.as_mut_ptr().add(8 * v), x);
        }
    }
    for (i, row) in scratch.iter().enumerate() {
        for (j, &x) in row[..cols].iter().enumerate() {
            let p = dst.c.offset(i as isize * dst.rs + j as isize * dst.cs);
            let y = dst.alpha * x;
            *p = if dst.beta == 0.0 {
                y
            } else {
                y + dst.beta * *p
            };
        }
    }
}

//! The register-blocked inner kernel: an up-to MR x NR tile of C lives in zmm registers
//! (14 rows x 2 vectors = 28 accumulators) while a panel of A and a packed panel of B
//! stream through it, each step one B row load and one broadcast per A row.

use super::isa::{PanelA, TileDst};
use core::arch::x86_64::*;

/// Rows of C per tile (A values broadcast per k step).
pub const MR: usize = 14;
/// Columns of C per tile: two 16-lane vectors (B values loaded per k step).
pub const NR: usize = 32;

/// Multiplies a `rows x kc` panel of A by a `kc x cols` packed B panel into `dst`.
///
/// # Safety
/// The CPU has AVX-512F. `a` is readable at every `(r, p)` of the panel and has `row_step`
/// or `k_step` equal to 1; `b` is 64-byte aligned and holds `kc * NR` floats (column `j` of
/// step `p` at `b[p * NR + j]`). `1 <= rows <= MR`, `1 <= cols <= NR`, and `dst` addresses
/// a writable `rows x cols` block that no other thread touches meanwhile.
#[target_feature(enable = "avx512f")]
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
                6 => tile_rv::<6, $v>(cols, kc, a, b, dst),
                7 => tile_rv::<7, $v>(cols, kc, a, b, dst),
                8 => tile_rv::<8, $v>(cols, kc, a, b, dst),
                9 => tile_rv::<9, $v>(cols, kc, a, b, dst),
                10 => tile_rv::<10, $v>(cols, kc, a, b, dst),
                11 => tile_rv::<11, $v>(cols, kc, a, b, dst),
                12 => tile_rv::<12, $v>(cols, kc, a, b, dst),
                13 => tile_rv::<13, $v>(cols, kc, a, b, dst),
                _ => tile_rv::<14, $v>(cols, kc, a, b, dst),
            }
        };
    }
    debug_assert!((1..=MR).contains(&rows) && (1..=NR).contains(&cols));
    if cols > 16 {
        by_rows!(2)
    } else {
        by_rows!(1)
    }
}

/// Lanes of vector `v` that hold one of the first `cols` columns.
#[inline(always)]
fn lane_mask(cols: usize, v: usize) -> __mmask16 {
    let n = cols.saturating_sub(16 * v).min(16);
    ((1u32 << n) - 1) as __mmask16
}

/// `tile` for exactly `R` rows and `V` column vectors (`16 * (V - 1) < cols <= 16 * V`).
///
/// # Safety
/// As `tile`, with `rows == R`.
#[target_feature(enable = "avx512f")]
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
            _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(16 * V - 1) as *const i8);
        }
    }
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    let mut pb = b;
    // One k step: a row of B in V registers, each A value broadcast against it.
    macro_rules! step {
        ($a_at:expr) => {
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_load_ps(pb.add(16 * v));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*$a_at(r));
                for (x, &bx) in row.iter_mut().zip(&bv) {
                    *x = _mm512_fmadd_ps(av, bx, *x);
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

/// Writes a tile into C whose rows are contiguous, masking the columns past `cols`.
///
/// # Safety
/// As `tile`, with `dst.cs == 1`.
#[target_feature(enable = "avx512f")]
unsafe fn store_rows<const R: usize, const V: usize>(
    acc: &[[__m512; V]; R],
    cols: usize,
    dst: TileDst,
) {
    let alpha = _mm512_set1_ps(dst.alpha);
    let beta = _mm512_set1_ps(dst.beta);
    let mut masks = [0 as __mmask16; V];
    for (v, m) in masks.iter_mut().enumerate() {
        *m = lane_mask(cols, v);
    }
    for (r, row) in acc.iter().enumerate() {
        let c = dst.c.offset(r as isize * dst.rs);
        for (v, &x) in row.iter().enumerate() {
            // In bounds: vector v > 0 exists only when cols > 16 * v.
            let p = c.add(16 * v);
            let mut y = x;
            if dst.alpha != 1.0 {
                y = _mm512_mul_ps(y, alpha);
            }
            if dst.beta != 0.0 {
                let old = _mm512_maskz_loadu_ps(masks[v], p);
                y = if dst.beta == 1.0 {
                    _mm512_add_ps(old, y)
                } else {
                    _mm512_fmadd_ps(old, beta, y)
                };
            }
            _mm512_mask_storeu_ps(p, masks[v], y);
        }
    }
}

/// Writes a tile into C with any strides, through a scratch copy of the registers.
///
/// # Safety
/// As `tile`.
#[target_feature(enable = "avx512f")]
unsafe fn store_strided<const R: usize, const V: usize>(
    acc: &[[__m512; V]; R],
    cols: usize,
    dst: TileDst,
) {
    let mut scratch = [[0f32; 32]; R];
    for (row, out) in acc.iter().zip(scratch.iter_mut()) {
        for (v, &x) in row.iter().enumerate() {
            _mm512_storeu_ps(out.as_mut_ptr().add(16 * v), x);
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

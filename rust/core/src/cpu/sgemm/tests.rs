//! Checks `sgemm` against a float64 reference over sampled shapes (block and tile edges
//! included), every operand layout, beta 0 and 1, and one or several threads; also that
//! nothing outside C is written and that the thread count does not change a single bit.
//! Every check runs with each register tile the CPU has (AVX-512 and AVX2).

use super::isa::{Avx2, Avx512};
use super::{sgemm_with, Dims, MatMut, MatRef, Tile};

/// How a logical `rows x cols` matrix sits in its buffer.
#[derive(Clone, Copy, Debug)]
enum Layout {
    RowMajor,
    ColMajor,
    /// Rows with a gap after them, as a slice `x[:, a:b]` leaves.
    PaddedRows,
    /// Neither stride is 1, as `x[::2, ::3]` leaves.
    Strided,
}

const LAYOUTS: [Layout; 4] = [
    Layout::RowMajor,
    Layout::ColMajor,
    Layout::PaddedRows,
    Layout::Strided,
];

/// A matrix in a buffer whose other elements hold a sentinel.
struct Mat {
    buf: Vec<f32>,
    rs: isize,
    cs: isize,
}

const SENTINEL: f32 = 1234.5;

impl Mat {
    fn new(rows: usize, cols: usize, layout: Layout, rng: &mut Rng) -> Mat {
        let (rs, cs) = match layout {
            Layout::RowMajor => (cols.max(1), 1),
            Layout::ColMajor => (1, rows.max(1)),
            Layout::PaddedRows => (cols + 5, 1),
            Layout::Strided => (3 * cols + 2, 3),
        };
        let len = (rows.max(1) - 1) * rs + (cols.max(1) - 1) * cs + 1;
        let mut m = Mat {
            buf: vec![SENTINEL; len],
            rs: rs as isize,
            cs: cs as isize,
        };
        for i in 0..rows {
            for j in 0..cols {
                let o = m.offset(i, j);
                m.buf[o] = rng.next();
            }
        }
        m
    }

    fn offset(&self, i: usize, j: usize) -> usize {
        (i as isize * self.rs + j as isize * self.cs) as usize
    }

    fn get(&self, i: usize, j: usize) -> f32 {
        self.buf[self.offset(i, j)]
    }

    fn as_ref(&self) -> MatRef<f32> {
        MatRef {
            ptr: self.buf.as_ptr(),
            rs: self.rs,
            cs: self.cs,
        }
    }

    fn as_mut(&mut self) -> MatMut<f32> {
        MatMut {
            ptr: self.buf.as_mut_ptr(),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

/// xorshift64*: reproducible values in [-1, 1) without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        bits as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// One product to check.
#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    layouts: [Layout; 3],
    alpha: f32,
    beta: f32,
    threads: usize,
    tile: Tile,
}

impl Case {
    fn new(m: usize, n: usize, k: usize) -> Case {
        Case {
            m,
            n,
            k,
            layouts: [Layout::RowMajor; 3],
            alpha: 1.0,
            beta: 0.0,
            threads: 1,
            tile: Tile::Avx512,
        }
    }
}

/// Runs `case` at every tile the CPU has and returns C's buffer for each, after checking
/// each as `check_at` does.
fn check(case: Case) -> Vec<Vec<f32>> {
    tiles()
        .into_iter()
        .map(|tile| check_at(Case { tile, ..case }))
        .collect()
}

/// Runs `case` and returns C's buffer, after checking every element against the float64
/// reference (error bound growing with k) and that the rest of the buffer is untouched.
fn check_at(case: Case) -> Vec<f32> {
    let Case { m, n, k, .. } = case;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (m * 1_000_003 + n * 1009 + k) as u64);
    let a = Mat::new(m, k, case.layouts[0], &mut rng);
    let b = Mat::new(k, n, case.layouts[1], &mut rng);
    let mut c = Mat::new(m, n, case.layouts[2], &mut rng);
    if case.beta == 0.0 {
        // C's old values must be ignored, NaN included.
        for i in 0..m {
            for j in 0..n {
                let o = c.offset(i, j);
                c.buf[o] = f32::NAN;
            }
        }
    }
    let before = c.buf.clone();
    let d = Dims { m, n, k };
    // SAFETY: the buffers cover every element of the three matrices; C is separate.
    unsafe {
        let (alpha, beta, threads) = (case.alpha, case.beta, case.threads);
        let (a, b, c) = (a.as_ref(), b.as_ref(), c.as_mut());
        match case.tile {
            Tile::Avx512 => sgemm_with::<Avx512>(d, alpha, a, b, beta, c, threads),
            Tile::Avx2 => sgemm_with::<Avx2>(d, alpha, a, b, beta, c, threads),
        }
    };
    let mut inside = vec![false; c.buf.len()];
    for i in 0..m {
        for j in 0..n {
            inside[c.offset(i, j)] = true;
            let (mut sum, mut mag) = (0f64, 0f64);
            for p in 0..k {
                let t = a.get(i, p) as f64 * b.get(p, j) as f64;
                sum += t;
                mag += t.abs();
            }
            let old = before[c.offset(i, j)] as f64;
            let (alpha, beta) = (case.alpha as f64, case.beta as f64);
            let mut want = alpha * sum;
            let mut scale = alpha.abs() * mag;
            if beta != 0.0 {
                want += beta * old;
                scale += (beta * old).abs();
            }
            let tol = 2.0 * (k + 2) as f64 * f32::EPSILON as f64 * scale + 1e-30;
            let got = c.get(i, j) as f64;
            assert!(
                (got - want).abs() <= tol,
                "{case:?}: C[{i},{j}] = {got}, want {want} (tolerance {tol})"
            );
        }
    }
    for (o, (&now, &was)) in c.buf.iter().zip(&before).enumerate() {
        assert!(
            inside[o] || now.to_bits() == was.to_bits(),
            "{case:?}: wrote outside C at offset {o}"
        );
    }
    c.buf
}

/// The tiles this CPU can run, whatever the SIMD level the process was started at.
fn tiles() -> Vec<Tile> {
    let mut t = Vec::new();
    if std::arch::is_x86_feature_detected!("avx512f") {
        t.push(Tile::Avx512);
    }
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        t.push(Tile::Avx2);
    }
    t
}

/// False (and a note) on CPUs with neither tile, where the kernel must not run.
fn runnable() -> bool {
    let any = !tiles().is_empty();
    if !any {
        eprintln!("sgemm tests skipped: the CPU has neither AVX-512F nor AVX2 with FMA");
    }
    any
}

// Tile edges of both tiles (MR 14 and 6, NR 32 and 16) and their neighbours.
const SIZES: [usize; 17] = [
    0, 1, 2, 3, 6, 7, 8, 13, 16, 17, 31, 32, 33, 64, 100, 128, 257,
];

#[test]
fn sampled_shapes_match_the_reference() {
    if !runnable() {
        return;
    }
    // Every (m, n) pair, with k, layouts, beta and threads rotating so each size meets
    // each of them.
    for (im, &m) in SIZES.iter().enumerate() {
        for (in_, &n) in SIZES.iter().enumerate() {
            let s = im * SIZES.len() + in_;
            let k = SIZES[(im * 7 + in_ * 3 + 1) % SIZES.len()];
            check(Case {
                layouts: [LAYOUTS[s % 4], LAYOUTS[(s / 4) % 4], LAYOUTS[(s / 16) % 4]],
                beta: (s % 2) as f32,
                threads: 1 + (s / 3) % 2,
                ..Case::new(m, n, k)
            });
        }
    }
}

#[test]
fn every_layout_with_both_betas() {
    if !runnable() {
        return;
    }
    for la in LAYOUTS {
        for lb in LAYOUTS {
            for lc in LAYOUTS {
                for beta in [0.0, 1.0] {
                    check(Case {
                        layouts: [la, lb, lc],
                        beta,
                        ..Case::new(33, 47, 35)
                    });
                }
            }
        }
    }
}

#[test]
fn alpha_and_other_betas_scale() {
    if !runnable() {
        return;
    }
    for (alpha, beta) in [(0.5, -2.0), (-1.0, 0.25), (2.0, 0.0), (0.0, 1.0)] {
        for lc in [Layout::RowMajor, Layout::Strided] {
            check(Case {
                layouts: [Layout::RowMajor, Layout::ColMajor, lc],
                alpha,
                beta,
                ..Case::new(29, 50, 40)
            });
        }
    }
}

#[test]
fn empty_inner_dimension_clears_or_scales_c() {
    if !runnable() {
        return;
    }
    for beta in [0.0, 1.0, 3.0] {
        for lc in LAYOUTS {
            check(Case {
                layouts: [Layout::RowMajor, Layout::RowMajor, lc],
                beta,
                ..Case::new(5, 20, 0)
            });
        }
    }
}

#[test]
fn blocks_larger_than_one_cache_block() {
    if !runnable() {
        return;
    }
    // k over KC (several k blocks accumulate), m over MC, n over NC.
    check(Case::new(30, 40, 600));
    check(Case {
        beta: 1.0,
        layouts: [Layout::ColMajor, Layout::RowMajor, Layout::RowMajor],
        ..Case::new(400, 70, 300)
    });
    check(Case {
        layouts: [Layout::RowMajor, Layout::ColMajor, Layout::ColMajor],
        ..Case::new(20, 1100, 90)
    });
}

#[test]
fn threads_split_rows_or_columns_without_changing_a_bit() {
    if !runnable() {
        return;
    }
    // Wide (split over columns), tall (split over rows), square, a transposed C, and
    // several row and k blocks per thread.
    let shapes = [
        (64, 700, 100),
        (700, 40, 100),
        (257, 257, 129),
        (200, 300, 520),
    ];
    for (s, &(m, n, k)) in shapes.iter().enumerate() {
        let layouts = [LAYOUTS[s % 4], LAYOUTS[(s + 1) % 4], LAYOUTS[s % 2]];
        let one = check(Case {
            layouts,
            beta: 1.0,
            ..Case::new(m, n, k)
        });
        for threads in [2, 3, 4] {
            let many = check(Case {
                layouts,
                beta: 1.0,
                threads,
                ..Case::new(m, n, k)
            });
            for ((one, many), tile) in one.iter().zip(&many).zip(tiles()) {
                let same = one
                    .iter()
                    .zip(many)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(
                    same,
                    "{tile:?}: {m}x{n}x{k} on {threads} threads differs from one thread"
                );
            }
        }
    }
}

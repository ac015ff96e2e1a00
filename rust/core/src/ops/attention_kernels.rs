//! The kernels of fused attention (`ops/attention.rs`): softmax(Q K^T * scale + mask) V per
//! head, with an optional additive mask or causal (top-left) masking, in blocks of queries. Each block keeps one
//! [block, keys] tile: its scores, their softmax and the product with V run back to back
//! while the tile is in cache, and causal blocks stop at their last query's key. The
//! backward recomputes each tile from the rows' saved log-sum-exp instead of keeping it.

use super::conv_scratch::{with_scratch, ConvFloat};
use crate::cpu::gemm_any::gemm_any;
use crate::cpu::math::Float;
use crate::cpu::parallel::SharedOut;
use crate::cpu::sgemm::{Dims, MatMut, MatRef};
use crate::cpu::simd::{self, Kernel};
use crate::cpu::thread_pool;
use crate::ops::matmul::batch_offsets;
use crate::Tensor;
use gemm::Parallelism;

/// Queries per block: the tile [BLOCK, keys] of a 1024-key row block is 256 KiB (f32).
pub(super) const BLOCK: usize = 64;

/// The element types the kernels take.
pub(super) trait AttnFloat: ConvFloat + Float + PartialEq {}
impl AttnFloat for f32 {}
impl AttnFloat for f64 {}

/// Sizes of one call: `heads` matrices of queries [l, e], keys [s, e], values [s, ev].
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    pub heads: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub scale: f64,
    pub causal: bool,
}

impl Geometry {
    /// Keys a block of queries ending (exclusive) at `q1` reads.
    fn keys(&self, q1: usize) -> usize {
        if self.causal {
            self.s.min(q1)
        } else {
            self.s
        }
    }

    /// Keys query `i` attends to, of the `nk` its block reads.
    fn allowed(&self, i: usize, nk: usize) -> usize {
        if self.causal {
            (i + 1).min(nk)
        } else {
            nk
        }
    }

    fn blocks(&self) -> usize {
        self.l.div_ceil(BLOCK)
    }
}

/// One strided operand: the matrix of head `h` starts at `base + offsets[h]`, element
/// (i, j) `i * rs + j * cs` further on. Views (the heads of a permuted QKV projection) are
/// read in place.
pub(super) struct Operand<T> {
    base: *const T,
    offsets: Vec<usize>,
    rs: isize,
    cs: isize,
}

// SAFETY: operands are only read, and the tensor they view outlives the call.
unsafe impl<T> Sync for Operand<T> {}

impl<T: AttnFloat> Operand<T> {
    /// The heads of `t` (all dims but the last two). `t` is a CPU tensor of dtype `T`.
    pub(super) fn of(t: &Tensor) -> Operand<T> {
        let nd = t.ndim();
        Operand {
            base: t.storage().ptr() as *const T,
            offsets: batch_offsets(t),
            rs: t.strides()[nd - 2] as isize,
            cs: t.strides()[nd - 1] as isize,
        }
    }

    /// Rows `r0..` of head `h`.
    fn rows(&self, h: usize, r0: usize) -> MatRef<T> {
        MatRef {
            // SAFETY: the offset stays inside the viewed storage for rows of the matrix.
            ptr: unsafe { self.base.add(self.offsets[h]).offset(r0 as isize * self.rs) },
            rs: self.rs,
            cs: self.cs,
        }
    }
}

impl<T: AttnFloat> Operand<T> {
    /// Row `i` of head `h` as a strided run (the additive mask's rows).
    fn row(&self, h: usize, i: usize) -> MaskRow<T> {
        let m = self.rows(h, i);
        MaskRow {
            ptr: m.ptr,
            cs: m.cs,
        }
    }
}

/// The operands of one call: queries, keys, values and an optional additive mask
/// ([heads, l, s] through its strides, broadcast dims at stride 0).
pub(super) struct Inputs<'a, T> {
    pub q: &'a Operand<T>,
    pub k: &'a Operand<T>,
    pub v: &'a Operand<T>,
    pub mask: Option<&'a Operand<T>>,
}

/// One row of the additive mask: element `j` at `ptr + j * cs`.
#[derive(Clone, Copy)]
struct MaskRow<T> {
    ptr: *const T,
    cs: isize,
}

impl<T: Copy> MaskRow<T> {
    #[inline(always)]
    fn at(&self, j: usize) -> T {
        // SAFETY: rows are built from a mask operand of the call's [l, s] shape, j < s.
        unsafe { *self.ptr.offset(j as isize * self.cs) }
    }
}

/// `tmp[j] = row[j] * scale (+ mask[j])` over the first `tmp.len()` keys.
#[inline(always)]
fn scaled_scores<T: AttnFloat>(row: &[T], tmp: &mut [T], scale: T, mask: Option<MaskRow<T>>) {
    match mask {
        None => {
            for (t, &x) in tmp.iter_mut().zip(row.iter()) {
                *t = x * scale;
            }
        }
        Some(m) => {
            for (j, (t, &x)) in tmp.iter_mut().zip(row.iter()).enumerate() {
                *t = x * scale + m.at(j);
            }
        }
    }
}

/// Runs `task(0..count)` over the calling thread and the pool's threads.
fn run_tasks(count: usize, task: impl Fn(usize) + Sync) {
    let helpers = thread_pool::num_threads()
        .saturating_sub(1)
        .min(count.saturating_sub(1));
    thread_pool::for_each_claimed(count, helpers, task);
}

/// `C (+)= A B` on this thread.
///
/// # Safety
/// As `gemm_any`.
unsafe fn product<T: AttnFloat>(d: Dims, a: MatRef<T>, b: MatRef<T>, c: MatMut<T>, acc: bool) {
    gemm_any(d, a, b, c, acc, Parallelism::None)
}

/// One row of the forward: the scaled scores' softmax over the first `allowed` keys (zeros
/// after them), returning the row's log-sum-exp.
struct SoftmaxRow<'a, T> {
    row: &'a mut [T],
    tmp: &'a mut [T],
    allowed: usize,
    scale: T,
    mask: Option<MaskRow<T>>,
}

impl<T: AttnFloat> Kernel for SoftmaxRow<'_, T> {
    type Output = T;
    #[inline(always)]
    fn run(self) -> T {
        let a = self.allowed;
        let (row, tmp) = (self.row, &mut self.tmp[..a]);
        let ninf = T::from_f64c(f64::NEG_INFINITY);
        if let Some(m) = self.mask {
            if (0..a).all(|j| m.at(j) == ninf) {
                // A row the mask wholly blocks attends to nothing: zeros (PyTorch's), and a
                // log-sum-exp of -inf that marks it for the backward.
                row.iter_mut().for_each(|x| *x = T::zero());
                return ninf;
            }
        }
        scaled_scores(row, tmp, self.scale, self.mask);
        let m = T::max_slice(tmp);
        T::exp_minus_slice(tmp, m, &mut row[..a]);
        row[a..].iter_mut().for_each(|x| *x = T::zero());
        let sum = T::sum_slice(&row[..a]);
        let inv = T::one() / sum;
        row[..a].iter_mut().for_each(|x| *x = *x * inv);
        m + sum.ln()
    }
}

/// One row of the backward's probabilities: exp(score * scale - lse) over the first
/// `allowed` keys, zeros after them.
struct ProbRow<'a, T> {
    row: &'a mut [T],
    tmp: &'a mut [T],
    allowed: usize,
    scale: T,
    lse: T,
    mask: Option<MaskRow<T>>,
}

impl<T: AttnFloat> Kernel for ProbRow<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let a = self.allowed;
        let (row, tmp) = (self.row, &mut self.tmp[..a]);
        if self.lse == T::from_f64c(f64::NEG_INFINITY) {
            row.iter_mut().for_each(|x| *x = T::zero()); // a wholly masked row
            return;
        }
        scaled_scores(row, tmp, self.scale, self.mask);
        T::exp_minus_slice(tmp, self.lse, &mut row[..a]);
        row[a..].iter_mut().for_each(|x| *x = T::zero());
    }
}

/// dS = P * (dP - D) * scale over one row, in place of dP (zeros after `allowed`).
struct ScoreGradRow<'a, T> {
    dp: &'a mut [T],
    p: &'a [T],
    allowed: usize,
    d: T,
    scale: T,
}

impl<T: AttnFloat> Kernel for ScoreGradRow<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let a = self.allowed;
        for (g, &p) in self.dp[..a].iter_mut().zip(&self.p[..a]) {
            *g = p * (*g - self.d) * self.scale;
        }
        self.dp[a..].iter_mut().for_each(|x| *x = T::zero());
    }
}

/// The forward: `out` ([heads, l, ev], contiguous) and each row's log-sum-exp of its
/// scaled scores into `lse` ([heads, l]).
///
/// # Safety
/// The operands hold `g`'s shapes; `out` and `lse` are writable, of those sizes, and
/// overlap nothing else.
pub(super) unsafe fn forward<T: AttnFloat>(
    g: &Geometry,
    x: &Inputs<'_, T>,
    out: *mut T,
    lse: *mut T,
) {
    let (out, lse) = (SharedOut::new(out), SharedOut::new(lse));
    let nb = g.blocks();
    run_tasks(g.heads * nb, |t| {
        let (h, q0) = (t / nb, (t % nb) * BLOCK);
        forward_block(g, x, h, q0, &out, &lse)
    });
}

unsafe fn forward_block<T: AttnFloat>(
    g: &Geometry,
    x: &Inputs<'_, T>,
    h: usize,
    q0: usize,
    out: &SharedOut<T>,
    lse: &SharedOut<T>,
) {
    let q1 = (q0 + BLOCK).min(g.l);
    let (rows, nk) = (q1 - q0, g.keys(q1));
    let scale = T::from_f64c(g.scale);
    let (q, k, v) = (x.q, x.k, x.v);
    with_scratch::<T, _>(rows * nk + nk, |ws| {
        let (p, tmp) = ws.split_at_mut(rows * nk);
        let d = Dims {
            m: rows,
            n: nk,
            k: g.e,
        };
        product(
            d,
            q.rows(h, q0),
            k.rows(h, 0).t(),
            MatMut::row_major(p.as_mut_ptr(), nk),
            false,
        );
        for (r, row) in p.chunks_exact_mut(nk).enumerate() {
            let allowed = g.allowed(q0 + r, nk);
            let tmp = &mut tmp[..];
            let m = simd::run(SoftmaxRow {
                row,
                tmp,
                allowed,
                scale,
                mask: x.mask.map(|m| m.row(h, q0 + r)),
            });
            *lse.at(h * g.l + q0 + r) = m;
        }
        let d = Dims {
            m: rows,
            n: g.ev,
            k: nk,
        };
        let o = MatMut::row_major(out.at((h * g.l + q0) * g.ev), g.ev);
        product(d, MatRef::row_major(p.as_ptr(), nk), v.rows(h, 0), o, false);
    });
}

/// The saved forward state and the incoming gradient, all contiguous: the output and its
/// gradient [heads, l, ev], the log-sum-exps [heads, l].
pub(super) struct Saved<'a, T> {
    pub out: &'a [T],
    pub dout: &'a [T],
    pub lse: &'a [T],
}

/// The backward: the gradients of Q, K and V into `dq` [heads, l, e], `dk` [heads, s, e]
/// and `dv` [heads, s, ev] (contiguous, written whole). A head per task.
///
/// # Safety
/// As `forward`; `dq`, `dk`, `dv` are writable, of those sizes, and overlap nothing else.
pub(super) unsafe fn backward<T: AttnFloat>(
    g: &Geometry,
    x: &Inputs<'_, T>,
    saved: &Saved<'_, T>,
    grads: [*mut T; 3],
) {
    let [dq, dk, dv] = grads.map(SharedOut::new);
    run_tasks(g.heads, |h| backward_head(g, x, saved, h, [&dq, &dk, &dv]));
}

unsafe fn backward_head<T: AttnFloat>(
    g: &Geometry,
    x: &Inputs<'_, T>,
    saved: &Saved<'_, T>,
    h: usize,
    [dq, dk, dv]: [&SharedOut<T>; 3],
) {
    let scale = T::from_f64c(g.scale);
    let (q, k, v) = (x.q, x.k, x.v);
    let (dk, dv) = (dk.at(h * g.s * g.e), dv.at(h * g.s * g.ev));
    std::ptr::write_bytes(dk, 0, g.s * g.e);
    std::ptr::write_bytes(dv, 0, g.s * g.ev);
    let tile = BLOCK.min(g.l) * g.s;
    with_scratch::<T, _>(2 * tile + g.s + BLOCK, |ws| {
        let (p, rest) = ws.split_at_mut(tile);
        let (dp, rest) = rest.split_at_mut(tile);
        let (tmp, dsum) = rest.split_at_mut(g.s);
        let dout_h = &saved.dout[h * g.l * g.ev..(h + 1) * g.l * g.ev];
        let out_h = &saved.out[h * g.l * g.ev..(h + 1) * g.l * g.ev];
        for q0 in (0..g.l).step_by(BLOCK) {
            let q1 = (q0 + BLOCK).min(g.l);
            let (rows, nk) = (q1 - q0, g.keys(q1));
            let (p, dp) = (&mut p[..rows * nk], &mut dp[..rows * nk]);
            // D_i = sum_j dO_ij O_ij, the softmax backward's row term.
            for (r, d) in dsum[..rows].iter_mut().enumerate() {
                let i = (q0 + r) * g.ev;
                *d = dout_h[i..i + g.ev]
                    .iter()
                    .zip(&out_h[i..i + g.ev])
                    .fold(T::zero(), |acc, (&a, &b)| acc + a * b);
            }
            let d = Dims {
                m: rows,
                n: nk,
                k: g.e,
            };
            let kt = k.rows(h, 0).t();
            product(
                d,
                q.rows(h, q0),
                kt,
                MatMut::row_major(p.as_mut_ptr(), nk),
                false,
            );
            for (r, row) in p.chunks_exact_mut(nk).enumerate() {
                let allowed = g.allowed(q0 + r, nk);
                let lse = saved.lse[h * g.l + q0 + r];
                let tmp = &mut tmp[..];
                simd::run(ProbRow {
                    row,
                    tmp,
                    allowed,
                    scale,
                    lse,
                    mask: x.mask.map(|m| m.row(h, q0 + r)),
                });
            }
            let do_blk = MatRef::row_major(dout_h[q0 * g.ev..].as_ptr(), g.ev);
            // dV[:nk] += P^T dO
            let d = Dims {
                m: nk,
                n: g.ev,
                k: rows,
            };
            let pt = MatRef::row_major(p.as_ptr(), nk).t();
            product(d, pt, do_blk, MatMut::row_major(dv, g.ev), true);
            // dP = dO V[:nk]^T, then dS in its place.
            let d = Dims {
                m: rows,
                n: nk,
                k: g.ev,
            };
            let vt = v.rows(h, 0).t();
            product(d, do_blk, vt, MatMut::row_major(dp.as_mut_ptr(), nk), false);
            for (r, (dp, p)) in dp.chunks_exact_mut(nk).zip(p.chunks_exact(nk)).enumerate() {
                let allowed = g.allowed(q0 + r, nk);
                let d = dsum[r];
                simd::run(ScoreGradRow {
                    dp,
                    p,
                    allowed,
                    d,
                    scale,
                });
            }
            // dQ = dS K[:nk]; dK[:nk] += dS^T Q
            let d = Dims {
                m: rows,
                n: g.e,
                k: nk,
            };
            let dq_blk = MatMut::row_major(dq.at((h * g.l + q0) * g.e), g.e);
            product(
                d,
                MatRef::row_major(dp.as_ptr(), nk),
                k.rows(h, 0),
                dq_blk,
                false,
            );
            let d = Dims {
                m: nk,
                n: g.e,
                k: rows,
            };
            let dst = MatRef::row_major(dp.as_ptr(), nk).t();
            product(d, dst, q.rows(h, q0), MatMut::row_major(dk, g.e), true);
        }
    });
}

//! Splitting one product over the pool: each thread takes a balanced run of whole NR column
//! panels (or row tiles) of C and does its own packing, so threads never wait on each
//! other inside a product; the split is the one whose duplicated packing costs least. (Sharing one packed A between threads was measured slower: the
//! second core reads every panel out of the first one's L2.)

use super::block::{multiply_rect, read_a_in_place, row_step, Problem};
use super::isa::Isa;
use super::pack::Strided;
use super::Dims;
use crate::cpu::thread_pool::for_each_claimed;
use std::ops::Range;

/// Multiply-adds a thread must get before a product is split: below it, handing work to
/// another thread costs about as much as that thread saves.
const MIN_WORK_PER_THREAD: usize = 64 * 64 * 256;

/// Computes all of `p`'s C (`d.m x d.n`) on up to `threads` threads.
///
/// # Safety
/// As `multiply_rect` for the whole of C.
pub unsafe fn run<I: Isa>(d: Dims, p: &Problem, threads: usize) {
    let work = d.m.saturating_mul(d.n).saturating_mul(d.k);
    let threads = threads.min(work / MIN_WORK_PER_THREAD).max(1);
    let mr = row_step::<I>(d.m);
    let (m_tiles, n_panels) = (d.m.div_ceil(mr), d.n.div_ceil(I::NR));
    // Across n every thread packs all of A, across m all of B: duplicate the cheaper one.
    let a_cost = d.m * d.k * pack_cost_a::<I>(&p.a);
    let b_cost = d.k * d.n * pack_cost_b(&p.b);
    let by_columns = n_panels >= threads && (a_cost <= b_cost || m_tiles < threads);
    let parts = threads.min(if by_columns { n_panels } else { m_tiles });
    if parts <= 1 {
        return multiply_rect::<I>(p, 0..d.m, 0..d.n);
    }
    // The calling thread takes a part itself: it starts at once, and does the rest too if
    // a pool thread is slow to join.
    for_each_claimed(parts, parts - 1, |t| {
        let (rows, cols) = if by_columns {
            (0..d.m, share(t, parts, n_panels, I::NR, d.n))
        } else {
            (share(t, parts, m_tiles, mr, d.m), 0..d.n)
        };
        // SAFETY: the parts' rectangles of C are disjoint.
        unsafe { multiply_rect::<I>(p, rows, cols) }
    });
}

/// Relative cost per element of packing A: none when it is read in place, 2 for a copy
/// (its panels' columns are contiguous), 5 for a transpose or gather (measured ~2.5x).
fn pack_cost_a<I: Isa>(a: &Strided) -> usize {
    if read_a_in_place::<I>(a) {
        0
    } else if a.rs == 1 {
        2
    } else {
        5
    }
}

/// As `pack_cost_a` for B, whose panels' rows are contiguous when its columns are.
fn pack_cost_b(b: &Strided) -> usize {
    if b.cs == 1 {
        2
    } else {
        5
    }
}

/// Part `t` of `parts` of `units` units of `unit` elements (`len` in all).
fn share(t: usize, parts: usize, units: usize, unit: usize, len: usize) -> Range<usize> {
    let edge = |t: usize| (units * t / parts * unit).min(len);
    edge(t)..edge(t + 1)
}

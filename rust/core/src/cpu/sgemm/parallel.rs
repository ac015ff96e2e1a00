//! Splitting one product over the pool: each thread takes a balanced run of whole NR column
//! panels (or row tiles) of C and does its own packing, so threads never wait on each
//! other inside a product. (Sharing one packed A between threads was measured slower: the
//! second core reads every panel out of the first one's L2.)

use super::block::{multiply_rect, row_step, Problem};
use super::kernel::NR;
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
pub unsafe fn run(d: Dims, p: &Problem, threads: usize) {
    let work = d.m.saturating_mul(d.n).saturating_mul(d.k);
    let threads = threads.min(work / MIN_WORK_PER_THREAD).max(1);
    let mr = row_step(d.m);
    let (m_tiles, n_panels) = (d.m.div_ceil(mr), d.n.div_ceil(NR));
    // Across n every thread packs all of A, across m all of B: duplicate the smaller one.
    let by_columns = n_panels >= threads && (d.m <= d.n || m_tiles < threads);
    let parts = threads.min(if by_columns { n_panels } else { m_tiles });
    if parts <= 1 {
        return multiply_rect(p, 0..d.m, 0..d.n);
    }
    // The calling thread takes a part itself: it starts at once, and does the rest too if
    // a pool thread is slow to join.
    for_each_claimed(parts, parts - 1, |t| {
        let (rows, cols) = if by_columns {
            (0..d.m, share(t, parts, n_panels, NR, d.n))
        } else {
            (share(t, parts, m_tiles, mr, d.m), 0..d.n)
        };
        // SAFETY: the parts' rectangles of C are disjoint.
        unsafe { multiply_rect(p, rows, cols) }
    });
}

/// Part `t` of `parts` of `units` units of `unit` elements (`len` in all).
fn share(t: usize, parts: usize, units: usize, unit: usize, len: usize) -> Range<usize> {
    let edge = |t: usize| (units * t / parts * unit).min(len);
    edge(t)..edge(t + 1)
}

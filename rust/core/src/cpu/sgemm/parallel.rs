//! Splitting one product over the pool: each thread takes a balanced run of whole NR column
//! panels (or MR row panels) of C and does its own packing, so threads never wait on each
//! other inside a product.

use super::block::{multiply_rect, Problem};
use super::kernel::{MR, NR};
use super::Dims;
use std::ops::Range;

/// Multiply-adds a thread must get before a product is split: below it, waking the pool
/// costs about as much as the second thread saves.
const MIN_WORK_PER_THREAD: usize = 64 * 64 * 256;

/// Computes all of `p`'s C (`d.m x d.n`) on up to `threads` threads.
///
/// # Safety
/// As `multiply_rect` for the whole of C.
pub unsafe fn run(d: Dims, p: &Problem, threads: usize) {
    let work = d.m.saturating_mul(d.n).saturating_mul(d.k);
    let threads = threads.min(work / MIN_WORK_PER_THREAD).max(1);
    let (m_panels, n_panels) = (d.m.div_ceil(MR), d.n.div_ceil(NR));
    // Across n every thread packs all of A, across m all of B: duplicate the smaller one.
    let split_n = n_panels >= threads && (d.m <= d.n || m_panels < threads);
    let parts = threads.min(if split_n { n_panels } else { m_panels });
    if parts <= 1 {
        return multiply_rect(p, 0..d.m, 0..d.n);
    }
    crate::cpu::thread_pool::run(|| {
        use rayon::prelude::*;
        (0..parts).into_par_iter().for_each(|t| {
            let (rows, cols) = if split_n {
                (0..d.m, share(t, parts, n_panels, NR, d.n))
            } else {
                (share(t, parts, m_panels, MR, d.m), 0..d.n)
            };
            // SAFETY: the parts' rectangles of C are disjoint.
            unsafe { multiply_rect(p, rows, cols) }
        })
    });
}

/// Part `t` of `parts` of `panels` panels of `unit` elements (`len` in all).
fn share(t: usize, parts: usize, panels: usize, unit: usize, len: usize) -> Range<usize> {
    let edge = |t: usize| (panels * t / parts * unit).min(len);
    edge(t)..edge(t + 1)
}

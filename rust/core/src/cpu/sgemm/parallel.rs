//! Splitting one product over the pool. Wide products (the usual case) are cut into column
//! chunks that the calling thread and its helpers claim as they go, over an A packed once
//! for all of them: nobody waits for a thread to wake, and nobody packs A twice. Tall
//! products are cut into one row range per thread, each packing its own operands.

use super::block::{kc_max, multiply_rect, with_buffer, Buffer, Problem};
use super::kernel::{MR, NR};
use super::shared_a::SharedA;
use super::Dims;
use crate::cpu::thread_pool::for_each_claimed;
use std::ops::Range;

/// Multiply-adds a thread must get before a product is split: below it, waking the pool
/// costs about as much as the second thread saves.
const MIN_WORK_PER_THREAD: usize = 64 * 64 * 256;

/// Column chunks per thread: enough that a thread that starts late (a pool thread waking
/// up) or runs slow (a busy machine) leaves its share to the others, few enough that each
/// chunk reuses the A block it brings into L2 across several panels.
const CHUNKS_PER_THREAD: usize = 4;

/// Largest A (floats) packed for sharing; past it, each thread packs its own (the copy
/// matters less there: each thread's share of the product is large).
const SHARED_A_MAX: usize = 4 << 20;

/// Computes all of `p`'s C (`d.m x d.n`) on up to `threads` threads.
///
/// # Safety
/// As `multiply_rect` for the whole of C.
pub unsafe fn run(d: Dims, p: &Problem, threads: usize) {
    let work = d.m.saturating_mul(d.n).saturating_mul(d.k);
    let threads = threads.min(work / MIN_WORK_PER_THREAD).max(1);
    let (m_panels, n_panels) = (d.m.div_ceil(MR), d.n.div_ceil(NR));
    if threads == 1 {
        return multiply_rect(p, 0..d.m, 0..d.n, None);
    }
    // Across n every thread needs all of A, across m all of B: share the smaller one.
    let by_columns = n_panels >= threads && (d.m <= d.n || m_panels < threads);
    if by_columns && SharedA::floats(d.m, d.k) <= SHARED_A_MAX {
        return by_column_chunks(d, p, threads);
    }
    let parts = threads.min(if by_columns { n_panels } else { m_panels });
    for_each_claimed(parts, threads - 1, |t| {
        let (rows, cols) = if by_columns {
            (0..d.m, share(t, parts, n_panels, NR, d.n))
        } else {
            (share(t, parts, m_panels, MR, d.m), 0..d.n)
        };
        // SAFETY: the parts' rectangles of C are disjoint.
        unsafe { multiply_rect(p, rows, cols, None) }
    });
}

/// Column chunks claimed by this thread and `threads - 1` helpers, over a shared packed A.
///
/// # Safety
/// As `run`.
unsafe fn by_column_chunks(d: Dims, p: &Problem, threads: usize) {
    let n_panels = d.n.div_ceil(NR);
    let chunks = n_panels.min(threads * CHUNKS_PER_THREAD);
    with_buffer(Buffer::SharedA, SharedA::floats(d.m, d.k), |buf| {
        let a = SharedA::new(p.a, d.m, d.k, kc_max(d.k), buf);
        for_each_claimed(chunks, threads - 1, |c| {
            let cols = share(c, chunks, n_panels, NR, d.n);
            // SAFETY: the chunks' columns of C are disjoint; `a` packs p's A.
            unsafe { multiply_rect(p, 0..d.m, cols, Some(&a)) }
        });
    })
}

/// Part `t` of `parts` of `panels` panels of `unit` elements (`len` in all).
fn share(t: usize, parts: usize, panels: usize, unit: usize, len: usize) -> Range<usize> {
    let edge = |t: usize| (panels * t / parts * unit).min(len);
    edge(t)..edge(t + 1)
}

//! FFT kernels over contiguous rows: complex transforms (rustfft) and the half-spectrum
//! real transforms (realfft). Plans are made once per length and kept; rows run in parallel.

use crate::ops::complex_math::Part;
use rayon::prelude::*;
use realfft::{RealFftPlanner, RealToComplex};
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use std::sync::{Arc, Mutex, OnceLock};

/// A part type with its planners (one per type, shared by all threads).
pub(crate) trait FftPart: Part + FftNum {
    fn planner() -> &'static Mutex<FftPlanner<Self>>;
    fn real_planner() -> &'static Mutex<RealFftPlanner<Self>>;
}

macro_rules! fft_part {
    ($t:ty) => {
        impl FftPart for $t {
            fn planner() -> &'static Mutex<FftPlanner<$t>> {
                static P: OnceLock<Mutex<FftPlanner<$t>>> = OnceLock::new();
                P.get_or_init(|| Mutex::new(FftPlanner::new()))
            }
            fn real_planner() -> &'static Mutex<RealFftPlanner<$t>> {
                static P: OnceLock<Mutex<RealFftPlanner<$t>>> = OnceLock::new();
                P.get_or_init(|| Mutex::new(RealFftPlanner::new()))
            }
        }
    };
}
fft_part!(f32);
fft_part!(f64);

/// Rows per parallel task: enough work (elements) to pay for a task.
fn rows_per_task(n: usize) -> usize {
    (crate::cpu::parallel::CHUNK / n.max(1)).max(1)
}

/// Runs `f` on groups of rows of `a` (rows of `a_len`), in parallel when the work is large.
fn for_rows<A: Send>(a: &mut [A], a_len: usize, f: impl Fn(&mut [A]) + Sync) {
    let rows = a.len() / a_len;
    let per = rows_per_task(a_len);
    if crate::cpu::parallel::worth(rows * a_len) && rows > per {
        crate::cpu::thread_pool::run(|| a.par_chunks_mut(per * a_len).for_each(&f));
    } else {
        f(a);
    }
}

/// Runs `f` on matching groups of rows of `a` and `b`, in parallel when the work is large.
fn for_row_pairs<A: Send, B: Send>(
    a: &mut [A],
    a_len: usize,
    b: &mut [B],
    b_len: usize,
    f: impl Fn(&mut [A], &mut [B]) + Sync,
) {
    let rows = a.len() / a_len;
    let per = rows_per_task(a_len.max(b_len));
    if crate::cpu::parallel::worth(rows * a_len.max(b_len)) && rows > per {
        crate::cpu::thread_pool::run(|| {
            a.par_chunks_mut(per * a_len)
                .zip(b.par_chunks_mut(per * b_len))
                .for_each(|(x, y)| f(x, y))
        });
    } else {
        f(a, b);
    }
}

/// In-place complex FFTs of the contiguous rows of length `n` in `data`.
pub(crate) fn c2c_rows<F: FftPart>(data: &mut [Complex<F>], n: usize, forward: bool) {
    if data.is_empty() || n == 0 {
        return;
    }
    let dir = if forward {
        FftDirection::Forward
    } else {
        FftDirection::Inverse
    };
    let plan: Arc<dyn Fft<F>> = F::planner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan_fft(n, dir);
    for_rows(data, n, |rows| {
        let mut scratch = vec![Complex::new(F::zero(), F::zero()); plan.get_inplace_scratch_len()];
        plan.process_with_scratch(rows, &mut scratch);
    });
}

/// Real FFTs of the rows of length `n` in `input` into rows of n/2+1 in `out`.
pub(crate) fn r2c_rows<F: FftPart>(input: &mut [F], n: usize, out: &mut [Complex<F>]) {
    if out.is_empty() || n == 0 {
        return;
    }
    let plan: Arc<dyn RealToComplex<F>> = F::real_planner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan_fft_forward(n);
    let half = n / 2 + 1;
    for_row_pairs(input, n, out, half, |rows, outs| {
        let mut scratch = plan.make_scratch_vec();
        for (x, y) in rows.chunks_exact_mut(n).zip(outs.chunks_exact_mut(half)) {
            // Lengths come from the plan itself, so this cannot fail.
            let _ = plan.process_with_scratch(x, y, &mut scratch);
        }
    });
}

/// Inverse real FFTs: rows of n/2+1 in `input` (used as scratch) into real rows of `n`.
/// The imaginary parts of the zero (and, for even n, the Nyquist) bins are ignored, as the
/// transform of a real signal has none there.
pub(crate) fn c2r_rows<F: FftPart>(input: &mut [Complex<F>], n: usize, out: &mut [F]) {
    if out.is_empty() || n == 0 {
        return;
    }
    let plan = F::real_planner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan_fft_inverse(n);
    let half = n / 2 + 1;
    for_row_pairs(input, half, out, n, |rows, outs| {
        let mut scratch = plan.make_scratch_vec();
        for (x, y) in rows.chunks_exact_mut(half).zip(outs.chunks_exact_mut(n)) {
            // Only `InputValues` can come back: those imaginary parts are dropped on purpose.
            let _ = plan.process_with_scratch(x, y, &mut scratch);
        }
    });
}

//! One strided product for every float type: our AVX-512/AVX2 `sgemm` for float32 where it
//! applies, else the `gemm` crate. Matmul and the convolutions both call it, so the choice
//! between the two kernels is made in one place.

use crate::cpu::sgemm::{self, Dims, MatMut, MatRef};
use crate::Element;
use gemm::Parallelism;

/// `C = A * B` (`C += A * B` when `accumulate`) for `A: m x k`, `B: k x n`, `C: m x n`,
/// all with any strides, on up to the threads `par` names (from any thread: the `gemm`
/// crate is run inside our pool).
///
/// # Safety
/// `T` is f32, f64 or f16 (the `gemm` crate's float types). A and B are readable and C
/// writable at every `(i, j)` inside their shapes; C overlaps neither A nor B and has no
/// zero or aliasing strides.
pub unsafe fn gemm_any<T: Element>(
    d: Dims,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    par: Parallelism,
) {
    let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
    let threads = match par {
        Parallelism::Rayon(t) => t,
        Parallelism::None => 1,
    };
    let beta = if accumulate { one } else { zero };
    if sgemm::try_gemm(d, one, a, b, beta, c, threads) {
        return;
    }
    // The pointers are plain addresses; they cross into the pool as integers.
    let (pa, pb, pc) = (a.ptr as usize, b.ptr as usize, c.ptr as usize);
    let product = move || {
        gemm::gemm(
            d.m,
            d.n,
            d.k,
            pc as *mut T,
            c.cs,
            c.rs,
            accumulate,
            pa as *const T,
            a.cs,
            a.rs,
            pb as *const T,
            b.cs,
            b.rs,
            one,
            one,
            false,
            false,
            false,
            par,
        )
    };
    match par {
        Parallelism::None => product(),
        _ => crate::cpu::thread_pool::run(product),
    }
}

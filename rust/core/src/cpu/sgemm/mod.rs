//! Our float32 GEMM for AVX-512 and AVX2 CPUs: `C = alpha * A * B + beta * C` with any
//! strides, one blocking/packing/threading driver around a register tile per instruction
//! set (`isa`). The `gemm` crate stays the path for other dtypes and older CPUs. The tile
//! follows the SIMD level (`simd::level`).

#[cfg(target_arch = "x86_64")]
mod block;
#[cfg(target_arch = "x86_64")]
mod isa;
#[cfg(target_arch = "x86_64")]
mod kernel;
#[cfg(target_arch = "x86_64")]
mod kernel_avx2;
#[cfg(target_arch = "x86_64")]
mod pack;
#[cfg(target_arch = "x86_64")]
mod pack_avx2;
#[cfg(target_arch = "x86_64")]
mod parallel;
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;

use std::any::TypeId;

/// A read-only strided matrix: element `(i, j)` at `ptr + i * rs + j * cs`.
#[derive(Clone, Copy)]
pub struct MatRef<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

/// A writable strided matrix.
#[derive(Clone, Copy)]
pub struct MatMut<T> {
    pub ptr: *mut T,
    pub rs: isize,
    pub cs: isize,
}

impl<T> MatRef<T> {
    /// The row-major matrix at `ptr` whose rows are `ld` elements apart.
    pub fn row_major(ptr: *const T, ld: usize) -> Self {
        MatRef {
            ptr,
            rs: ld as isize,
            cs: 1,
        }
    }

    /// The transpose of this matrix (no copy: the strides swap).
    pub fn t(self) -> Self {
        MatRef {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

impl<T> MatMut<T> {
    /// The writable row-major matrix at `ptr` whose rows are `ld` elements apart.
    pub fn row_major(ptr: *mut T, ld: usize) -> Self {
        MatMut {
            ptr,
            rs: ld as isize,
            cs: 1,
        }
    }
}

/// `m x n` result, `k` steps of the inner dimension.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

/// The register tiles `sgemm` has, one per instruction set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    /// 14 x 32 in zmm registers.
    Avx512,
    /// 6 x 16 in ymm registers, with FMA.
    Avx2,
}

/// The tile `sgemm` runs at the current SIMD level, if the CPU has one.
pub fn tile() -> Option<Tile> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::simd::{level, Level};
        let l = level();
        if l >= Level::Avx512 && std::arch::is_x86_feature_detected!("avx512f") {
            return Some(Tile::Avx512);
        }
        if l >= Level::Avx2
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
        {
            return Some(Tile::Avx2);
        }
    }
    None
}

/// Whether `sgemm` may run: the CPU has AVX-512F, or AVX2 and FMA, at the SIMD level.
pub fn available() -> bool {
    tile().is_some()
}

/// Whether `try_gemm::<T>` takes the product: `T` is f32 and `available()`.
pub fn applies<T: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<f32>() && available()
}

/// `sgemm` for element type `T` when `T` is f32 and `available()`; otherwise returns false
/// without touching anything, and the caller runs its own product.
///
/// # Safety
/// As `sgemm`.
pub unsafe fn try_gemm<T: 'static + Copy>(
    d: Dims,
    alpha: T,
    a: MatRef<T>,
    b: MatRef<T>,
    beta: T,
    c: MatMut<T>,
    threads: usize,
) -> bool {
    if !applies::<T>() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // T is f32 here, so these are identity casts.
        let f = |x: T| *(&x as *const T as *const f32);
        let (a, b) = (cast_ref(a), cast_ref(b));
        let c = MatMut {
            ptr: c.ptr as *mut f32,
            rs: c.rs,
            cs: c.cs,
        };
        sgemm(d, f(alpha), a, b, f(beta), c, threads);
    }
    true
}

#[cfg(target_arch = "x86_64")]
fn cast_ref<T>(m: MatRef<T>) -> MatRef<f32> {
    MatRef {
        ptr: m.ptr as *const f32,
        rs: m.rs,
        cs: m.cs,
    }
}

/// `C = alpha * A * B + beta * C` for `A: m x k`, `B: k x n`, `C: m x n`, on up to
/// `threads` threads of our pool (1: right here, as a task of an outer parallel loop
/// needs), with the tile of the current SIMD level. With `beta == 0` C is only written,
/// so it may start uninitialized.
///
/// # Safety
/// `available()` is true. A and B are readable and C writable at every `(i, j)` inside
/// their shapes through their strides; C overlaps neither A nor B, and two different
/// `(i, j)` of C are different elements (no zero or aliasing strides in C).
#[cfg(target_arch = "x86_64")]
pub unsafe fn sgemm(
    d: Dims,
    alpha: f32,
    a: MatRef<f32>,
    b: MatRef<f32>,
    beta: f32,
    c: MatMut<f32>,
    threads: usize,
) {
    match tile() {
        Some(Tile::Avx512) => sgemm_with::<isa::Avx512>(d, alpha, a, b, beta, c, threads),
        Some(Tile::Avx2) => sgemm_with::<isa::Avx2>(d, alpha, a, b, beta, c, threads),
        None => debug_assert!(false, "sgemm called on a CPU without AVX2"),
    }
}

/// `sgemm` with the tile `I`, whatever the SIMD level.
///
/// # Safety
/// As `sgemm`, with the CPU features of `I` in place of `available()`.
#[cfg(target_arch = "x86_64")]
unsafe fn sgemm_with<I: isa::Isa>(
    d: Dims,
    alpha: f32,
    a: MatRef<f32>,
    b: MatRef<f32>,
    beta: f32,
    c: MatMut<f32>,
    threads: usize,
) {
    if d.m == 0 || d.n == 0 {
        return;
    }
    if c.cs != 1 && c.rs == 1 {
        // Column-major C: compute C^T = B^T A^T, whose rows are contiguous.
        let t = |x: MatRef<f32>| MatRef {
            ptr: x.ptr,
            rs: x.cs,
            cs: x.rs,
        };
        let ct = MatMut {
            ptr: c.ptr,
            rs: c.cs,
            cs: c.rs,
        };
        let dt = Dims {
            m: d.n,
            n: d.m,
            k: d.k,
        };
        return sgemm_with::<I>(dt, alpha, t(b), t(a), beta, ct, threads);
    }
    if d.k == 0 {
        return scale(d, beta, c);
    }
    let p = block::Problem {
        k: d.k,
        a: pack::Strided {
            ptr: a.ptr,
            rs: a.rs,
            cs: a.cs,
        },
        b: pack::Strided {
            ptr: b.ptr,
            rs: b.rs,
            cs: b.cs,
        },
        c: c.ptr,
        rsc: c.rs,
        csc: c.cs,
        alpha,
        beta,
    };
    parallel::run::<I>(d, &p, threads);
}

/// `C = beta * C` (an empty inner dimension); `beta == 0` writes zeros without reading.
///
/// # Safety
/// As `sgemm`.
#[cfg(target_arch = "x86_64")]
unsafe fn scale(d: Dims, beta: f32, c: MatMut<f32>) {
    for i in 0..d.m {
        for j in 0..d.n {
            let p = c.ptr.offset(i as isize * c.rs + j as isize * c.cs);
            *p = if beta == 0.0 { 0.0 } else { beta * *p };
        }
    }
}

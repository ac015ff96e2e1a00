//! Element loops that go parallel (rayon) only above a size where threads pay for themselves.

use crate::cpu::simd::{self, Kernel};

/// Below this many elements a loop stays on the calling thread: waking the pool costs
/// about as much as 64K cheap element operations on one core.
pub const PAR_THRESHOLD: usize = 1 << 16;

/// Whether a loop over `n` elements should go to the thread pool (never with one thread:
/// the hop to a pool thread would only add latency).
#[inline]
pub fn worth(n: usize) -> bool {
    n >= PAR_THRESHOLD && crate::cpu::thread_pool::num_threads() > 1
}
/// Elements per parallel task of the element loops.
pub(crate) const CHUNK: usize = 1 << 13;
/// Elements per unrolled step of the element loops (four AVX-512 vectors of f32).
const BLOCK: usize = 64;

/// One input of an elementwise loop: a buffer of the output's length, or one broadcast value.
#[derive(Copy, Clone)]
pub enum Src<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

impl<T: Copy> Src<'_, T> {
    #[inline(always)]
    fn at(&self, i: usize) -> T {
        match self {
            Src::Slice(s) => s[i],
            Src::Scalar(v) => *v,
        }
    }
    fn sub(&self, start: usize, len: usize) -> Self {
        match self {
            Src::Slice(s) => Src::Slice(&s[start..start + len]),
            Src::Scalar(v) => Src::Scalar(*v),
        }
    }
}

/// An element function for `map`. Closures qualify; heavy functions (GELU, tanh, ...) are
/// zero-sized types whose `apply` is `#[inline(always)]`: LLVM inlines a closure or a function
/// item into the vector loop only when it finds it small, and left them as scalar calls.
pub trait ElemFn<A, O>: Sync {
    fn apply(&self, a: A) -> O;
}

impl<A, O, F: Fn(A) -> O + Sync> ElemFn<A, O> for F {
    #[inline(always)]
    fn apply(&self, a: A) -> O {
        self(a)
    }
}

/// The two-input form of [`ElemFn`], for `zip`.
pub trait ElemFn2<A, B, O>: Sync {
    fn apply2(&self, a: A, b: B) -> O;
}

impl<A, B, O, F: Fn(A, B) -> O + Sync> ElemFn2<A, B, O> for F {
    #[inline(always)]
    fn apply2(&self, a: A, b: B) -> O {
        self(a, b)
    }
}

struct MapKernel<'a, A, O, F> {
    a: &'a [A],
    out: &'a mut [O],
    f: &'a F,
}

impl<A: Copy, O, F: ElemFn<A, O>> Kernel for MapKernel<'_, A, O, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        map_blocked(self.a, self.out, |a| self.f.apply(a))
    }
}

/// `out[i] = f(a[i])` in blocks of four vectors: the compiler interleaves their independent
/// chains, where a one-vector loop of a long polynomial (exp, GELU) waits on each step's latency.
#[inline(always)]
pub fn map_blocked<A: Copy, O>(a: &[A], out: &mut [O], f: impl Fn(A) -> O) {
    let mut out = out.chunks_exact_mut(BLOCK);
    let mut a = a.chunks_exact(BLOCK);
    for (ob, ab) in (&mut out).zip(&mut a) {
        for i in 0..BLOCK {
            ob[i] = f(ab[i]);
        }
    }
    for (o, &a) in out.into_remainder().iter_mut().zip(a.remainder()) {
        *o = f(a);
    }
}

#[inline(always)]
fn map_serial<A: Copy, O>(a: &[A], out: &mut [O], f: &impl ElemFn<A, O>) {
    simd::run(MapKernel { a, out, f })
}

/// `out[i] = f(a[i])`.
pub fn map<A: Copy + Sync, O: Send>(a: &[A], out: &mut [O], f: impl Fn(A) -> O + Sync) {
    map_op(a, out, f)
}

/// `map` with an [`ElemFn`] (a zero-sized op whose body is always inlined).
pub fn map_op<A: Copy + Sync, O: Send>(a: &[A], out: &mut [O], f: impl ElemFn<A, O>) {
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |i, o| {
            map_serial(&a[i * CHUNK..i * CHUNK + o.len()], o, &f)
        });
    } else {
        map_serial(a, out, &f);
    }
}

/// A pointer that may cross threads: the tasks given it write disjoint ranges.
pub(crate) struct SharedOut<O>(*mut O);
unsafe impl<O: Send> Sync for SharedOut<O> {}
impl<O> SharedOut<O> {
    pub(crate) fn new(ptr: *mut O) -> Self {
        SharedOut(ptr)
    }
    pub(crate) fn at(&self, i: usize) -> *mut O {
        self.0.wrapping_add(i)
    }
}

/// Runs `f(i, chunk i of out)` for every chunk of `chunk` elements, claimed by the calling
/// thread (from the start) and the pool's threads as they come (`for_each_claimed`): the
/// caller does not sleep while pool threads wake up, which costs more than a 1M-element add.
pub fn chunks_claimed<O: Send>(out: &mut [O], chunk: usize, f: impl Fn(usize, &mut [O]) + Sync) {
    let n = out.len();
    let ptr = SharedOut(out.as_mut_ptr());
    let helpers = crate::cpu::thread_pool::num_threads().saturating_sub(1);
    crate::cpu::thread_pool::for_each_claimed(n.div_ceil(chunk), helpers, |i| {
        let start = i * chunk;
        let len = chunk.min(n - start);
        // SAFETY: chunk i is [start, start + len) of `out`, disjoint from every other task's,
        // and `out` stays borrowed until all tasks have finished.
        let o = unsafe { std::slice::from_raw_parts_mut(ptr.at(start), len) };
        f(i, o)
    });
}

struct ZipKernel<'a, A, B, O, F> {
    a: Src<'a, A>,
    b: Src<'a, B>,
    out: &'a mut [O],
    f: &'a F,
}

impl<A: Copy, B: Copy, O, F: ElemFn2<A, B, O>> Kernel for ZipKernel<'_, A, B, O, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        zip_arms(self.a, self.b, self.out, self.f)
    }
}

#[inline(always)]
fn zip_serial<A: Copy, B: Copy, O>(a: Src<A>, b: Src<B>, out: &mut [O], f: &impl ElemFn2<A, B, O>) {
    simd::run(ZipKernel { a, b, out, f })
}

#[inline(always)]
fn zip_arms<A: Copy, B: Copy, O>(a: Src<A>, b: Src<B>, out: &mut [O], f: &impl ElemFn2<A, B, O>) {
    // Specialized arms let the compiler vectorize the common slice/slice and slice/scalar cases.
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f.apply2(x, y);
            }
        }
        (Src::Slice(a), Src::Scalar(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f.apply2(x, y);
            }
        }
        (Src::Scalar(x), Src::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f.apply2(x, y);
            }
        }
        (a, b) => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = f.apply2(a.at(i), b.at(i));
            }
        }
    }
}

/// `out[i] = f(a[i], b[i])` with either side possibly a broadcast scalar.
pub fn zip<A: Copy + Sync, B: Copy + Sync, O: Send>(
    a: Src<A>,
    b: Src<B>,
    out: &mut [O],
    f: impl Fn(A, B) -> O + Sync,
) {
    zip_op(a, b, out, f)
}

/// `zip` with an [`ElemFn2`] (a zero-sized op whose body is always inlined).
pub fn zip_op<A: Copy + Sync, B: Copy + Sync, O: Send>(
    a: Src<A>,
    b: Src<B>,
    out: &mut [O],
    f: impl ElemFn2<A, B, O>,
) {
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |c, o| {
            let start = c * CHUNK;
            zip_serial(a.sub(start, o.len()), b.sub(start, o.len()), o, &f);
        });
    } else {
        zip_serial(a, b, out, &f);
    }
}

struct InPlaceKernel<'a, T, B, F> {
    out: &'a mut [T],
    b: Src<'a, B>,
    f: &'a F,
}

impl<T: Copy, B: Copy, F: ElemFn2<T, B, T>> Kernel for InPlaceKernel<'_, T, B, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        match self.b {
            Src::Slice(b) => {
                for (o, &y) in self.out.iter_mut().zip(b) {
                    *o = self.f.apply2(*o, y);
                }
            }
            Src::Scalar(y) => {
                for o in self.out.iter_mut() {
                    *o = self.f.apply2(*o, y);
                }
            }
        }
    }
}

/// `out[i] = f(out[i], b[i])`: an in-place binary op, one pass over the destination.
pub fn zip_in_place<T: Copy + Send, B: Copy + Sync>(
    out: &mut [T],
    b: Src<B>,
    f: impl Fn(T, B) -> T + Sync,
) {
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |c, o| {
            let b = b.sub(c * CHUNK, o.len());
            simd::run(InPlaceKernel { out: o, b, f: &f })
        });
    } else {
        simd::run(InPlaceKernel { out, b, f: &f })
    }
}

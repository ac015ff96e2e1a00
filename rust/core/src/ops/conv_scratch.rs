//! Scratch memory for the convolution kernels: each thread keeps one buffer between calls,
//! so a convolution neither allocates nor page-faults its column workspace every time.

use crate::Element;
use std::cell::RefCell;

/// The element types the fused convolution kernels take: floats with native arithmetic,
/// for which every bit pattern is a value (so reused scratch needs no clearing).
pub(crate) trait ConvFloat:
    Element + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
}
impl ConvFloat for f32 {}
impl ConvFloat for f64 {}

/// A 64-byte aligned chunk of scratch.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// Largest buffer a thread keeps after a call (bytes); bigger ones are freed at once.
const KEEP_BYTES: usize = 16 << 20;

thread_local! {
    static SCRATCH: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on a scratch slice of `len` elements whose contents are unspecified (left over
/// from an earlier call): `f` must write each element before reading it.
pub(crate) fn with_scratch<T: ConvFloat, R>(len: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    let bytes = len * std::mem::size_of::<T>();
    let lines = bytes.div_ceil(64);
    let run = |buf: &mut Vec<Line>| {
        if buf.len() < lines {
            buf.resize(lines, Line([0; 8]));
        }
        // SAFETY: the buffer holds at least `len` T's, is 64-byte aligned, initialized, and
        // T (f32 or f64) is valid for every bit pattern.
        f(unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr() as *mut T, len) })
    };
    if bytes > KEEP_BYTES {
        return run(&mut Vec::new());
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => run(&mut buf),
        // Only reachable if a convolution started inside another on this thread.
        Err(_) => run(&mut Vec::new()),
    })
}

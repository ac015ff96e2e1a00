//! A packed once for all the threads of a product split by columns. Each MR-row panel of
//! each k block is packed by the first thread that needs it; the others use that copy,
//! waiting only while it is being packed, never for a thread that has not started.

use super::kernel::MR;
use super::pack::{pack_a, Strided};
use std::sync::atomic::{AtomicU8, Ordering};

const FREE: u8 = 0;
const PACKING: u8 = 1;
const READY: u8 = 2;

pub struct SharedA {
    a: Strided,
    m: usize,
    kc_max: usize,
    panels: usize,
    buf: *mut f32,
    state: Vec<AtomicU8>,
}

// SAFETY: A is only read; each panel of `buf` is written by the one thread that won its
// claim, and read by others only after its READY store (release/acquire).
unsafe impl Send for SharedA {}
unsafe impl Sync for SharedA {}

impl SharedA {
    /// Floats of packed storage for an `m x k` A.
    pub fn floats(m: usize, k: usize) -> usize {
        m.div_ceil(MR) * MR * k
    }

    /// # Safety
    /// `a` is readable over `m x k`; `buf` is writable for `floats(m, k)` floats and is
    /// used by nothing else while the SharedA is.
    pub unsafe fn new(a: Strided, m: usize, k: usize, kc_max: usize, buf: *mut f32) -> Self {
        let panels = m.div_ceil(MR);
        let state = (0..k.div_ceil(kc_max) * panels)
            .map(|_| AtomicU8::new(FREE))
            .collect();
        SharedA {
            a,
            m,
            kc_max,
            panels,
            buf,
            state,
        }
    }

    /// Panel `q` (rows `q * MR..`) of the k block that starts at step `pc` and is `kc`
    /// steps deep, packed (by this thread if no other has started it).
    ///
    /// # Safety
    /// AVX-512F; `pc` is a multiple of `kc_max` below `k`, `kc` that block's depth, and
    /// `q < ceil(m / MR)`.
    pub unsafe fn panel(&self, pc: usize, kc: usize, q: usize) -> *const f32 {
        let dst = self.buf.add(pc * self.panels * MR + q * kc * MR);
        let state = &self.state[pc / self.kc_max * self.panels + q];
        if state.load(Ordering::Acquire) == READY {
            return dst;
        }
        if state
            .compare_exchange(FREE, PACKING, Ordering::Acquire, Ordering::Acquire)
            .is_ok()
        {
            let src = Strided {
                ptr: self
                    .a
                    .ptr
                    .offset((q * MR) as isize * self.a.rs + pc as isize * self.a.cs),
                ..self.a
            };
            pack_a((self.m - q * MR).min(MR), kc, src, dst);
            state.store(READY, Ordering::Release);
        } else {
            // Another thread is packing it right now (a few microseconds at most).
            let mut spins = 0u32;
            while state.load(Ordering::Acquire) != READY {
                spins += 1;
                if spins < 10_000 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        dst
    }
}

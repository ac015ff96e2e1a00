//! Float32 transcendental and activation kernels in explicit vector code: each function is
//! written once over a lanes trait and compiled for AVX-512 and for AVX2 + FMA, and the level
//! in use (`cpu::simd::level`, lowered by `FERROTORCH_SIMD`) picks one at run time. The
//! portable forms in `cpu::math` remain for other CPUs (and are what f64 uses): without
//! explicit code LLVM neither fuses multiply-adds nor keeps these long bodies in registers.

#[cfg(target_arch = "x86_64")]
mod funcs;
#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;

use crate::cpu::parallel::{chunks_claimed, worth, CHUNK};
use crate::cpu::simd::{level, Level};

/// `out = f(a)` functions.
#[derive(Clone, Copy, Debug)]
pub enum Unary {
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Silu,
    Gelu,
    GeluTanh,
    /// exp(x - m): softmax's exponentials.
    ExpMinus(f32),
}

/// `out = g * f'(x)` gradient functions, from the op's input x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grad {
    Silu,
    Gelu,
    GeluTanh,
}

/// `out = op(a)` in vector code, parallel above the usual size; false (nothing done) when the
/// level is the baseline and the caller should run the portable loop.
pub fn map(op: Unary, a: &[f32], out: &mut [f32]) -> bool {
    let Some(lv) = vector_level() else {
        return false;
    };
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |i, o| {
            imp::map(lv, op, &a[i * CHUNK..i * CHUNK + o.len()], o)
        });
    } else {
        imp::map(lv, op, a, out);
    }
    true
}

/// `out = g * f'(x)` in vector code (as `map`).
pub fn grad(op: Grad, g: &[f32], x: &[f32], out: &mut [f32]) -> bool {
    let Some(lv) = vector_level() else {
        return false;
    };
    if worth(out.len()) {
        chunks_claimed(out, CHUNK, |i, o| {
            let r = i * CHUNK..i * CHUNK + o.len();
            imp::grad(lv, op, &g[r.clone()], &x[r], o)
        });
    } else {
        imp::grad(lv, op, g, x, out);
    }
    true
}

/// `y = exp(x - m)` on this thread: vector code where the CPU has it, else the portable loop.
#[inline(always)]
pub fn exp_minus_f32(x: &[f32], m: f32, y: &mut [f32]) {
    match vector_level() {
        Some(lv) => imp::map(lv, Unary::ExpMinus(m), x, y),
        None => exp_minus_portable(x, m, y),
    }
}

/// `y = exp(x - m)` in the portable vector loop.
#[inline(always)]
pub fn exp_minus_portable<F: crate::cpu::math::Float>(x: &[F], m: F, y: &mut [F]) {
    crate::cpu::parallel::map_blocked(x, y, |v| (v - m).exp())
}

fn vector_level() -> Option<Level> {
    match level() {
        Level::Baseline => None,
        l => Some(l),
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::*;
    pub fn map(_: Level, _: Unary, _: &[f32], _: &mut [f32]) {
        unreachable!("vector levels are only detected on x86_64")
    }
    pub fn grad(_: Level, _: Grad, _: &[f32], _: &[f32], _: &mut [f32]) {
        unreachable!("vector levels are only detected on x86_64")
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::funcs::*;
    use super::lanes::{F32Vec, F32x16, F32x8};
    use super::{Grad, Level, Unary};

    /// A one-input lane function; `apply` is always inlined into the loop of each level.
    trait LaneFn {
        fn apply<V: F32Vec>(&self, x: V) -> V;
    }
    /// A two-input lane function (gradient, input).
    trait LaneFn2 {
        fn apply2<V: F32Vec>(&self, g: V, x: V) -> V;
    }

    macro_rules! lane_fn {
        ($name:ident, $f:ident) => {
            struct $name;
            impl LaneFn for $name {
                #[inline(always)]
                fn apply<V: F32Vec>(&self, x: V) -> V {
                    $f(x)
                }
            }
        };
    }
    macro_rules! lane_fn2 {
        ($name:ident, $f:ident) => {
            struct $name;
            impl LaneFn2 for $name {
                #[inline(always)]
                fn apply2<V: F32Vec>(&self, g: V, x: V) -> V {
                    $f(g, x)
                }
            }
        };
    }
    lane_fn!(ExpFn, exp);
    lane_fn!(LnFn, ln);
    lane_fn!(TanhFn, tanh);
    lane_fn!(SigmoidFn, sigmoid);
    lane_fn!(SiluFn, silu);
    lane_fn!(GeluFn, gelu);
    lane_fn!(GeluTanhFn, gelu_tanh);
    lane_fn2!(SiluGradFn, silu_grad);
    lane_fn2!(GeluGradFn, gelu_grad);
    lane_fn2!(GeluTanhGradFn, gelu_tanh_grad);

    struct ExpMinusFn(f32);
    impl LaneFn for ExpMinusFn {
        #[inline(always)]
        fn apply<V: F32Vec>(&self, x: V) -> V {
            exp(x - V::splat(self.0))
        }
    }

    /// Runs `op` at `lv` (a level this CPU was found to have).
    pub fn map(lv: Level, op: Unary, a: &[f32], out: &mut [f32]) {
        assert!(a.len() >= out.len());
        // SAFETY: the level was detected on this CPU (`simd::level`).
        unsafe {
            match lv {
                Level::Avx512 => map_avx512(op, a, out),
                _ => map_avx2(op, a, out),
            }
        }
    }

    pub fn grad(lv: Level, op: Grad, g: &[f32], x: &[f32], out: &mut [f32]) {
        assert!(g.len() >= out.len() && x.len() >= out.len());
        // SAFETY: as in `map`.
        unsafe {
            match lv {
                Level::Avx512 => grad_avx512(op, g, x, out),
                _ => grad_avx2(op, g, x, out),
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
    unsafe fn map_avx512(op: Unary, a: &[f32], out: &mut [f32]) {
        map_lanes::<F32x16>(op, a, out)
    }
    #[target_feature(enable = "avx2,fma")]
    unsafe fn map_avx2(op: Unary, a: &[f32], out: &mut [f32]) {
        map_lanes::<F32x8>(op, a, out)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
    unsafe fn grad_avx512(op: Grad, g: &[f32], x: &[f32], out: &mut [f32]) {
        grad_lanes::<F32x16>(op, g, x, out)
    }
    #[target_feature(enable = "avx2,fma")]
    unsafe fn grad_avx2(op: Grad, g: &[f32], x: &[f32], out: &mut [f32]) {
        grad_lanes::<F32x8>(op, g, x, out)
    }

    #[inline(always)]
    unsafe fn map_lanes<V: F32Vec>(op: Unary, a: &[f32], out: &mut [f32]) {
        match op {
            Unary::Exp => each::<V>(&ExpFn, a, out),
            Unary::Log => each::<V>(&LnFn, a, out),
            Unary::Tanh => each::<V>(&TanhFn, a, out),
            Unary::Sigmoid => each::<V>(&SigmoidFn, a, out),
            Unary::Silu => each::<V>(&SiluFn, a, out),
            Unary::Gelu => each::<V>(&GeluFn, a, out),
            Unary::GeluTanh => each::<V>(&GeluTanhFn, a, out),
            Unary::ExpMinus(m) => each::<V>(&ExpMinusFn(m), a, out),
        }
    }

    #[inline(always)]
    unsafe fn grad_lanes<V: F32Vec>(op: Grad, g: &[f32], x: &[f32], out: &mut [f32]) {
        match op {
            Grad::Silu => each2::<V>(&SiluGradFn, g, x, out),
            Grad::Gelu => each2::<V>(&GeluGradFn, g, x, out),
            Grad::GeluTanh => each2::<V>(&GeluTanhGradFn, g, x, out),
        }
    }

    /// Widest lane count, for the tail buffers.
    const MAX_LANES: usize = 16;

    /// Two vectors per step (independent chains to overlap), the tail through a lane buffer.
    #[inline(always)]
    unsafe fn each<V: F32Vec>(f: &impl LaneFn, a: &[f32], out: &mut [f32]) {
        let (n, l) = (out.len(), V::LANES);
        let (src, dst) = (a.as_ptr(), out.as_mut_ptr());
        let mut i = 0;
        while i + 2 * l <= n {
            let (x0, x1) = (V::load(src.add(i)), V::load(src.add(i + l)));
            f.apply(x0).store(dst.add(i));
            f.apply(x1).store(dst.add(i + l));
            i += 2 * l;
        }
        while i < n {
            let k = (n - i).min(l);
            let mut buf = [0f32; MAX_LANES];
            buf[..k].copy_from_slice(&a[i..i + k]);
            f.apply(V::load(buf.as_ptr())).store(buf.as_mut_ptr());
            out[i..i + k].copy_from_slice(&buf[..k]);
            i += k;
        }
    }

    #[inline(always)]
    unsafe fn each2<V: F32Vec>(f: &impl LaneFn2, g: &[f32], x: &[f32], out: &mut [f32]) {
        let (n, l) = (out.len(), V::LANES);
        let (gp, xp, dst) = (g.as_ptr(), x.as_ptr(), out.as_mut_ptr());
        let mut i = 0;
        while i + 2 * l <= n {
            let y0 = f.apply2(V::load(gp.add(i)), V::load(xp.add(i)));
            let y1 = f.apply2(V::load(gp.add(i + l)), V::load(xp.add(i + l)));
            y0.store(dst.add(i));
            y1.store(dst.add(i + l));
            i += 2 * l;
        }
        while i < n {
            let k = (n - i).min(l);
            let (mut gb, mut xb) = ([0f32; MAX_LANES], [0f32; MAX_LANES]);
            gb[..k].copy_from_slice(&g[i..i + k]);
            xb[..k].copy_from_slice(&x[i..i + k]);
            f.apply2(V::load(gb.as_ptr()), V::load(xb.as_ptr()))
                .store(gb.as_mut_ptr());
            out[i..i + k].copy_from_slice(&gb[..k]);
            i += k;
        }
    }
}

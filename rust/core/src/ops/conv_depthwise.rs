//! Depthwise conv2d (each group reads one input channel) by direct loops over the kernel's
//! taps. Through the column kernels each group was a [og x kh*kw] by [kh*kw x L] product,
//! far too thin for a GEMM (3-4x PyTorch's time on a 3x3 depthwise layer).

use crate::cpu::simd::{self, Kernel};
use crate::cpu::thread_pool;
use crate::ops::conv_depthwise_flat::Flat;
use crate::ops::conv_depthwise_rows as rows;
use crate::ops::conv_kernels::{row_sum, Geometry, Grads};
use crate::ops::conv_scratch::{with_scratch, ConvFloat};
use rayon::prelude::*;

/// Whether the direct depthwise kernels take this convolution (several groups of one input
/// channel each; a single-channel convolution keeps the column path and its scratch check).
pub(crate) fn is_depthwise(g: &Geometry) -> bool {
    g.groups > 1 && g.groups == g.c
}

/// Planes per parallel task: about 8K elements each, so small planes do not cost a task each.
fn planes_per_task(plane: usize) -> usize {
    (8192 / plane.max(1)).max(1)
}

/// Runs `f` on this thread's scratch for the flat layout (empty for the row loops).
fn with_plane_scratch<T: ConvFloat, R>(flat: &Option<Flat>, f: impl FnOnce(&mut [T]) -> R) -> R {
    with_scratch(flat.as_ref().map_or(0, Flat::scratch_len), f)
}

/// Output planes `first..` (plane `p` is image `p / O`, channel `p % O`) into `out`. A
/// `Kernel`, so the loops are compiled for each instruction set.
struct ForwardPlanes<'a, T> {
    g: &'a Geometry,
    x: &'a [T],
    w: &'a [T],
    bias: Option<&'a [T]>,
    flat: &'a Option<Flat>,
    first: usize,
    out: &'a mut [T],
    scratch: &'a mut [T],
}

impl<T: ConvFloat> Kernel for ForwardPlanes<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let g = self.g;
        let (plane, l, kk, og) = (g.hw[0] * g.hw[1], g.l(), g.kk(), g.og());
        for (j, out_plane) in self.out.chunks_mut(l).enumerate() {
            let p = self.first + j;
            let (n, o) = (p / g.o, p % g.o);
            let c = o / og;
            let b = self.bias.map_or(T::default(), |b| b[o]);
            let xp = &self.x[(n * g.c + c) * plane..(n * g.c + c + 1) * plane];
            let wo = &self.w[o * kk..(o + 1) * kk];
            match self.flat {
                Some(f) => f.forward_plane(g, xp, wo, b, out_plane, self.scratch),
                None => rows::forward_plane(g, xp, wo, b, out_plane),
            }
        }
    }
}

/// Depthwise forward of contiguous `x` [N, C, H, W], `w` [O, 1, kh, kw] into `out`
/// [N, O, oh, ow] (every element written).
pub(crate) fn forward<T: ConvFloat>(
    g: &Geometry,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    out: &mut [T],
) {
    let l = g.l();
    let flat = Flat::new(g);
    let per_task = planes_per_task(l);
    let task = |(t, chunk): (usize, &mut [T])| {
        with_plane_scratch(&flat, |scratch| {
            simd::run(ForwardPlanes {
                g,
                x,
                w,
                bias,
                flat: &flat,
                first: t * per_task,
                out: chunk,
                scratch,
            })
        })
    };
    thread_pool::run_if(out.len() > per_task * l, || {
        out.par_chunks_mut(per_task * l).enumerate().for_each(task)
    });
}

/// Input-gradient planes `first..` (plane `p` is image `p / C`, channel `p % C`), each
/// gathered from its group's `og` output channels.
struct InputGradPlanes<'a, T> {
    g: &'a Geometry,
    w: &'a [T],
    gout: &'a [T],
    flat: &'a Option<Flat>,
    first: usize,
    gx: &'a mut [T],
    scratch: &'a mut [T],
}

impl<T: ConvFloat> Kernel for InputGradPlanes<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let g = self.g;
        let (plane, l, kk, og) = (g.hw[0] * g.hw[1], g.l(), g.kk(), g.og());
        let (w, gout) = (self.w, self.gout);
        for (j, gx_plane) in self.gx.chunks_mut(plane).enumerate() {
            let p = self.first + j;
            let (n, c) = (p / g.c, p % g.c);
            let channels = c * og..(c + 1) * og;
            let go = |o: usize| &gout[(n * g.o + o) * l..(n * g.o + o + 1) * l];
            match self.flat {
                Some(f) => {
                    let chans = channels.map(|o| (go(o), &w[o * kk..(o + 1) * kk]));
                    f.input_grad_plane(g, chans, gx_plane, self.scratch);
                }
                None => {
                    gx_plane.fill(T::default());
                    for o in channels {
                        rows::input_grad_plane(g, go(o), &w[o * kk..(o + 1) * kk], gx_plane);
                    }
                }
            }
        }
    }
}

/// Input gradient [N, C, H, W], split by input plane.
fn input_grad<T: ConvFloat>(g: &Geometry, w: &[T], gout: &[T], gx: &mut [T]) {
    if gx.is_empty() {
        return;
    }
    let plane = g.hw[0] * g.hw[1];
    let flat = Flat::new(g);
    let per_task = planes_per_task(plane);
    let task = |(t, chunk): (usize, &mut [T])| {
        with_plane_scratch(&flat, |scratch| {
            simd::run(InputGradPlanes {
                g,
                w,
                gout,
                flat: &flat,
                first: t * per_task,
                gx: chunk,
                scratch,
            })
        })
    };
    thread_pool::run_if(gx.len() > per_task * plane, || {
        gx.par_chunks_mut(per_task * plane)
            .enumerate()
            .for_each(task)
    });
}

/// One output channel's weight gradients (its kh*kw taps, if `want_w`) and bias gradient,
/// summed over the batch in order.
struct ChannelGrads<'a, T> {
    g: &'a Geometry,
    x: &'a [T],
    gout: &'a [T],
    o: usize,
    want_w: bool,
    flat: &'a Option<Flat>,
    scratch: &'a mut [T],
}

impl<T: ConvFloat> Kernel for ChannelGrads<'_, T> {
    type Output = (Vec<T>, T);
    #[inline(always)]
    fn run(self) -> (Vec<T>, T) {
        let g = self.g;
        let (plane, l, kk, ow, o) = (g.hw[0] * g.hw[1], g.l(), g.kk(), g.ohw[1], self.o);
        // Running sums per tap: 16 lanes in the flat layout, one per output column otherwise.
        let per_tap = if self.flat.is_some() { 16 } else { ow };
        let c = o / g.og();
        let mut acc = vec![T::default(); if self.want_w { kk * per_tap } else { 0 }];
        let mut b = T::default();
        for n in 0..g.n {
            let go = &self.gout[(n * g.o + o) * l..(n * g.o + o + 1) * l];
            b = b + row_sum(go);
            if self.want_w {
                let xp = &self.x[(n * g.c + c) * plane..(n * g.c + c + 1) * plane];
                match self.flat {
                    Some(f) => f.weight_grad_plane(g, xp, go, &mut acc, self.scratch),
                    None => rows::weight_grad_plane(g, xp, go, &mut acc),
                }
            }
        }
        (acc.chunks(per_tap.max(1)).map(row_sum).collect(), b)
    }
}

/// Depthwise gradients into `grads` (each overwritten). The input gradient is split by
/// input plane, the weight and bias gradients by output channel, each summed over the
/// batch in order by one task, so results do not depend on the thread count.
pub(crate) fn backward<T: ConvFloat>(g: &Geometry, x: &[T], w: &[T], gout: &[T], grads: Grads<T>) {
    let kk = g.kk();
    let Grads {
        x: gx,
        w: gw,
        bias: gb,
    } = grads;
    if let Some(gx) = gx {
        input_grad(g, w, gout, gx);
    }
    if gw.is_none() && gb.is_none() {
        return;
    }
    let (want_w, flat) = (gw.is_some(), Flat::new(g));
    let sums: Vec<(Vec<T>, T)> = thread_pool::run_if(g.o > 1, || {
        (0..g.o)
            .into_par_iter()
            .map(|o| {
                with_plane_scratch(&flat, |scratch| {
                    simd::run(ChannelGrads {
                        g,
                        x,
                        gout,
                        o,
                        want_w,
                        flat: &flat,
                        scratch,
                    })
                })
            })
            .collect()
    });
    if let Some(gw) = gw {
        for (o, (taps, _)) in sums.iter().enumerate() {
            gw[o * kk..(o + 1) * kk].copy_from_slice(&taps[..kk]);
        }
    }
    if let Some(gb) = gb {
        for (o, (_, b)) in sums.iter().enumerate() {
            gb[o] = *b;
        }
    }
}

//! Stride-1 depthwise planes in a flat layout. The input plane is copied into a
//! zero-bordered plane `hp x wp` and the output is computed on rows of the same width `wp`
//! (the last `wp - ow` columns of each row are dropped), so that every kernel tap is one
//! fixed offset into the padded plane: a block of outputs sums all its taps in registers and
//! is stored once, and no 28-wide row leaves a vector tail per tap.

use crate::ops::conv_kernels::Geometry;
use crate::ops::conv_scratch::ConvFloat;

/// Outputs per register block (two AVX-512 vectors of f32).
const BLOCK: usize = 32;

/// Copies a short row (`src` onto `dst`, equal lengths) in 16-element array moves, the last
/// one overlapping: a `memcpy` call per 28-element row cost more than the convolution's
/// multiply-adds.
#[inline(always)]
fn copy_row<T: ConvFloat>(dst: &mut [T], src: &[T]) {
    match dst.len() {
        // Short rows (14- and 7-wide planes) as two overlapping moves, not element by element.
        n @ 8..=15 => copy_overlapping::<T, 8>(dst, src, n),
        n @ 4..=7 => copy_overlapping::<T, 4>(dst, src, n),
        n if n < 4 => dst.copy_from_slice(&src[..n]),
        n => {
            let mut i = 0;
            while i + 16 <= n {
                let s: [T; 16] = src[i..i + 16].try_into().unwrap();
                dst[i..i + 16].copy_from_slice(&s);
                i += 16;
            }
            if i < n {
                let s: [T; 16] = src[n - 16..n].try_into().unwrap();
                dst[n - 16..n].copy_from_slice(&s);
            }
        }
    }
}

/// Copies `n` elements (`K <= n <= 2K`) as a K-element move from each end.
#[inline(always)]
fn copy_overlapping<T: ConvFloat, const K: usize>(dst: &mut [T], src: &[T], n: usize) {
    let (a, b): ([T; K], [T; K]) = (
        src[..K].try_into().unwrap(),
        src[n - K..n].try_into().unwrap(),
    );
    dst[..K].copy_from_slice(&a);
    dst[n - K..n].copy_from_slice(&b);
}

pub(crate) struct Flat {
    hp: usize,
    wp: usize,
    /// Offset in the padded plane of each tap, row-major: wide output `q` reads `q + offset`.
    offsets: Vec<usize>,
    /// `max_off - offsets[t]`: where the input gradient's taps read the gathered gradient.
    back: Vec<usize>,
    /// Length of the wide output: `(oh - 1) * wp + ow`.
    lq: usize,
    /// Largest tap offset: that of the window's last tap.
    max_off: usize,
}

impl Flat {
    pub(crate) fn new(g: &Geometry) -> Option<Flat> {
        if g.win.stride != [1, 1] {
            return None;
        }
        let (hp, wp) = (
            g.hw[0] + 2 * g.win.padding[0],
            g.hw[1] + 2 * g.win.padding[1],
        );
        let [kh, kw] = g.win.kernel;
        let offsets: Vec<usize> = (0..kh * kw)
            .map(|t| (t / kw) * g.win.dilation[0] * wp + (t % kw) * g.win.dilation[1])
            .collect();
        let max_off = offsets.last().copied().unwrap_or(0);
        let back = offsets.iter().map(|&o| max_off - o).collect();
        Some(Flat {
            hp,
            wp,
            offsets,
            back,
            lq: (g.ohw[0] - 1) * wp + g.ohw[1],
            max_off,
        })
    }

    /// The offsets of a 3x3 window (only called when the weights are 3x3).
    #[inline(always)]
    fn offsets9(&self) -> [usize; 9] {
        self.offsets.as_slice().try_into().unwrap()
    }

    /// The padded plane plus a zero block past its end (the last block reads up to there).
    pub(crate) fn padded_len(&self) -> usize {
        self.hp * self.wp + BLOCK
    }

    /// The wide output in whole blocks.
    fn wide_len(&self) -> usize {
        self.lq.div_ceil(BLOCK) * BLOCK
    }

    /// A wide output gradient with `max_off` zeros before it and the padded length after.
    fn gathered_len(&self) -> usize {
        self.max_off + self.padded_len()
    }

    /// Scratch each plane needs: a padded plane, then a wide output or a gathered gradient.
    pub(crate) fn scratch_len(&self) -> usize {
        self.padded_len() + self.wide_len().max(self.gathered_len())
    }

    /// Copies `plane` [h, w] into `padded` with zero borders (and a zero tail).
    #[inline(always)]
    fn pad<T: ConvFloat>(&self, g: &Geometry, plane: &[T], padded: &mut [T]) {
        let [ph, pw] = g.win.padding;
        padded.fill(T::default());
        for (i, row) in plane.chunks_exact(g.hw[1].max(1)).enumerate() {
            let at = (i + ph) * self.wp + pw;
            copy_row(&mut padded[at..at + g.hw[1]], row);
        }
    }

    /// Copies the padded plane's interior (without the zero borders) into `plane` [h, w].
    #[inline(always)]
    pub(crate) fn interior<T: ConvFloat>(&self, g: &Geometry, padded: &[T], plane: &mut [T]) {
        let [ph, pw] = g.win.padding;
        for (i, row) in plane.chunks_exact_mut(g.hw[1].max(1)).enumerate() {
            let at = (i + ph) * self.wp + pw;
            copy_row(row, &padded[at..at + g.hw[1]]);
        }
    }

    /// Copies `plane` [oh, ow] into the wide layout at `wide`, every other element zero.
    #[inline(always)]
    fn widen<T: ConvFloat>(&self, g: &Geometry, plane: &[T], wide: &mut [T]) {
        let ow = g.ohw[1];
        wide.fill(T::default());
        for (i, row) in plane.chunks_exact(ow).enumerate() {
            copy_row(&mut wide[i * self.wp..i * self.wp + ow], row);
        }
    }

    /// `out` (one output plane) = bias + the sum over taps of `w[tap] * shifted x`.
    #[inline(always)]
    pub(crate) fn forward_plane<T: ConvFloat>(
        &self,
        g: &Geometry,
        x: &[T],
        w: &[T],
        bias: T,
        out: &mut [T],
        scratch: &mut [T],
    ) {
        let (padded, wide) = scratch.split_at_mut(self.padded_len());
        self.pad(g, x, padded);
        let wide = &mut wide[..self.wide_len()];
        // Every block of outputs reads its window `[q, q + max_off + BLOCK)` at the taps'
        // offsets; the common 3x3 has its taps unrolled.
        let tap = |q: usize| &padded[q..q + self.max_off + BLOCK];
        match <&[T; 9]>::try_from(w) {
            Ok(w9) => tap_blocks(&self.offsets9(), w9, wide, [bias; BLOCK], |q| tap(q), false),
            Err(_) => tap_blocks(&self.offsets, w, wide, [bias; BLOCK], |q| tap(q), false),
        }
        let ow = g.ohw[1];
        for (i, row) in out.chunks_exact_mut(ow).enumerate() {
            copy_row(row, &wide[i * self.wp..i * self.wp + ow]);
        }
    }

    /// The input gradient of one plane from output channels `(gout plane, weights)`: each
    /// padded position gathers `w[tap] * gout` from every tap that reads it.
    #[inline(always)]
    pub(crate) fn input_grad_plane<'a, T: ConvFloat + 'a>(
        &self,
        g: &Geometry,
        channels: impl Iterator<Item = (&'a [T], &'a [T])>,
        gx: &mut [T],
        scratch: &mut [T],
    ) {
        let (gx_padded, gathered) = scratch.split_at_mut(self.padded_len());
        let gathered = &mut gathered[..self.gathered_len()];
        // Only the interior rows of the padded gradient are kept.
        let (r0, rows_len) = (g.win.padding[0] * self.wp, g.hw[0] * self.wp);
        let blocks = rows_len.div_ceil(BLOCK);
        let gx_rows = &mut gx_padded[r0..r0 + blocks * BLOCK];
        for (first, (gout, w)) in channels.enumerate().map(|(i, c)| (i == 0, c)) {
            // gathered[max_off + q] holds wide output gradient q; padded position r gathers
            // tap t's gradient from wide output r - offset(t), at max_off + r - offset(t).
            self.widen(g, gout, &mut gathered[self.max_off..]);
            gathered[..self.max_off].fill(T::default());
            let win = |q: usize| &gathered[r0 + q..r0 + q + self.max_off + BLOCK];
            match <&[T; 9]>::try_from(w) {
                Ok(w9) => {
                    let b9: [usize; 9] = self.back.as_slice().try_into().unwrap();
                    tap_blocks(&b9, w9, gx_rows, [T::default(); BLOCK], win, !first)
                }
                Err(_) => tap_blocks(&self.back, w, gx_rows, [T::default(); BLOCK], win, !first),
            }
        }
        self.interior(g, gx_padded, gx);
    }

    /// Adds each tap's `sum(gout * shifted x)` into its 16 running lanes (`acc`, [kk][16]).
    #[inline(always)]
    pub(crate) fn weight_grad_plane<T: ConvFloat>(
        &self,
        g: &Geometry,
        x: &[T],
        gout: &[T],
        acc: &mut [T],
        scratch: &mut [T],
    ) {
        let (padded, wide) = scratch.split_at_mut(self.padded_len());
        self.pad(g, x, padded);
        let wide = &mut wide[..self.lq];
        self.widen(g, gout, wide);
        for ki in 0..g.win.kernel[0] {
            for kj in 0..g.win.kernel[1] {
                let r = ki * g.win.kernel[1] + kj;
                let off = self.offsets[r];
                let lanes = &mut acc[r * 16..(r + 1) * 16];
                let src = &padded[off..off + self.lq];
                let (gc, xc) = (wide.chunks_exact(16), src.chunks_exact(16));
                let tail = gc
                    .remainder()
                    .iter()
                    .zip(xc.remainder())
                    .fold(T::default(), |a, (&gv, &xv)| a + gv * xv);
                for (gv, xv) in gc.zip(xc) {
                    for i in 0..16 {
                        lanes[i] = lanes[i] + gv[i] * xv[i];
                    }
                }
                lanes[0] = lanes[0] + tail;
            }
        }
    }
}

/// `out` block by block: block `q` (of `BLOCK` outputs) is `init` (or its current values when
/// `accumulate`) plus `w[t] * window(q)[offsets[t]..][..BLOCK]` over the taps `t`, summed in
/// registers and stored once. With array arguments the tap loop unrolls.
#[inline(always)]
fn tap_blocks<'a, T: ConvFloat + 'a, O, W>(
    offsets: &O,
    w: &W,
    out: &mut [T],
    init: [T; BLOCK],
    window: impl Fn(usize) -> &'a [T],
    accumulate: bool,
) where
    O: AsRef<[usize]> + ?Sized,
    W: AsRef<[T]> + ?Sized,
{
    let (offsets, w) = (offsets.as_ref(), w.as_ref());
    for (b, block) in out.chunks_exact_mut(BLOCK).enumerate() {
        let win = window(b * BLOCK);
        let mut acc = init;
        if accumulate {
            acc.copy_from_slice(block);
        }
        for (&off, &wv) in offsets.iter().zip(w) {
            let src: &[T; BLOCK] = win[off..off + BLOCK].try_into().unwrap();
            for i in 0..BLOCK {
                acc[i] = acc[i] + wv * src[i];
            }
        }
        block.copy_from_slice(&acc);
    }
}

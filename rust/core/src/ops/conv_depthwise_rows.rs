//! The general depthwise plane loops (any stride): per kernel tap, one scaled, shifted run
//! of each output row. Stride 1 takes the flat layout of `conv_depthwise_flat` instead.

use crate::ops::conv_kernels::Geometry;
use crate::ops::conv_scratch::ConvFloat;
use crate::ops::unfold::valid_range;

/// Tap `(ki, kj)` of the window: the output rows and columns whose input lies inside the
/// plane, and where that input is.
struct Tap {
    rows: (usize, usize),
    cols: (usize, usize),
    /// Input row of output row `oi`: `oi * stride + row_off`.
    row_off: isize,
    /// Input column of output column `oj`: `oj * stride + col_off`.
    col_off: isize,
}

impl Tap {
    #[inline(always)]
    fn new(g: &Geometry, ki: usize, kj: usize) -> Tap {
        let w = &g.win;
        Tap {
            rows: valid_range(
                g.ohw[0],
                g.hw[0],
                ki,
                w.stride[0],
                w.dilation[0],
                w.padding[0],
            ),
            cols: valid_range(
                g.ohw[1],
                g.hw[1],
                kj,
                w.stride[1],
                w.dilation[1],
                w.padding[1],
            ),
            row_off: (ki * w.dilation[0]) as isize - w.padding[0] as isize,
            col_off: (kj * w.dilation[1]) as isize - w.padding[1] as isize,
        }
    }

    /// Index, in the input plane, of output row `oi`'s first valid column.
    #[inline(always)]
    fn input_start(&self, g: &Geometry, oi: usize) -> usize {
        let ih = (oi * g.win.stride[0]) as isize + self.row_off;
        let iw = (self.cols.0 * g.win.stride[1]) as isize + self.col_off;
        ih as usize * g.hw[1] + iw as usize
    }
}

/// Calls `f(tap index, tap, output row)` for every tap and every output row it reaches.
#[inline(always)]
fn each_tap_row(g: &Geometry, mut f: impl FnMut(usize, &Tap, usize)) {
    for ki in 0..g.win.kernel[0] {
        for kj in 0..g.win.kernel[1] {
            let t = Tap::new(g, ki, kj);
            for oi in t.rows.0..t.rows.1 {
                f(ki * g.win.kernel[1] + kj, &t, oi);
            }
        }
    }
}

/// `out` (one output plane) = bias + the sum over taps of `w[tap] * shifted x`.
#[inline(always)]
pub(crate) fn forward_plane<T: ConvFloat>(g: &Geometry, x: &[T], w: &[T], bias: T, out: &mut [T]) {
    let (ow, sw) = (g.ohw[1], g.win.stride[1]);
    out.fill(bias);
    each_tap_row(g, |r, t, oi| {
        let (lo, hi) = t.cols;
        let (orow, start) = (&mut out[oi * ow + lo..oi * ow + hi], t.input_start(g, oi));
        for (j, o) in orow.iter_mut().enumerate() {
            *o = *o + w[r] * x[start + j * sw];
        }
    });
}

/// Adds `w[tap] * gout` (one output-gradient plane) through every tap onto `gx` (one input
/// plane): the transpose of `forward_plane`.
#[inline(always)]
pub(crate) fn input_grad_plane<T: ConvFloat>(g: &Geometry, gout: &[T], w: &[T], gx: &mut [T]) {
    let (ow, sw) = (g.ohw[1], g.win.stride[1]);
    each_tap_row(g, |r, t, oi| {
        let (lo, hi) = t.cols;
        let start = t.input_start(g, oi);
        for (j, &v) in gout[oi * ow + lo..oi * ow + hi].iter().enumerate() {
            gx[start + j * sw] = gx[start + j * sw] + w[r] * v;
        }
    });
}

/// Adds, for each tap, `gout * shifted x` elementwise into that tap's row of `acc`
/// ([kh*kw][ow], each row summed once at the end).
#[inline(always)]
pub(crate) fn weight_grad_plane<T: ConvFloat>(g: &Geometry, x: &[T], gout: &[T], acc: &mut [T]) {
    let (ow, sw) = (g.ohw[1], g.win.stride[1]);
    each_tap_row(g, |r, t, oi| {
        let (lo, hi) = t.cols;
        let start = t.input_start(g, oi);
        let grow = &gout[oi * ow + lo..oi * ow + hi];
        for (j, (a, &gv)) in acc[r * ow + lo..r * ow + hi]
            .iter_mut()
            .zip(grow)
            .enumerate()
        {
            *a = *a + gv * x[start + j * sw];
        }
    });
}

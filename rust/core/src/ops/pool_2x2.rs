//! The usual max pool (2x2 windows, stride 2, no padding or dilation) without branches:
//! on real data "is this element bigger" is a coin toss, and a mispredicted branch per
//! comparison made the general window loop the largest item of a small CNN's step.

use crate::Element;

/// Whether a window's running max `best` gives way to `v`: a NaN wins and keeps its window
/// (the first NaN in window order, as in PyTorch), else the strictly greater value.
#[inline(always)]
#[allow(clippy::eq_op)]
fn replaces<T: Element>(best: T, v: T) -> bool {
    let best_nan = best != best;
    let v_nan = v != v;
    !best_nan & ((v > best) | v_nan)
}

/// Max and flat argmax (`h * W + w`) of each 2x2 window at stride 2 over one plane of width
/// `wd`; `out` and `idx` hold the `oh x ow` results, and every window lies inside the plane.
pub(crate) fn max_pool_2x2_plane<T: Element>(
    plane: &[T],
    wd: usize,
    ow: usize,
    out: &mut [T],
    idx: &mut [i64],
) {
    for (i, (orow, irow)) in out.chunks_mut(ow).zip(idx.chunks_mut(ow)).enumerate() {
        let top = &plane[2 * i * wd..2 * i * wd + 2 * ow];
        let bottom = &plane[(2 * i + 1) * wd..(2 * i + 1) * wd + 2 * ow];
        let row_start = (2 * i * wd) as i64;
        for j in 0..ow {
            let (mut best, mut at) = (top[2 * j], 0i64);
            for (v, pos) in [
                (top[2 * j + 1], 1),
                (bottom[2 * j], wd as i64),
                (bottom[2 * j + 1], wd as i64 + 1),
            ] {
                let take = replaces(best, v);
                best = if take { v } else { best };
                at = if take { pos } else { at };
            }
            orow[j] = best;
            irow[j] = row_start + 2 * j as i64 + at;
        }
    }
}

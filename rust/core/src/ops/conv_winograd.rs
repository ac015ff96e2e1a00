//! Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions: each 4x4 input tile and each 3x3
//! filter are transformed so that a 2x2 block of outputs costs 16 multiplies instead of 36,
//! done as 16 matrix products ([O][C] x [C][tiles]) over a block of images. The input
//! gradient of such a convolution is one too (flipped, transposed filters), so it runs here
//! as well.

use crate::cpu::gemm_any::gemm_any;
use crate::cpu::parallel::SharedOut;
use crate::cpu::sgemm::{Dims, MatMut, MatRef};
use crate::cpu::thread_pool;
use crate::ops::conv_kernels::Geometry;
use crate::ops::conv_scratch::{with_scratch, ConvFloat};
use gemm::Parallelism;
use rayon::prelude::*;

/// Transformed positions per tile (4x4).
pub(super) const POS: usize = 16;
/// Tiles a block's products aim for (their width).
const TARGET_TILES: usize = 512;
/// Most elements of a block's transformed inputs and products together (8 MiB of f32).
const MAX_SCRATCH: usize = 1 << 23;
/// Least channels in and out where the products outweigh the transforms, and most where
/// the 16 products (each repacking its [O][C] filter matrix for a narrow block of tiles)
/// still beat one unfolded product (measured on a 2-core Zen 4: 256 channels at 8x8 1.5x
/// faster, 512 at 4x4 and 7x7 slower). The filter gradient's products sum over the tiles
/// instead (a deep product, no repacking), and win at 512 channels too given tiles enough.
const MIN_CHANNELS: usize = 16;
const MAX_CHANNELS: usize = 256;
const MAX_CHANNELS_WEIGHT_GRAD: usize = 512;

/// A 3x3, stride-1, undilated, ungrouped convolution with padding at most 2 (so that its
/// input gradient is one as well) and an output of at least 2x2, of up to `max` channels.
fn fits(g: &Geometry, max: usize) -> bool {
    let w = &g.win;
    w.kernel == [3, 3]
        && w.stride == [1, 1]
        && w.dilation == [1, 1]
        && w.padding[0] <= 2
        && w.padding[1] <= 2
        && g.groups == 1
        && (MIN_CHANNELS..=max).contains(&g.c)
        && (MIN_CHANNELS..=max).contains(&g.o)
        && g.ohw[0] >= 2
        && g.ohw[1] >= 2
}

/// Least tiles per product and channels for the forward and the input gradient: narrower
/// products, or 16 channels, lose to the unfolded product (2-core Zen 4: one image of
/// 64 channels at 14x14, 49 tiles, 1.3x slower; at 28x28, 196 tiles, 0.88x the time).
const MIN_PRODUCT_TILES: usize = 192;
const MIN_CHANNELS_FORWARD: usize = 32;
/// Least tiles (all images) for the filter gradient: below, its 16 shallow products write
/// 16/9 as many sums as the unfolded one (16 images of 512 channels at 4x4: 1.3x slower).
const MIN_WEIGHT_GRAD_TILES: usize = 256;

/// Which convolutions take the Winograd paths, from FERROTORCH_CONV_WINOGRAD: "0" none (to
/// compare against the column path), "all" every one that fits whatever its speed (for
/// tests of the kernels), else those where they measured faster.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    Faster,
    All,
}

fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(
        || match std::env::var("FERROTORCH_CONV_WINOGRAD").as_deref() {
            Ok("0") => Mode::Off,
            Ok("all") => Mode::All,
            _ => Mode::Faster,
        },
    )
}

/// Whether the forward and the input gradient of `g` run here.
pub(crate) fn applies(g: &Geometry) -> bool {
    match mode() {
        Mode::Off => false,
        Mode::All => fits(g, MAX_CHANNELS),
        Mode::Faster => {
            fits(g, MAX_CHANNELS)
                && g.c.min(g.o) >= MIN_CHANNELS_FORWARD
                && product_tiles(g) >= MIN_PRODUCT_TILES
        }
    }
}

/// The width of the forward's products: the tiles of the images of one block.
fn product_tiles(g: &Geometry) -> usize {
    let [th, tw] = tiles(g);
    forward_blocks(g, thread_pool::num_threads()).1 * th * tw
}

/// How the forward spreads its work over `threads`: whether blocks of images go to the
/// threads (there are images enough) rather than each phase of one block at a time, and
/// the images per block.
fn forward_blocks(g: &Geometry, threads: usize) -> (bool, usize) {
    let by_images = threads > 1 && g.n >= threads;
    let cap = if by_images {
        g.n.div_ceil(threads)
    } else {
        g.n.max(1)
    };
    (by_images, images_per_block(g, cap))
}

/// Whether the filter gradient of `g` runs as Winograd products.
pub(crate) fn applies_to_weight_grad(g: &Geometry) -> bool {
    let [th, tw] = tiles(g);
    match mode() {
        Mode::Off => false,
        Mode::All => fits(g, MAX_CHANNELS_WEIGHT_GRAD),
        Mode::Faster => fits(g, MAX_CHANNELS_WEIGHT_GRAD) && g.n * th * tw >= MIN_WEIGHT_GRAD_TILES,
    }
}

pub(super) fn half<T: ConvFloat>(v: T) -> T {
    v * T::from_f64(0.5)
}

/// U = G g G^T of every filter, laid out [16][O][C] (by output channel over the pool when
/// `parallel`, inside its region).
fn transform_filters<T: ConvFloat>(o: usize, c: usize, w: &[T], parallel: bool) -> Vec<T> {
    let mut u = vec![T::default(); POS * o * c];
    let up = SharedOut::new(u.as_mut_ptr());
    for_each_index(parallel, o, |oi| {
        for ci in 0..c {
            let g = &w[(oi * c + ci) * 9..(oi * c + ci + 1) * 9];
            // Rows of G g (4x3), then each row times G^T.
            let mut gg = [[T::default(); 3]; 4];
            for j in 0..3 {
                let (a, b, cc) = (g[j], g[3 + j], g[6 + j]);
                gg[0][j] = a;
                gg[1][j] = half(a + b + cc);
                gg[2][j] = half(a - b + cc);
                gg[3][j] = cc;
            }
            for (i, row) in gg.iter().enumerate() {
                let (a, b, cc) = (row[0], row[1], row[2]);
                let vals = [a, half(a + b + cc), half(a - b + cc), cc];
                for (j, v) in vals.into_iter().enumerate() {
                    // SAFETY: each output channel writes only its own places.
                    unsafe { *up.at(((i * 4 + j) * o + oi) * c + ci) = v };
                }
            }
        }
    });
    u
}

/// Tile grid of an output plane.
pub(super) fn tiles(g: &Geometry) -> [usize; 2] {
    [g.ohw[0].div_ceil(2), g.ohw[1].div_ceil(2)]
}

/// `f(i)` for i in 0..n, spread over the kernel pool when `parallel` (inside its region).
pub(super) fn for_each_index(parallel: bool, n: usize, f: impl Fn(usize) + Sync + Send) {
    if parallel {
        (0..n).into_par_iter().for_each(f)
    } else {
        (0..n).for_each(f)
    }
}

/// V = B^T d B of every 4x4 tile of channel `c` of `nb` images into `v` ([16][C][P]).
/// A tile row at a time: B^T combines four input rows (vectorized along the row), then B
/// combines four columns of that per tile.
///
/// # Safety
/// `v` holds 16 * C * P elements; no other task writes channel `c`'s places.
pub(super) unsafe fn transform_channel<T: ConvFloat>(
    g: &Geometry,
    x_imgs: &[T],
    nb: usize,
    c: usize,
    v: &SharedOut<T>,
) {
    let [th, tw] = tiles(g);
    let [h, w] = g.hw;
    let [ph, pw] = g.win.padding;
    let p_all = nb * th * tw;
    let plane = h * w;
    // Padded rows cover input columns -pw .. 2 * tw + 2 - pw.
    let wp = 2 * tw + 2;
    let mut rows = vec![T::default(); 4 * wp];
    let mut t = vec![T::default(); 4 * wp];
    for b in 0..nb {
        let src = &x_imgs[(b * g.c + c) * plane..(b * g.c + c + 1) * plane];
        for ti in 0..th {
            for r in 0..4 {
                let row = &mut rows[r * wp..(r + 1) * wp];
                let y = (2 * ti + r) as isize - ph as isize;
                row.fill(T::default());
                if y >= 0 && (y as usize) < h {
                    let line = &src[y as usize * w..(y as usize + 1) * w];
                    let n = w.min(wp - pw);
                    row[pw..pw + n].copy_from_slice(&line[..n]);
                }
            }
            let (r0, rest) = rows.split_at(wp);
            let (r1, rest) = rest.split_at(wp);
            let (r2, r3) = rest.split_at(wp);
            let (t0, rest) = t.split_at_mut(wp);
            let (t1, rest) = rest.split_at_mut(wp);
            let (t2, t3) = rest.split_at_mut(wp);
            for k in 0..wp {
                t0[k] = r0[k] - r2[k];
                t1[k] = r1[k] + r2[k];
                t2[k] = r2[k] - r1[k];
                t3[k] = r1[k] - r3[k];
            }
            let p0 = (b * th + ti) * tw;
            for (i, ti_row) in [&*t0, &*t1, &*t2, &*t3].into_iter().enumerate() {
                let base = |j: usize| v.at(((i * 4 + j) * g.c + c) * p_all + p0);
                let (d0, d1, d2, d3) = (base(0), base(1), base(2), base(3));
                for tj in 0..tw {
                    let e = &ti_row[2 * tj..2 * tj + 4];
                    *d0.add(tj) = e[0] - e[2];
                    *d1.add(tj) = e[1] + e[2];
                    *d2.add(tj) = e[2] - e[1];
                    *d3.add(tj) = e[1] - e[3];
                }
            }
        }
    }
}

/// Y = A^T m A of output plane (b, o) from the products `m` ([16][O][P]), plus bias.
fn transform_plane<T: ConvFloat>(
    g: &Geometry,
    m: &[T],
    nb: usize,
    b: usize,
    o: usize,
    bo: T,
    dst: &mut [T],
) {
    let [th, tw] = tiles(g);
    let [oh, ow] = g.ohw;
    let p_all = nb * th * tw;
    let mut s = vec![T::default(); 8 * tw];
    for ti in 0..th {
        let p0 = (b * th + ti) * tw;
        let at = |xi: usize| &m[(xi * g.o + o) * p_all + p0..(xi * g.o + o) * p_all + p0 + tw];
        // A^T m: rows m0 + m1 + m2 and m1 - m2 - m3, for each of the 4 columns.
        for j in 0..4 {
            let (m0, m1, m2, m3) = (at(j), at(4 + j), at(8 + j), at(12 + j));
            let (s0, s1) = s[2 * j * tw..(2 * j + 2) * tw].split_at_mut(tw);
            for k in 0..tw {
                s0[k] = m0[k] + m1[k] + m2[k];
                s1[k] = m1[k] - m2[k] - m3[k];
            }
        }
        for i in 0..2 {
            let y = 2 * ti + i;
            if y >= oh {
                continue;
            }
            let col = |j: usize| &s[(2 * j + i) * tw..(2 * j + i + 1) * tw];
            let (c0, c1, c2, c3) = (col(0), col(1), col(2), col(3));
            let line = &mut dst[y * ow..(y + 1) * ow];
            for tj in 0..tw {
                line[2 * tj] = c0[tj] + c1[tj] + c2[tj] + bo;
                if 2 * tj + 1 < ow {
                    line[2 * tj + 1] = c1[tj] - c2[tj] - c3[tj] + bo;
                }
            }
        }
    }
}

/// Output of `nb` images: transform (by channel), 16 products (one per task), transform back
/// (by output plane), each phase spread over the pool when `parallel`.
#[allow(clippy::too_many_arguments)]
fn forward_block<T: ConvFloat>(
    g: &Geometry,
    u: &[T],
    x_imgs: &[T],
    nb: usize,
    bias: Option<&[T]>,
    out: &mut [T],
    parallel: bool,
) {
    let [th, tw] = tiles(g);
    let p = nb * th * tw;
    let (v_len, m_len) = (POS * g.c * p, POS * g.o * p);
    with_scratch::<T, _>(v_len + m_len, |ws| {
        let (v, m) = ws.split_at_mut(v_len);
        let vp = SharedOut::new(v.as_mut_ptr());
        // SAFETY: each channel writes only its own places of `v`.
        for_each_index(parallel, g.c, |c| unsafe {
            transform_channel(g, x_imgs, nb, c, &vp)
        });
        let v: &[T] = v;
        let mp = SharedOut::new(m.as_mut_ptr());
        for_each_index(parallel, POS, |xi| unsafe {
            gemm_any(
                Dims {
                    m: g.o,
                    n: p,
                    k: g.c,
                },
                MatRef {
                    ptr: u[xi * g.o * g.c..].as_ptr(),
                    rs: g.c as isize,
                    cs: 1,
                },
                MatRef {
                    ptr: v[xi * g.c * p..].as_ptr(),
                    rs: p as isize,
                    cs: 1,
                },
                // Each product writes its own [O][P] slice.
                MatMut {
                    ptr: mp.at(xi * g.o * p),
                    rs: p as isize,
                    cs: 1,
                },
                false,
                Parallelism::None,
            )
        });
        let m: &[T] = m;
        let plane = g.l();
        let op = SharedOut::new(out.as_mut_ptr());
        for_each_index(parallel, nb * g.o, |bo| {
            let (b, o) = (bo / g.o, bo % g.o);
            // SAFETY: each task writes its own output plane.
            let dst = unsafe { std::slice::from_raw_parts_mut(op.at(bo * plane), plane) };
            transform_plane(g, m, nb, b, o, bias.map_or(T::default(), |bs| bs[o]), dst);
        });
    })
}

/// Images per block: products about TARGET_TILES wide (so a block's transformed inputs and
/// products stay near the cache), within MAX_SCRATCH, at most `cap`.
pub(super) fn images_per_block(g: &Geometry, cap: usize) -> usize {
    let [th, tw] = tiles(g);
    let per_image = th * tw;
    let by_width = TARGET_TILES.div_ceil(per_image);
    let by_size = MAX_SCRATCH / (POS * (g.c + g.o) * per_image).max(1);
    by_width.min(by_size).min(cap).max(1)
}

/// conv2d of contiguous `x` [N, C, H, W] with `w` [O, C, 3, 3] into `out` [N, O, oh, ow];
/// `g` must satisfy [`applies`].
pub(crate) fn forward<T: ConvFloat>(
    g: &Geometry,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    out: &mut [T],
) {
    let (xi, oi) = (g.c * g.hw[0] * g.hw[1], g.o * g.l());
    let threads = thread_pool::num_threads();
    let (by_images, per_block) = forward_blocks(g, threads);
    if by_images {
        // Blocks of images spread over the threads, each block done on one thread.
        thread_pool::run(|| {
            let u = transform_filters(g.o, g.c, w, true);
            out.par_chunks_mut(per_block * oi)
                .enumerate()
                .for_each(|(t, blk)| {
                    let (i, nb) = (t * per_block, blk.len() / oi);
                    forward_block(g, &u, &x[i * xi..(i + nb) * xi], nb, bias, blk, false);
                })
        });
        return;
    }
    // Few images: one block at a time, each phase spread over the threads.
    let parallel = threads > 1;
    thread_pool::run_if(parallel, || {
        let u = transform_filters(g.o, g.c, w, parallel);
        for (t, blk) in out.chunks_mut(per_block * oi).enumerate() {
            let (i, nb) = (t * per_block, blk.len() / oi);
            forward_block(g, &u, &x[i * xi..(i + nb) * xi], nb, bias, blk, parallel);
        }
    });
}

/// Input gradient of such a convolution: the convolution of `gout` with the filters flipped
/// and transposed ([C, O, 3, 3]) and padding 2 - p, written into `gx` [N, C, H, W].
pub(crate) fn input_grad<T: ConvFloat>(g: &Geometry, w: &[T], gout: &[T], gx: &mut [T]) {
    let mut wt = vec![T::default(); w.len()];
    for o in 0..g.o {
        for c in 0..g.c {
            for k in 0..9 {
                wt[(c * g.o + o) * 9 + (8 - k)] = w[(o * g.c + c) * 9 + k];
            }
        }
    }
    let mut win = g.win;
    win.padding = [2 - g.win.padding[0], 2 - g.win.padding[1]];
    let gg = Geometry {
        n: g.n,
        c: g.o,
        hw: g.ohw,
        o: g.c,
        groups: 1,
        win,
        ohw: g.hw,
    };
    forward(&gg, gout, &wt, None, gx);
}

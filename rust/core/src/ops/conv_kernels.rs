//! The fused conv2d kernels for f32 and f64. Images are unfolded side by side into one
//! column matrix per block of images ([C*kh*kw][images*L]), so a small image still gives
//! one wide, well-shaped product instead of a narrow one per image; the blocks are split
//! across threads, each multiplying on its own thread into scratch it keeps between calls.
//! The backward recomputes the columns instead of saving them.

use crate::cpu::gemm_any::gemm_any;
use crate::cpu::sgemm::{Dims, MatMut, MatRef};
use crate::cpu::thread_pool;
use crate::ops::conv_depthwise;
use crate::ops::conv_scratch::{with_scratch, ConvFloat};
use crate::ops::unfold::{col2im_plane, col2im_plane_same_width, im2col_plane, Window};
use crate::ops::{conv_winograd, conv_winograd_weight_grad};
use gemm::Parallelism;
use rayon::prelude::*;

/// Shapes of one convolution.
#[derive(Clone, Copy)]
pub(crate) struct Geometry {
    pub n: usize,
    pub c: usize,
    pub hw: [usize; 2],
    pub o: usize,
    pub groups: usize,
    pub win: Window,
    pub ohw: [usize; 2],
}

impl Geometry {
    pub fn og(&self) -> usize {
        self.o / self.groups
    }
    /// Rows of one group's column matrix (its channels times the kernel window).
    pub fn k(&self) -> usize {
        self.c / self.groups * self.kk()
    }
    pub fn l(&self) -> usize {
        self.ohw[0] * self.ohw[1]
    }
    pub fn kk(&self) -> usize {
        self.win.kernel[0] * self.win.kernel[1]
    }
    /// A 1x1 kernel with stride 1 and no padding: each image already is its column matrix.
    fn pointwise(&self) -> bool {
        self.win.kernel == [1, 1] && self.win.stride == [1, 1] && self.win.padding == [0, 0]
    }
    fn plane(&self) -> usize {
        self.hw[0] * self.hw[1]
    }
    fn image_len(&self) -> usize {
        self.c * self.plane()
    }
    fn out_image_len(&self) -> usize {
        self.o * self.l()
    }
}

/// Columns a block of images aims for: enough NR-wide panels that the edge panel and the
/// per-product packing stop mattering (measured on 14x14 images, L = 196: 4 images).
const TARGET_COLUMNS: usize = 768;
/// Most elements of a block's column matrix (8 MiB of float32): the product streams it in
/// KC-deep slices, so it need not fit a cache; wide blocks matter more for small images with
/// many channels (512 channels at 7x7 were one 49-column product per image).
const MAX_COLUMN_ELEMENTS: usize = 1 << 21;

/// Images per block for a task of `task_images` images.
fn images_per_block(g: &Geometry, task_images: usize) -> usize {
    let by_width = TARGET_COLUMNS.div_ceil(g.l().max(1));
    let by_size = MAX_COLUMN_ELEMENTS / (g.c * g.kk() * g.l()).max(1);
    by_width.min(by_size).min(task_images).max(1)
}

/// How the batch is spread: tasks of `per_task` images (whole blocks of `per_block`) that
/// the threads claim as they go, each multiplying on its own thread, so a thread the OS
/// delays holds up one small task, not half the batch; with fewer images than threads, one
/// task whose products use all threads.
struct Split {
    per_task: usize,
    per_block: usize,
    gemm: Parallelism,
}

/// Tasks per thread in the backward: each keeps its own weight-gradient sum, added in task
/// order at the end (deterministic), so their number stays small; with a large weight, one.
const BACKWARD_TASKS_PER_THREAD: usize = 4;
/// Weight elements above which the backward gives each thread one task (and one partial sum).
const LARGE_WEIGHT: usize = 1 << 18;

fn split(g: &Geometry, backward: bool) -> Split {
    let threads = thread_pool::num_threads();
    if threads > 1 && g.n >= threads {
        let per_block = images_per_block(g, g.n.div_ceil(threads));
        let per_task = if backward {
            let per_thread = if g.o * g.k() > LARGE_WEIGHT {
                1
            } else {
                BACKWARD_TASKS_PER_THREAD
            };
            let tasks = threads * per_thread;
            g.n.div_ceil(tasks).div_ceil(per_block) * per_block
        } else {
            per_block
        };
        return Split {
            per_task,
            per_block,
            gemm: Parallelism::None,
        };
    }
    let big = threads > 1 && g.og() * g.l() * g.k() >= 48 * 48 * 48;
    Split {
        per_task: g.n.max(1),
        per_block: images_per_block(g, g.n.max(1)),
        gemm: if big {
            Parallelism::Rayon(threads)
        } else {
            Parallelism::None
        },
    }
}

/// Refuses, before any thread allocates it, column scratch that no machine could hold: the
/// per-thread buffers are sized inside the thread pool, where a failure cannot be reported.
pub(crate) fn check_scratch(g: &Geometry, backward: bool, elem_size: usize) -> crate::Result<()> {
    if conv_depthwise::is_depthwise(g) {
        return Ok(()); // no column scratch
    }
    let s = split(g, backward);
    let per_image = (g.c.saturating_mul(g.kk()))
        .saturating_add(g.o)
        .saturating_mul(g.l());
    let at_once = thread_pool::num_threads()
        .min(g.n.div_ceil(s.per_task.max(1)))
        .max(1);
    let bytes = per_image
        .saturating_mul(s.per_block)
        .saturating_mul(at_once)
        .saturating_mul(elem_size);
    crate::alloc_size::check_request(bytes).map_err(|e| e.in_op("conv2d"))
}

/// Unfolds `nb` whole images side by side: row `r` of image `b`'s columns lands at
/// `cols[r * ld + b * L]`, `ld = nb * L`.
fn unfold_block<T: ConvFloat>(g: &Geometry, x_imgs: &[T], nb: usize, cols: &mut [T]) {
    let (kk, l, plane) = (g.kk(), g.l(), g.plane());
    let ld = nb * l;
    for b in 0..nb {
        for ch in 0..g.c {
            let src = &x_imgs[(b * g.c + ch) * plane..(b * g.c + ch + 1) * plane];
            im2col_plane(
                src,
                &mut cols[ch * kk * ld + b * l..],
                ld,
                g.hw,
                &g.win,
                g.ohw,
            );
        }
    }
}

/// Adds the columns' gradient (laid out as `unfold_block` writes) onto `nb` images; the
/// columns are scratch and may be changed.
fn fold_block<T: ConvFloat>(g: &Geometry, cols: &mut [T], nb: usize, gx_imgs: &mut [T]) {
    let (kk, l, plane) = (g.kk(), g.l(), g.plane());
    let ld = nb * l;
    let same_width = g.win.stride == [1, 1] && g.ohw[1] == g.hw[1];
    for b in 0..nb {
        for ch in 0..g.c {
            let dst = &mut gx_imgs[(b * g.c + ch) * plane..(b * g.c + ch + 1) * plane];
            let src = &mut cols[ch * kk * ld + b * l..];
            if same_width {
                col2im_plane_same_width(src, ld, dst, g.hw, &g.win, g.ohw, |a, v| a + v);
            } else {
                col2im_plane(src, ld, dst, g.hw, &g.win, g.ohw, |a, v| a + v);
            }
        }
    }
}

/// Whether a block's column matrix is its input, read in place: one image of a pointwise
/// convolution (several images' channels do not form one strided matrix).
fn direct_columns(g: &Geometry, nb: usize) -> bool {
    nb == 1 && g.pointwise()
}

/// Runs `f(cols, staged)` on this thread's scratch: the block's columns ([C*kk][nb*L]) and,
/// for several images, an [O][nb*L] staging area for their outputs or output gradients (one
/// image is used in place, and its staging area is empty).
fn with_block_scratch<T: ConvFloat, R>(
    g: &Geometry,
    nb: usize,
    f: impl FnOnce(&mut [T], &mut [T]) -> R,
) -> R {
    let ld = nb * g.l();
    let cols_len = if direct_columns(g, nb) {
        0
    } else {
        g.c * g.kk() * ld
    };
    let staged_len = if nb > 1 { g.o * ld } else { 0 };
    with_scratch::<T, _>(cols_len + staged_len, |ws| {
        let (cols, staged) = ws.split_at_mut(cols_len);
        f(cols, staged)
    })
}

/// Output of `nb` images: W * columns, one product per group over all the block's
/// columns, then each image's share moved to its place with the bias added.
fn forward_block<T: ConvFloat>(
    g: &Geometry,
    x_imgs: &[T],
    nb: usize,
    w: &[T],
    bias: Option<&[T]>,
    out: &mut [T],
    par: Parallelism,
) {
    let (og, k, l) = (g.og(), g.k(), g.l());
    let ld = nb * l;
    with_block_scratch::<T, _>(g, nb, |cols, staged| {
        let cols: &[T] = if direct_columns(g, nb) {
            x_imgs
        } else {
            unfold_block(g, x_imgs, nb, cols);
            cols
        };
        let (dst, dst_ld) = if nb > 1 {
            (&mut *staged, ld)
        } else {
            (&mut *out, l)
        };
        for grp in 0..g.groups {
            unsafe {
                gemm_any(
                    Dims { m: og, n: ld, k },
                    MatRef::row_major(w[grp * og * k..].as_ptr(), k),
                    MatRef::row_major(cols[grp * k * ld..].as_ptr(), ld),
                    MatMut::row_major(dst[grp * og * dst_ld..].as_mut_ptr(), dst_ld),
                    false,
                    par,
                )
            };
        }
        for b in 0..nb {
            for o in 0..g.o {
                let row = &mut out[(b * g.o + o) * l..(b * g.o + o + 1) * l];
                if nb > 1 {
                    row.copy_from_slice(&staged[o * ld + b * l..o * ld + (b + 1) * l]);
                }
                if let Some(bias) = bias {
                    row.iter_mut().for_each(|v| *v = *v + bias[o]);
                }
            }
        }
    })
}

/// conv2d of contiguous `x` [N, C, H, W] and `w` [O, C/groups, kh, kw] into `out`
/// [N, O, oh, ow] (every element written).
pub(crate) fn forward<T: ConvFloat>(
    g: &Geometry,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    out: &mut [T],
) {
    let (xi, oi) = (g.image_len(), g.out_image_len());
    if out.is_empty() {
        return;
    }
    if conv_depthwise::is_depthwise(g) {
        return conv_depthwise::forward(g, x, w, bias, out);
    }
    if conv_winograd::applies(g) {
        return conv_winograd::forward(g, x, w, bias, out);
    }
    let s = split(g, false);
    let per_block = s.per_block;
    let task = |(t, chunk): (usize, &mut [T])| {
        let first = t * s.per_task;
        for (j, blk) in chunk.chunks_mut(per_block * oi).enumerate() {
            let (i, nb) = (first + j * per_block, blk.len() / oi);
            forward_block(g, &x[i * xi..(i + nb) * xi], nb, w, bias, blk, s.gemm);
        }
    };
    thread_pool::run_if(thread_pool::num_threads() > 1, || {
        out.par_chunks_mut(s.per_task * oi)
            .enumerate()
            .for_each(task)
    });
}

/// Gradients from `nb` images: their output gradient as one [O][nb*L] matrix, then per
/// group `gw^T += columns * gout^T` (into `gw_t`, [groups][K][og]) and
/// `columns' gradient = W^T * gout`, folded onto `gx_imgs`.
#[allow(clippy::too_many_arguments)]
fn backward_block<T: ConvFloat>(
    g: &Geometry,
    x_imgs: &[T],
    gout_imgs: &[T],
    nb: usize,
    w: &[T],
    gx_imgs: Option<&mut [T]>,
    gw_t: Option<&mut [T]>,
    par: Parallelism,
) {
    let (og, k, l) = (g.og(), g.k(), g.l());
    let ld = nb * l;
    with_block_scratch::<T, _>(g, nb, |cols, staged| {
        let gmat: &[T] = if nb > 1 {
            for b in 0..nb {
                for o in 0..g.o {
                    staged[o * ld + b * l..o * ld + (b + 1) * l]
                        .copy_from_slice(&gout_imgs[(b * g.o + o) * l..(b * g.o + o + 1) * l]);
                }
            }
            staged
        } else {
            gout_imgs
        };
        let direct = direct_columns(g, nb);
        if let Some(acc) = gw_t {
            let cols: &[T] = if direct {
                x_imgs
            } else {
                unfold_block(g, x_imgs, nb, cols);
                cols
            };
            for grp in 0..g.groups {
                unsafe {
                    gemm_any(
                        Dims { m: k, n: og, k: ld },
                        MatRef::row_major(cols[grp * k * ld..].as_ptr(), ld),
                        MatRef::row_major(gmat[grp * og * ld..].as_ptr(), ld).t(),
                        MatMut::row_major(acc[grp * k * og..].as_mut_ptr(), og),
                        true,
                        par,
                    )
                };
            }
        }
        if let Some(gx) = gx_imgs {
            let columns_grad = |dst: &mut [T]| {
                for grp in 0..g.groups {
                    unsafe {
                        gemm_any(
                            Dims { m: k, n: ld, k: og },
                            MatRef::row_major(w[grp * og * k..].as_ptr(), k).t(),
                            MatRef::row_major(gmat[grp * og * ld..].as_ptr(), ld),
                            MatMut::row_major(dst[grp * k * ld..].as_mut_ptr(), ld),
                            false,
                            par,
                        )
                    };
                }
            };
            if direct {
                // A pointwise image's column gradient is its input gradient.
                columns_grad(gx);
            } else {
                columns_grad(cols);
                // Zeroed block by block, just before the fold adds onto these images.
                gx.fill(T::default());
                fold_block(g, cols, nb, gx);
            }
        }
    })
}

/// Sum of a row in 16 running lanes (vectorizes; less rounding than one running sum).
#[inline(always)]
pub(crate) fn row_sum<T: ConvFloat>(row: &[T]) -> T {
    let mut lanes = [T::default(); 16];
    let chunks = row.chunks_exact(16);
    let tail = chunks.remainder();
    for c in chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l = *l + v;
        }
    }
    let mut sum = tail.iter().fold(T::default(), |a, &v| a + v);
    for l in lanes {
        sum = sum + l;
    }
    sum
}

/// Adds to `acc` ([O]) the bias gradient of `images`: each output plane's sum, image by image.
fn add_bias_grad<T: ConvFloat>(
    g: &Geometry,
    gout: &[T],
    images: std::ops::Range<usize>,
    acc: &mut [T],
) {
    let (oi, l) = (g.out_image_len(), g.l());
    for i in images {
        for (o, a) in acc.iter_mut().enumerate() {
            *a = *a + row_sum(&gout[i * oi + o * l..i * oi + (o + 1) * l]);
        }
    }
}

/// Gradients wanted from `backward`: each is overwritten, whatever it held.
pub(crate) struct Grads<'a, T> {
    /// [N, C, H, W].
    pub x: Option<&'a mut [T]>,
    /// [O, C/groups, kh, kw], any contents.
    pub w: Option<&'a mut [T]>,
    /// [O], any contents.
    pub bias: Option<&'a mut [T]>,
}

/// Gradients of conv2d into `grads`.
pub(crate) fn backward<T: ConvFloat>(g: &Geometry, x: &[T], w: &[T], gout: &[T], grads: Grads<T>) {
    let Grads {
        x: gx,
        w: gw,
        bias: gb,
    } = grads;
    let (xi, oi, og, k) = (g.image_len(), g.out_image_len(), g.og(), g.k());
    let w_len = g.o * k;
    if g.n == 0 || oi == 0 {
        gx.into_iter()
            .chain(gw)
            .chain(gb)
            .for_each(|s| s.fill(T::default()));
        return;
    }
    if conv_depthwise::is_depthwise(g) {
        let grads = Grads {
            x: gx,
            w: gw,
            bias: gb,
        };
        return conv_depthwise::backward(g, x, w, gout, grads);
    }
    // Winograd gradients where they win; the column path below computes the rest.
    let gx = match gx {
        Some(gx) if conv_winograd::applies(g) => {
            conv_winograd::input_grad(g, w, gout, gx);
            None
        }
        gx => gx,
    };
    let gw = match gw {
        Some(gw) if conv_winograd::applies_to_weight_grad(g) => {
            conv_winograd_weight_grad::weight_grad(g, x, gout, gw);
            None
        }
        gw => gw,
    };
    if gx.is_none() && gw.is_none() {
        if let Some(gb) = gb {
            gb.fill(T::default());
            add_bias_grad(g, gout, 0..g.n, gb);
        }
        return;
    }
    let s = split(g, true);
    let tasks = g.n.div_ceil(s.per_task);
    let (want_gw, want_gb) = (gw.is_some(), gb.is_some());
    let gx_parts: Vec<Option<&mut [T]>> = match gx {
        Some(gx) if xi > 0 => gx.chunks_mut(s.per_task * xi).map(Some).collect(),
        _ => (0..tasks).map(|_| None).collect(),
    };
    let task = |(t, mut gx_part): (usize, Option<&mut [T]>)| {
        let first = t * s.per_task;
        let (imgs, per_block) = (s.per_task.min(g.n - first), s.per_block);
        let mut acc = vec![T::default(); if want_gw { w_len } else { 0 }];
        let mut acc_b = vec![T::default(); if want_gb { g.o } else { 0 }];
        add_bias_grad(g, gout, first..first + imgs, &mut acc_b);
        for j in (0..imgs).step_by(per_block) {
            let (i, nb) = (first + j, per_block.min(imgs - j));
            let gx_blk = gx_part
                .as_deref_mut()
                .map(|p| &mut p[j * xi..(j + nb) * xi]);
            backward_block(
                g,
                &x[i * xi..(i + nb) * xi],
                &gout[i * oi..(i + nb) * oi],
                nb,
                w,
                gx_blk,
                want_gw.then_some(&mut acc[..]),
                s.gemm,
            );
        }
        (acc, acc_b)
    };
    let (partials, partials_b): (Vec<Vec<T>>, Vec<Vec<T>>) =
        thread_pool::run_if(thread_pool::num_threads() > 1, || {
            gx_parts.into_par_iter().enumerate().map(task).unzip()
        });
    if let Some(gb) = gb {
        for (o, b) in gb.iter_mut().enumerate() {
            *b = partials_b.iter().fold(T::default(), |a, p| a + p[o]);
        }
    }
    if let Some(gw) = gw {
        // Sum the tasks' [groups][K][og] partials in task order (the same result on every
        // run), then transpose to [O][K].
        let mut parts = partials.into_iter();
        let mut total = parts.next().unwrap_or_default();
        for p in parts {
            total.iter_mut().zip(&p).for_each(|(t, &v)| *t = *t + v);
        }
        for grp in 0..g.groups {
            for kj in 0..k {
                let src = &total[grp * k * og + kj * og..grp * k * og + (kj + 1) * og];
                for (o, &v) in src.iter().enumerate() {
                    gw[(grp * og + o) * k + kj] = v;
                }
            }
        }
    }
}

//! conv2d for f32/f64, fused per image: a thread unfolds one image into a workspace it
//! reuses (a few hundred KiB, cache-resident) and multiplies it right away, so the unfolded
//! columns of the whole batch are never written out. The backward works the same way (and
//! recomputes each image's columns instead of saving them). With create_graph, the
//! backward is written in differentiable ops instead, so higher-order gradients work.

use crate::autograd::{is_grad_enabled, record};
use crate::cpu::sgemm;
use crate::ops::unfold::{col2im_plane, im2col_plane, Window};
use crate::{DType, Element, Result, Tensor};
use gemm::Parallelism;
use rayon::prelude::*;

/// `$body` with `$T` the element type of a fused-kernel dtype (f32 or f64).
macro_rules! float_only {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            DType::F64 => {
                type $T = f64;
                $body
            }
            _ => {
                type $T = f32;
                $body
            }
        }
    };
}

/// Shapes of one convolution.
#[derive(Clone, Copy)]
struct Geometry {
    n: usize,
    c: usize,
    hw: [usize; 2],
    o: usize,
    groups: usize,
    win: Window,
    ohw: [usize; 2],
}

impl Geometry {
    fn cg(&self) -> usize {
        self.c / self.groups
    }
    fn og(&self) -> usize {
        self.o / self.groups
    }
    fn k(&self) -> usize {
        self.cg() * self.win.kernel[0] * self.win.kernel[1]
    }
    fn l(&self) -> usize {
        self.ohw[0] * self.ohw[1]
    }
    fn plane(&self) -> usize {
        self.hw[0] * self.hw[1]
    }
}

/// Row-major `dst (m x n) [+]= lhs (m x k) * rhs (k x n)` with explicit strides: our
/// AVX-512 kernel for float32 when the CPU has it, else the `gemm` crate.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_rm<T: Element>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    lhs: *const T,
    lhs_strides: (isize, isize),
    rhs: *const T,
    rhs_strides: (isize, isize),
    accumulate: bool,
    par: Parallelism,
) {
    let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
    let threads = match par {
        Parallelism::Rayon(t) => t,
        Parallelism::None => 1,
    };
    let ours = sgemm::try_gemm(
        sgemm::Dims { m, n, k },
        one,
        sgemm::MatRef {
            ptr: lhs,
            rs: lhs_strides.0,
            cs: lhs_strides.1,
        },
        sgemm::MatRef {
            ptr: rhs,
            rs: rhs_strides.0,
            cs: rhs_strides.1,
        },
        if accumulate { one } else { zero },
        sgemm::MatMut {
            ptr: dst,
            rs: n as isize,
            cs: 1,
        },
        threads,
    );
    if ours {
        return;
    }
    gemm::gemm(
        m,
        n,
        k,
        dst,
        1,
        n as isize,
        accumulate,
        lhs,
        lhs_strides.1,
        lhs_strides.0,
        rhs,
        rhs_strides.1,
        rhs_strides.0,
        one,
        one,
        false,
        false,
        false,
        par,
    )
}

/// Images in parallel (each gemm on one thread) when there are enough of them; otherwise
/// one image at a time with the gemm itself parallel.
fn image_parallel(g: &Geometry) -> bool {
    let threads = crate::cpu::thread_pool::num_threads();
    threads > 1 && g.n >= threads
}

/// Images per parallel task: one task per thread, so each allocates one workspace.
fn images_per_task(g: &Geometry) -> usize {
    g.n.div_ceil(crate::cpu::thread_pool::num_threads()).max(1)
}

/// One task's column buffer (allocated once per task, reused for each of its images).
fn workspace<T: Element>(len: usize) -> Vec<T> {
    vec![T::default(); len]
}

fn gemm_par(g: &Geometry) -> Parallelism {
    if image_parallel(g)
        || g.og() * g.l() * g.k() < 48 * 48 * 48
        || crate::cpu::thread_pool::num_threads() == 1
    {
        Parallelism::None
    } else {
        Parallelism::Rayon(crate::cpu::thread_pool::num_threads())
    }
}

/// Unfolds image `x_img` (all channels) into `cols` ([groups][K][L]).
fn unfold_image<T: Element>(g: &Geometry, x_img: &[T], cols: &mut [T]) {
    let kk = g.win.kernel[0] * g.win.kernel[1];
    let block = kk * g.l();
    for ch in 0..g.c {
        im2col_plane(
            &x_img[ch * g.plane()..(ch + 1) * g.plane()],
            &mut cols[ch * block..(ch + 1) * block],
            g.hw,
            &g.win,
            g.ohw,
        );
    }
}

fn forward_image<T: Element>(
    g: &Geometry,
    x_img: &[T],
    w: &[T],
    bias: Option<&[T]>,
    out: &mut [T],
    cols: &mut [T],
) {
    unfold_image(g, x_img, cols);
    let (og, k, l) = (g.og(), g.k(), g.l());
    if let Some(b) = bias {
        for (row, &bv) in out.chunks_mut(l).zip(b) {
            row.fill(bv);
        }
    }
    for grp in 0..g.groups {
        unsafe {
            gemm_rm(
                og,
                l,
                k,
                out[grp * og * l..].as_mut_ptr(),
                w[grp * og * k..].as_ptr(),
                (k as isize, 1),
                cols[grp * k * l..].as_ptr(),
                (l as isize, 1),
                bias.is_some(),
                gemm_par(g),
            )
        };
    }
}

/// Runs `f(image, its slice of dst, workspace)` for every image: images split across
/// threads (one workspace per task) when `image_parallel`, else one after the other.
fn each_image<T: Element>(
    g: &Geometry,
    dst: &mut [T],
    per_image: usize,
    f: impl Fn(usize, &mut [T], &mut [T]) + Sync,
) {
    let ws = g.c * g.win.kernel[0] * g.win.kernel[1] * g.l();
    crate::cpu::thread_pool::run_if(crate::cpu::thread_pool::num_threads() > 1, || {
        if image_parallel(g) {
            let per = images_per_task(g);
            dst.par_chunks_mut(per_image * per)
                .enumerate()
                .for_each(|(t, chunk)| {
                    let mut cols = workspace::<T>(ws);
                    for (j, d) in chunk.chunks_mut(per_image).enumerate() {
                        f(t * per + j, d, &mut cols);
                    }
                });
        } else {
            let mut cols = workspace::<T>(ws);
            for (i, d) in dst.chunks_mut(per_image).enumerate() {
                f(i, d, &mut cols);
            }
        }
    })
}

fn forward<T: Element>(g: &Geometry, x: &[T], w: &[T], bias: Option<&[T]>, out: &mut [T]) {
    let (xi, oi) = (g.c * g.plane(), g.o * g.l());
    each_image(g, out, oi, |i, o, cols| {
        forward_image(g, &x[i * xi..(i + 1) * xi], w, bias, o, cols)
    });
}

/// d input: per image, W^T * dOut gives the columns' gradient, folded back onto the planes.
fn grad_input_image<T: Element>(g: &Geometry, gout: &[T], w: &[T], gx: &mut [T], gcols: &mut [T]) {
    let (og, k, l) = (g.og(), g.k(), g.l());
    for grp in 0..g.groups {
        unsafe {
            gemm_rm(
                k,
                l,
                og,
                gcols[grp * k * l..].as_mut_ptr(),
                w[grp * og * k..].as_ptr(),
                (1, k as isize),
                gout[grp * og * l..].as_ptr(),
                (l as isize, 1),
                false,
                gemm_par(g),
            )
        };
    }
    let block = g.win.kernel[0] * g.win.kernel[1] * l;
    for ch in 0..g.c {
        col2im_plane(
            &gcols[ch * block..(ch + 1) * block],
            &mut gx[ch * g.plane()..(ch + 1) * g.plane()],
            g.hw,
            &g.win,
            g.ohw,
            crate::ops::unfold::add,
        );
    }
}

fn grad_input<T: Element>(g: &Geometry, gout: &[T], w: &[T], gx: &mut [T]) {
    let (xi, oi) = (g.c * g.plane(), g.o * g.l());
    each_image(g, gx, xi, |i, gxi, cols| {
        grad_input_image(g, &gout[i * oi..(i + 1) * oi], w, gxi, cols)
    });
}

/// d weight += dOut(image) * columns(image)^T, per group.
fn grad_weight_image<T: Element>(
    g: &Geometry,
    x_img: &[T],
    gout: &[T],
    gw: &mut [T],
    cols: &mut [T],
) {
    unfold_image(g, x_img, cols);
    let (og, k, l) = (g.og(), g.k(), g.l());
    for grp in 0..g.groups {
        unsafe {
            gemm_rm(
                og,
                k,
                l,
                gw[grp * og * k..].as_mut_ptr(),
                gout[grp * og * l..].as_ptr(),
                (l as isize, 1),
                cols[grp * k * l..].as_ptr(),
                (1, l as isize),
                true,
                gemm_par(g),
            )
        };
    }
}

fn grad_weight<T: Element>(g: &Geometry, x: &[T], gout: &[T], gw: &mut [T]) {
    let ws = g.c * g.win.kernel[0] * g.win.kernel[1] * g.l();
    let (xi, oi) = (g.c * g.plane(), g.o * g.l());
    let wlen = gw.len();
    crate::cpu::thread_pool::run_if(crate::cpu::thread_pool::num_threads() > 1, || {
        if image_parallel(g) {
            // Each task sums its images into its own buffer; the buffers are added at the end.
            let per = images_per_task(g);
            let tasks = g.n.div_ceil(per);
            let partials: Vec<Vec<T>> = (0..tasks)
                .into_par_iter()
                .map(|t| {
                    let (mut acc, mut cols) = (vec![T::default(); wlen], workspace::<T>(ws));
                    for i in t * per..((t + 1) * per).min(g.n) {
                        grad_weight_image(
                            g,
                            &x[i * xi..(i + 1) * xi],
                            &gout[i * oi..(i + 1) * oi],
                            &mut acc,
                            &mut cols,
                        );
                    }
                    acc
                })
                .collect();
            let mut total = vec![T::default(); wlen];
            for p in partials {
                for (x, y) in total.iter_mut().zip(p) {
                    *x = crate::ops::unfold::add(*x, y);
                }
            }
            gw.copy_from_slice(&total);
        } else {
            let mut cols = workspace::<T>(ws);
            for i in 0..g.n {
                grad_weight_image(
                    g,
                    &x[i * xi..(i + 1) * xi],
                    &gout[i * oi..(i + 1) * oi],
                    gw,
                    &mut cols,
                );
            }
        }
    })
}

impl Tensor {
    /// conv2d through the fused per-image kernels (f32 and f64; contiguous copies of the
    /// operands are taken once). Arguments were checked by `conv2d`.
    pub(crate) fn conv2d_fused(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: Window,
        groups: usize,
        ohw: [usize; 2],
    ) -> Result<Tensor> {
        let (x, w) = (
            self.contiguous_copy_if_needed(),
            weight.contiguous_copy_if_needed(),
        );
        let b = bias.map(|b| b.contiguous_copy_if_needed());
        let geo = Geometry {
            n: x.shape()[0],
            c: x.shape()[1],
            hw: [x.shape()[2], x.shape()[3]],
            o: w.shape()[0],
            groups,
            win,
            ohw,
        };
        let out = Tensor::zeros(&[geo.n, geo.o, ohw[0], ohw[1]], x.dtype());
        if out.numel() > 0 {
            float_only!(x.dtype(), T => forward::<T>(
                &geo,
                x.contiguous_slice(),
                w.contiguous_slice(),
                b.as_ref().map(|b| b.contiguous_slice::<T>()),
                unsafe { out.contiguous_slice_mut() },
            ));
        }
        let mut inputs = vec![self, weight];
        if let Some(b) = bias {
            inputs.push(b);
        }
        let has_bias = bias.is_some();
        Ok(record(
            "ConvolutionBackward0",
            out,
            &inputs,
            &[self, weight],
            false,
            move |gout, s| {
                let (x, w) = (&s[0], &s[1]);
                if is_grad_enabled() {
                    return conv2d_backward_differentiable(gout, x, w, &geo, has_bias);
                }
                let gout = gout.contiguous_copy_if_needed();
                let xc = x.contiguous_copy_if_needed();
                let wc = w.contiguous_copy_if_needed();
                let gx = if x.requires_grad() {
                    let gx = Tensor::zeros(x.shape(), x.dtype());
                    float_only!(x.dtype(), T => grad_input::<T>(&geo, gout.contiguous_slice(), wc.contiguous_slice(), unsafe { gx.contiguous_slice_mut() }));
                    Some(gx)
                } else {
                    None
                };
                let gw = if w.requires_grad() {
                    let gw = Tensor::zeros(w.shape(), w.dtype());
                    float_only!(x.dtype(), T => grad_weight::<T>(&geo, xc.contiguous_slice(), gout.contiguous_slice(), unsafe { gw.contiguous_slice_mut() }));
                    Some(gw)
                } else {
                    None
                };
                let mut grads = vec![gx, gw];
                if has_bias {
                    grads.push(Some(gout.sum_dims(&[0, 2, 3], false)?));
                }
                Ok(grads)
            },
        ))
    }
}

/// The backward in differentiable ops (unfold, matmul, fold), for create_graph.
fn conv2d_backward_differentiable(
    gout: &Tensor,
    x: &Tensor,
    w: &Tensor,
    g: &Geometry,
    with_bias: bool,
) -> Result<Vec<Option<Tensor>>> {
    let (n, grp, og, k, l) = (
        g.n as i64,
        g.groups as i64,
        g.og() as i64,
        g.k() as i64,
        g.l() as i64,
    );
    let gmat = gout.reshape(&[n, grp, og, l])?;
    let wmat = w.reshape(&[grp, og, k])?;
    let gx = if x.requires_grad() {
        let gcols = wmat.transpose(-1, -2)?.matmul(&gmat)?; // [N, G, K, L]
        let gcols = gcols.reshape(&[n, grp * k, l])?;
        Some(gcols.col2im(g.hw, g.win)?)
    } else {
        None
    };
    let gw = if w.requires_grad() {
        let cols = x.im2col(g.win)?.reshape(&[n, grp, k, l])?;
        let per_image = gmat.matmul(&cols.transpose(-1, -2)?)?; // [N, G, og, K]
        Some(
            per_image
                .sum_dims(&[0], false)?
                .reshape(&w.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())?,
        )
    } else {
        None
    };
    let mut grads = vec![gx, gw];
    if with_bias {
        grads.push(Some(gout.sum_dims(&[0, 2, 3], false)?));
    }
    Ok(grads)
}

/// Whether the fused kernels take this dtype.
pub(crate) fn fused_dtype(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F64)
}

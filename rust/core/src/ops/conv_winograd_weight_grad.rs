//! The filter gradient of a Winograd F(2x2, 3x3) convolution: the transpose of the forward's
//! bilinear form, dW = G^T [sum over tiles of (A dy A^T) * (B^T d B)] G, so the sum over
//! tiles is 16 products ([O][tiles] x [tiles][C]) accumulated block by block.

use crate::cpu::gemm_any::gemm_any;
use crate::cpu::parallel::SharedOut;
use crate::cpu::sgemm::{Dims, MatMut, MatRef};
use crate::cpu::thread_pool;
use crate::ops::conv_kernels::Geometry;
use crate::ops::conv_scratch::{with_scratch, ConvFloat};
use crate::ops::conv_winograd::{
    for_each_index, half, images_per_block, tiles, transform_channel, POS,
};
use gemm::Parallelism;
use rayon::prelude::*;

/// A dy A^T of every 2x2 tile of output-gradient plane (b, o) into `d` ([16][O][P]); a tile
/// past the output's edge counts its missing positions as zero.
///
/// # Safety
/// `d` holds 16 * O * P elements; no other task writes plane (b, o)'s places.
unsafe fn transform_grad_plane<T: ConvFloat>(
    g: &Geometry,
    gout_imgs: &[T],
    nb: usize,
    b: usize,
    o: usize,
    d: &SharedOut<T>,
) {
    let [th, tw] = tiles(g);
    let [oh, ow] = g.ohw;
    let p_all = nb * th * tw;
    let plane = &gout_imgs[(b * g.o + o) * oh * ow..(b * g.o + o + 1) * oh * ow];
    let wp = 2 * tw;
    let mut rows = vec![T::default(); 2 * wp];
    for ti in 0..th {
        for r in 0..2 {
            let row = &mut rows[r * wp..(r + 1) * wp];
            let y = 2 * ti + r;
            if y < oh {
                row[..ow].copy_from_slice(&plane[y * ow..(y + 1) * ow]);
                row[ow..].fill(T::default());
            } else {
                row.fill(T::default());
            }
        }
        let (y0, y1) = rows.split_at(wp);
        let p0 = (b * th + ti) * tw;
        // Rows of A dy: y0, y0 + y1, y0 - y1, -y1; then each row [p, q] times A^T.
        for i in 0..4 {
            let base = |j: usize| d.at(((i * 4 + j) * g.o + o) * p_all + p0);
            let (d0, d1, d2, d3) = (base(0), base(1), base(2), base(3));
            for tj in 0..tw {
                let (a0, a1, c0, c1) = (y0[2 * tj], y0[2 * tj + 1], y1[2 * tj], y1[2 * tj + 1]);
                let zero = T::default();
                let (p, q) = match i {
                    0 => (a0, a1),
                    1 => (a0 + c0, a1 + c1),
                    2 => (a0 - c0, a1 - c1),
                    _ => (zero - c0, zero - c1),
                };
                *d0.add(tj) = p;
                *d1.add(tj) = p + q;
                *d2.add(tj) = p - q;
                *d3.add(tj) = zero - q;
            }
        }
    }
}

/// Adds the 16 tile sums of `nb` images into `acc` ([16][O][C]).
fn accumulate_block<T: ConvFloat>(
    g: &Geometry,
    x_imgs: &[T],
    gout_imgs: &[T],
    nb: usize,
    acc: &mut [T],
    parallel: bool,
) {
    let [th, tw] = tiles(g);
    let p = nb * th * tw;
    let (v_len, d_len) = (POS * g.c * p, POS * g.o * p);
    with_scratch::<T, _>(v_len + d_len, |ws| {
        let (v, d) = ws.split_at_mut(v_len);
        let (vp, dp) = (
            SharedOut::new(v.as_mut_ptr()),
            SharedOut::new(d.as_mut_ptr()),
        );
        // SAFETY: each channel, and each gradient plane, writes only its own places.
        for_each_index(parallel, g.c, |c| unsafe {
            transform_channel(g, x_imgs, nb, c, &vp)
        });
        for_each_index(parallel, nb * g.o, |bo| unsafe {
            transform_grad_plane(g, gout_imgs, nb, bo / g.o, bo % g.o, &dp)
        });
        let (v, d): (&[T], &[T]) = (v, d);
        let ap = SharedOut::new(acc.as_mut_ptr());
        for_each_index(parallel, POS, |xi| unsafe {
            gemm_any(
                Dims {
                    m: g.o,
                    n: g.c,
                    k: p,
                },
                MatRef {
                    ptr: d[xi * g.o * p..].as_ptr(),
                    rs: p as isize,
                    cs: 1,
                },
                // V's [C][P] read as [P][C].
                MatRef {
                    ptr: v[xi * g.c * p..].as_ptr(),
                    rs: 1,
                    cs: p as isize,
                },
                // Each product adds into its own [O][C] slice.
                MatMut {
                    ptr: ap.at(xi * g.o * g.c),
                    rs: g.c as isize,
                    cs: 1,
                },
                true,
                Parallelism::None,
            )
        });
    })
}

/// Filter gradient [O, C, 3, 3] of a convolution satisfying `conv_winograd::applies`, from
/// contiguous `x` and `gout`, written into `gw`.
pub(crate) fn weight_grad<T: ConvFloat>(g: &Geometry, x: &[T], gout: &[T], gw: &mut [T]) {
    let (xi, oi) = (g.c * g.hw[0] * g.hw[1], g.o * g.l());
    let threads = thread_pool::num_threads();
    // With images enough, one task per thread with its own sum (added in task order at the
    // end, the same result on every run); else one task whose phases use all threads.
    let tasks = if threads > 1 && g.n >= threads {
        threads
    } else {
        1
    };
    let per_task = g.n.div_ceil(tasks).max(1);
    let phases_parallel = threads > 1 && tasks == 1;
    let per_block = images_per_block(g, per_task);
    let run_task = |t: usize| {
        let mut acc = vec![T::default(); POS * g.o * g.c];
        let (first, last) = ((t * per_task).min(g.n), ((t + 1) * per_task).min(g.n));
        for i in (first..last).step_by(per_block) {
            let nb = per_block.min(last - i);
            accumulate_block(
                g,
                &x[i * xi..(i + nb) * xi],
                &gout[i * oi..(i + nb) * oi],
                nb,
                &mut acc,
                phases_parallel,
            );
        }
        acc
    };
    let partials: Vec<Vec<T>> = thread_pool::run_if(threads > 1, || {
        if tasks > 1 {
            (0..tasks).into_par_iter().map(run_task).collect()
        } else {
            vec![run_task(0)]
        }
    });
    let mut parts = partials.into_iter();
    let mut m = parts.next().unwrap_or_default();
    for p in parts {
        m.iter_mut().zip(&p).for_each(|(a, &b)| *a = *a + b);
    }
    // dW = G^T m G for every (o, c): rows m0 + (m1 + m2)/2, (m1 - m2)/2, (m1 + m2)/2 + m3.
    let at = |xi: usize, oc: usize| m[xi * g.o * g.c + oc];
    for oc in 0..g.o * g.c {
        let col = |j: usize| (at(j, oc), at(4 + j, oc), at(8 + j, oc), at(12 + j, oc));
        let t: [[T; 4]; 3] = [
            std::array::from_fn(|j| {
                let (m0, m1, m2, _) = col(j);
                m0 + half(m1 + m2)
            }),
            std::array::from_fn(|j| {
                let (_, m1, m2, _) = col(j);
                half(m1 - m2)
            }),
            std::array::from_fn(|j| {
                let (_, m1, m2, m3) = col(j);
                half(m1 + m2) + m3
            }),
        ];
        for (u, r) in t.iter().enumerate() {
            let (a, b, c, d) = (r[0], r[1], r[2], r[3]);
            let dst = &mut gw[oc * 9 + u * 3..oc * 9 + u * 3 + 3];
            dst[0] = a + half(b + c);
            dst[1] = half(b - c);
            dst[2] = half(b + c) + d;
        }
    }
}

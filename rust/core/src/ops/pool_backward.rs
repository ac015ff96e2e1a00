//! max_pool2d's backward as one pass: each output's gradient is added at its argmax in a
//! zeroed input gradient, plane by plane in parallel (the indices are flat within a plane).
//! It replaces reshape + scatter_add, which cloned a zero tensor and walked generic strides.

use crate::ops::unfold::add;
use crate::{with_dtype, DType, Element, Tensor};
use rayon::prelude::*;

/// Input gradient of shape `[n, c, h, w]` from the pooled gradient `g` and the argmax
/// indices `idx` (both `[n, c, oh, ow]`, `idx` contiguous int64 from the forward).
pub(crate) fn max_pool2d_input_grad(
    g: &Tensor,
    idx: &Tensor,
    shape: [usize; 4],
) -> crate::Result<Tensor> {
    let g = g.contiguous_copy_if_needed()?;
    let gx = Tensor::zeros(&shape, g.dtype())?;
    let (plane, pooled) = (
        shape[2] * shape[3],
        idx.numel() / (shape[0] * shape[1]).max(1),
    );
    if gx.numel() == 0 || pooled == 0 {
        return Ok(gx);
    }
    debug_assert_eq!(idx.dtype(), DType::I64);
    let ix = idx.contiguous_slice::<i64>();
    with_dtype!(g.dtype(), T => {
        let src = g.contiguous_slice::<T>();
        let dst: &mut [T] = unsafe { gx.contiguous_slice_mut() };
        let one_plane = |(p, d): (usize, &mut [T])| {
            scatter_plane(&src[p * pooled..(p + 1) * pooled], &ix[p * pooled..(p + 1) * pooled], d)
        };
        if crate::cpu::parallel::worth(dst.len()) {
            crate::cpu::thread_pool::run(|| dst.par_chunks_mut(plane).enumerate().for_each(one_plane));
        } else {
            dst.chunks_mut(plane).enumerate().for_each(one_plane);
        }
    });
    Ok(gx)
}

fn scatter_plane<T: Element>(g: &[T], idx: &[i64], plane: &mut [T]) {
    for (&v, &i) in g.iter().zip(idx) {
        let p = &mut plane[i as usize];
        *p = add(*p, v);
    }
}

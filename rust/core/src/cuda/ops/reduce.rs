//! Reductions over any set of dims on the device: the kept dims and the reduced dims are
//! passed to the kernel as two strided views of the same input, so nothing is permuted first.

use super::{base, empty, first_element};
use crate::cuda::launch::reduce::{max_with_indices, reduce as launch, ReduceOp};
use crate::cuda::launch::Strided;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Result, Tensor};
use std::sync::Arc;

/// The kept and reduced dims of `t` as two strided views of it, their element counts and
/// the output's shape (keepdim as PyTorch's).
struct Split {
    outer: Strided,
    inner: Strided,
    n_out: usize,
    n_inner: usize,
    out_shape: Vec<usize>,
}

fn split(t: &Tensor, dims: &[usize], keepdim: bool) -> Result<Split> {
    let (shape, strides) = (t.shape(), t.strides());
    let (mut keep_shape, mut keep_strides, mut red_shape, mut red_strides) =
        (vec![], vec![], vec![], vec![]);
    let mut out_shape = vec![];
    for d in 0..t.ndim() {
        if dims.contains(&d) {
            red_shape.push(shape[d]);
            red_strides.push(strides[d]);
            if keepdim {
                out_shape.push(1);
            }
        } else {
            keep_shape.push(shape[d]);
            keep_strides.push(strides[d]);
            out_shape.push(shape[d]);
        }
    }
    Ok(Split {
        outer: Strided::from_parts(&keep_shape, &keep_strides, t.offset(), "reduce")?,
        inner: Strided::from_parts(&red_shape, &red_strides, 0, "reduce")?,
        n_out: keep_shape.iter().product(),
        n_inner: red_shape.iter().product(),
        out_shape,
    })
}

/// `op` of `t` over `dims` (sorted, distinct), output in `out_dt`, keepdim as PyTorch's.
pub fn reduce(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dims: &[usize],
    keepdim: bool,
    op: ReduceOp,
    out_dt: DType,
) -> Result<Tensor> {
    let sp = split(t, dims, keepdim)?;
    let out = empty(dev, &sp.out_shape, out_dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        launch(
            dev.as_ref(),
            &stream,
            op,
            base(t)?,
            t.dtype(),
            &sp.outer,
            &sp.inner,
            base(&out)?,
            out_dt,
            sp.n_out,
            sp.n_inner,
        )
    })?;
    Ok(out)
}

/// `max(dim)` / `min(dim)` of `t` over `dims` (one dim, or none for a 0-d tensor): values
/// and int64 indices of the first extreme (a NaN wins), keepdim as PyTorch's. The reduced
/// dim is not empty (the caller checked).
pub fn max_dim(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dims: &[usize],
    keepdim: bool,
    is_max: bool,
) -> Result<(Tensor, Tensor)> {
    let sp = split(t, dims, keepdim)?;
    let vals = empty(dev, &sp.out_shape, t.dtype())?;
    let idx = empty(dev, &sp.out_shape, DType::I64)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        max_with_indices(
            dev.as_ref(),
            &stream,
            base(t)?,
            t.dtype(),
            &sp.outer,
            &sp.inner,
            first_element(&vals)?,
            first_element(&idx)?,
            sp.n_out,
            sp.n_inner,
            is_max,
        )
    })?;
    Ok((vals, idx))
}

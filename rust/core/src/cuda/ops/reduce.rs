//! Reductions over any set of dims on the device: the kept dims and the reduced dims are
//! passed to the kernel as two strided views of the same input, so nothing is permuted first.

use super::{base, empty};
use crate::cuda::launch::reduce::{reduce as launch, ReduceOp};
use crate::cuda::launch::Strided;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Result, Tensor};
use std::sync::Arc;

/// `op` of `t` over `dims` (sorted, distinct), output in `out_dt`, keepdim as PyTorch's.
pub fn reduce(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dims: &[usize],
    keepdim: bool,
    op: ReduceOp,
    out_dt: DType,
) -> Result<Tensor> {
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
    let outer = Strided::from_parts(&keep_shape, &keep_strides, t.offset(), "reduce")?;
    let inner = Strided::from_parts(&red_shape, &red_strides, 0, "reduce")?;
    let (n_out, n_inner) = (keep_shape.iter().product(), red_shape.iter().product());
    let out = empty(dev, &out_shape, out_dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        launch(
            dev.as_ref(),
            &stream,
            op,
            base(t)?,
            t.dtype(),
            &outer,
            &inner,
            base(&out)?,
            out_dt,
            n_out,
            n_inner,
        )
    })?;
    Ok(out)
}

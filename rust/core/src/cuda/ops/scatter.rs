//! scatter and scatter_add on the device (kernels in `index.cu`): the input is copied once
//! and the source values are written into the copy at the indexed positions.

use super::select::{on_device, view_1d, ErrorFlag};
use super::{base, copy::copy_as};
use crate::cuda::launch::{index as li, Strided};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Error, Result, Tensor};
use std::sync::Arc;

/// `x.scatter(d, index, src)` (`add`: scatter_add) out of place. `x` and `index` are at least
/// 1-D and their shapes were checked; `src` has index's rank (only the part that index covers
/// is read) or is a scalar broadcast over index.
pub fn scatter(
    dev: &Arc<DeviceState>,
    op: &str,
    x: &Tensor,
    d: usize,
    index: &Tensor,
    src: &Tensor,
    add: bool,
) -> Result<Tensor> {
    let idx = on_device(dev, index, DType::I64)?;
    let src = on_device(dev, src, x.dtype())?;
    let iv = view_1d(&idx, op)?;
    let sv = if src.ndim() == idx.ndim() {
        // The source's strides over index's shape: the leading block of src that is read.
        Strided::from_parts(idx.shape(), src.strides(), src.offset(), op)?
    } else {
        Strided::of(src.broadcast_to(idx.shape())?.layout(), op)?
    };
    let out = copy_as(dev, x, x.dtype())?;
    let flag = ErrorFlag::new(dev)?;
    let reduce = if add {
        li::ScatterReduce::Add
    } else {
        li::ScatterReduce::None
    };
    let stream = dev.streams.current()?;
    with_context(dev, || {
        li::scatter(
            dev.as_ref(),
            &stream,
            x.dtype(),
            reduce,
            base(&out)?,
            &view_1d(&out, op)?,
            d,
            base(&idx)?,
            &iv,
            base(&src)?,
            &sv,
            idx.numel(),
            flag.ptr()?,
        )
    })?;
    // The host raises a RuntimeError here (an IndexError is index_select's).
    flag.check(op, x.shape()[d]).map_err(|_| {
        Error::runtime(format!(
            "{op}(): index out of bounds for dimension {d} with size {}",
            x.shape()[d]
        ))
    })?;
    Ok(out)
}

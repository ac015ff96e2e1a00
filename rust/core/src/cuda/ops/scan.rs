//! cumsum / cumprod along one dim on the device: one thread per line of the strided input.

use super::{base, empty};
use crate::cuda::launch::scan::{scan as launch, scan_out_dtype, ScanOp};
use crate::cuda::launch::Strided;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{Result, Tensor};
use std::sync::Arc;

/// The running sum (or product) of `x` (at least 1-D) along `dim`, contiguous; floats keep
/// their dtype, integers and bool give int64.
pub fn scan(dev: &Arc<DeviceState>, x: &Tensor, dim: usize, prod: bool) -> Result<Tensor> {
    let (op, name) = if prod {
        (ScanOp::CumProd, "cumprod")
    } else {
        (ScanOp::CumSum, "cumsum")
    };
    let out = empty(dev, x.shape(), scan_out_dtype(x.dtype()))?;
    let view = Strided::of(x.layout(), name)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        launch(
            dev.as_ref(),
            &stream,
            op,
            base(x)?,
            &view,
            dim,
            base(&out)?,
            x.dtype(),
        )
    })?;
    Ok(out)
}

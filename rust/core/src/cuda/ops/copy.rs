//! Copies and casts on the device: `contiguous`, `to(dtype)`, `clone`, `copy_` all end here.

use super::{base, empty};
use crate::cuda::launch::{copy::strided_copy, Strided};
use crate::cuda::runtime::DeviceState;
use crate::{DType, Result, Tensor};
use std::sync::Arc;

/// A fresh contiguous copy of `t` (any layout) in `dtype`, on `t`'s device.
pub fn copy_as(dev: &Arc<DeviceState>, t: &Tensor, dtype: DType) -> Result<Tensor> {
    let out = empty(dev, t.shape(), dtype)?;
    copy_into(dev, t, &out)?;
    Ok(out)
}

/// Writes `src`'s elements (row-major) into `dst`'s view, converting dtypes.
pub fn copy_into(dev: &Arc<DeviceState>, src: &Tensor, dst: &Tensor) -> Result<()> {
    let n = dst.numel();
    if n == 0 {
        return Ok(());
    }
    let (sv, dv) = (
        Strided::of(src.layout(), "copy_")?,
        Strided::of(dst.layout(), "copy_")?,
    );
    let stream = dev.streams.current()?;
    crate::cuda::runtime::with_context(dev, || {
        strided_copy(
            dev.as_ref(),
            &stream,
            base(src)?,
            &sv,
            src.dtype(),
            base(dst)?,
            &dv,
            dst.dtype(),
            n,
        )
    })
}

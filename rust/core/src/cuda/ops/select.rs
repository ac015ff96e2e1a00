//! Selections on the device: `where`, `gather`, `index_select` and `index_add` (the forward
//! and backward of embeddings). Index kernels flag an out-of-range index on the device and
//! skip it; the flag is read back (one sync) so the error reaches the caller as on the CPU.

use super::{base, copy::copy_as, elementwise::operand, empty, first_element, zeros};
use crate::cuda::launch::{index as li, ternary as lt, Strided};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Device, Error, Result, Scalar, Tensor};
use std::sync::Arc;

/// `t` on `dev` (a 0-d host tensor, which dispatch lets join a CUDA op, is copied over).
pub(super) fn to_device(dev: &Arc<DeviceState>, t: &Tensor) -> Result<Tensor> {
    if t.device() == Device::Cpu {
        t.to_device(Device::Cuda(dev.index))
    } else {
        Ok(t.clone())
    }
}

/// `t` on `dev` in `dt`.
pub(super) fn on_device(dev: &Arc<DeviceState>, t: &Tensor, dt: DType) -> Result<Tensor> {
    let t = to_device(dev, t)?;
    if t.dtype() == dt {
        Ok(t)
    } else {
        copy_as(dev, &t, dt)
    }
}

/// A view with at least one dim (the index kernels' convention for 0-d tensors).
pub(super) fn view_1d(t: &Tensor, op: &str) -> Result<Strided> {
    if t.ndim() == 0 {
        Strided::from_parts(&[1], &[1], t.offset(), op)
    } else {
        Strided::of(t.layout(), op)
    }
}

/// A zeroed device error flag, and the check that reads it back after the launches.
pub(super) struct ErrorFlag(Tensor);

impl ErrorFlag {
    pub(super) fn new(dev: &Arc<DeviceState>) -> Result<ErrorFlag> {
        Ok(ErrorFlag(zeros(dev, &[1], DType::I32)?))
    }
    pub(super) fn ptr(&self) -> Result<u64> {
        base(&self.0)
    }
    pub(super) fn check(&self, op: &str, size: usize) -> Result<()> {
        match self.0.to_device(Device::Cpu)?.item()? {
            Scalar::Int(0) => Ok(()),
            _ => Err(Error::Index(format!(
                "{op}(): index out of range for a dimension of size {size}"
            ))),
        }
    }
}

/// `cond ? a : b` broadcast to `shape`, computing in `dt`.
pub fn where_(
    dev: &Arc<DeviceState>,
    cond: &Tensor,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    dt: DType,
) -> Result<Tensor> {
    let (c, vc) = operand(dev, &to_device(dev, cond)?, DType::Bool, shape, "where")?;
    let (ta, va) = operand(dev, &to_device(dev, a)?, dt, shape, "where")?;
    let (tb, vb) = operand(dev, &to_device(dev, b)?, dt, shape, "where")?;
    let out = empty(dev, shape, dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lt::where_(
            dev.as_ref(),
            &stream,
            dt,
            base(&c)?,
            &vc,
            base(&ta)?,
            &va,
            base(&tb)?,
            &vb,
            base(&out)?,
            out.numel(),
        )
    })?;
    Ok(out)
}

/// `x.gather(d, index)` (x and index at least 1-D, shapes already checked).
pub fn gather(dev: &Arc<DeviceState>, x: &Tensor, index: &Tensor, d: usize) -> Result<Tensor> {
    let idx = on_device(dev, index, DType::I64)?;
    let out = empty(dev, index.shape(), x.dtype())?;
    let flag = ErrorFlag::new(dev)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        li::gather(
            dev.as_ref(),
            &stream,
            x.dtype(),
            base(x)?,
            &view_1d(x, "gather")?,
            d,
            base(&idx)?,
            &view_1d(&idx, "gather")?,
            base(&out)?,
            out.numel(),
            flag.ptr()?,
        )
    })?;
    flag.check("gather", x.shape()[d])?;
    Ok(out)
}

/// `x.index_select(d, index)` for a 1-D (or 0-d) index; `x` at least 1-D.
pub fn index_select(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    d: usize,
    index: &Tensor,
) -> Result<Tensor> {
    let idx = dense_i64(dev, index)?;
    let mut shape = x.shape().to_vec();
    shape[d] = idx.numel();
    let out = empty(dev, &shape, x.dtype())?;
    let flag = ErrorFlag::new(dev)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        li::index_select(
            dev.as_ref(),
            &stream,
            x.dtype(),
            base(x)?,
            &view_1d(x, "index_select")?,
            d,
            first_element(&idx)?,
            idx.numel(),
            base(&out)?,
            out.numel(),
            flag.ptr()?,
        )
    })?;
    flag.check("index_select", x.shape()[d])?;
    Ok(out)
}

/// `x.index_add(d, index, source * alpha)` out of place (`x` at least 1-D, shapes checked).
pub fn index_add(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    d: usize,
    index: &Tensor,
    source: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    let idx = dense_i64(dev, index)?;
    // Shapes were checked before dispatch (`check_index_add`).
    let src = on_device(dev, source, x.dtype())?;
    let out = copy_as(dev, x, x.dtype())?;
    let flag = ErrorFlag::new(dev)?;
    let stream = dev.streams.current()?;
    let alpha = match alpha {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
        Scalar::Bool(b) => b as i64 as f64,
        _ => return Err(Error::type_error("index_add(): a complex alpha on CUDA")),
    };
    with_context(dev, || {
        li::index_add(
            dev.as_ref(),
            &stream,
            x.dtype(),
            base(&out)?,
            &view_1d(&out, "index_add")?,
            d,
            first_element(&idx)?,
            idx.numel(),
            base(&src)?,
            &view_1d(&src, "index_add")?,
            alpha,
            src.numel(),
            flag.ptr()?,
        )
    })?;
    flag.check("index_add", x.shape()[d])?;
    Ok(out)
}

/// A contiguous int64 copy of a 1-D (or 0-d) index on `dev`.
fn dense_i64(dev: &Arc<DeviceState>, index: &Tensor) -> Result<Tensor> {
    let idx = on_device(dev, index, DType::I64)?;
    super::rows::dense(dev, &idx)
}

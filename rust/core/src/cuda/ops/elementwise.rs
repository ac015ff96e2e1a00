//! Unary and binary ops on the device. Inputs are broadcast by strides (stride 0), never
//! copied; a 0-d host tensor joins as a kernel argument, as PyTorch allows.

use super::{base, copy::copy_as, empty};
use crate::cuda::launch::{binary as lb, unary as lu, Strided};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::layout::Layout;
use crate::ops::{BinaryOp, UnaryOp};
use crate::{DType, Device, Result, Tensor};
use std::sync::Arc;

/// `op(x)` in the dtype PyTorch gives (float32 for float ops on integers).
pub fn unary(dev: &Arc<DeviceState>, op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let out_dt = lu::unary_out_dtype(op, x.dtype())?;
    let out = empty(dev, x.shape(), out_dt)?;
    let view = Strided::of(x.layout(), op.name())?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lu::unary(
            dev.as_ref(),
            &stream,
            op,
            x.dtype(),
            base(x)?,
            &view,
            base(&out)?,
            x.numel(),
        )
    })?;
    Ok(out)
}

/// The fused gradient `g * f'(v)` of relu, gelu, silu (v = x) and tanh, sigmoid (v = y):
/// one pass instead of the composed ops (the backward when no graph is being built).
pub fn unary_backward(
    dev: &Arc<DeviceState>,
    op: UnaryOp,
    g: &Tensor,
    v: &Tensor,
) -> Result<Tensor> {
    let dt = v.dtype();
    let v = v.contiguous_copy_if_needed()?;
    let g = if g.dtype() == dt {
        g.contiguous_copy_if_needed()?
    } else {
        copy_as(dev, g, dt)?
    };
    let out = empty(dev, v.shape(), dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lu::unary_backward(
            dev.as_ref(),
            &stream,
            op,
            dt,
            super::first_element(&g)?,
            super::first_element(&v)?,
            base(&out)?,
            v.numel(),
        )
    })?;
    Ok(out)
}

/// `t` viewed over `shape` with stride 0 on broadcast dims, cast to `dt` first when needed.
pub(super) fn operand(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dt: DType,
    shape: &[usize],
    op: &str,
) -> Result<(Tensor, Strided)> {
    let t = if t.dtype() == dt {
        t.clone()
    } else {
        copy_as(dev, t, dt)?
    };
    let strides = t.layout().broadcast_strides(op, shape)?;
    let view = Layout {
        shape: shape.to_vec(),
        strides,
        offset: t.offset(),
    };
    let s = Strided::of(&view, op)?;
    Ok((t, s))
}

/// `a op b` broadcast to `shape`, computing in `dt` (inputs cast to it), result in `out_dt`.
pub fn binary(
    dev: &Arc<DeviceState>,
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    dt: DType,
    out_dt: DType,
) -> Result<Tensor> {
    let name = op.name();
    let out = empty(dev, shape, out_dt)?;
    let n = out.numel();
    let stream = dev.streams.current()?;
    let host_scalar = |t: &Tensor| t.device() == Device::Cpu;
    with_context(dev, || {
        if host_scalar(b) || host_scalar(a) {
            // A 0-d host tensor rides along as a kernel argument.
            let (dev_t, sc, first) = if host_scalar(b) {
                (a, b, false)
            } else {
                (b, a, true)
            };
            let (t, v) = operand(dev, dev_t, dt, shape, name)?;
            let s = sc.item()?;
            return lb::binary_scalar(
                dev.as_ref(),
                &stream,
                op,
                dt,
                base(&t)?,
                &v,
                s,
                first,
                base(&out)?,
                out_dt,
                n,
            );
        }
        let (ta, va) = operand(dev, a, dt, shape, name)?;
        let (tb, vb) = operand(dev, b, dt, shape, name)?;
        lb::binary(
            dev.as_ref(),
            &stream,
            op,
            dt,
            base(&ta)?,
            &va,
            base(&tb)?,
            &vb,
            base(&out)?,
            out_dt,
            n,
        )
    })?;
    Ok(out)
}

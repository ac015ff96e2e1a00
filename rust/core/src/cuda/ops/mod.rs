//! The CUDA forward of each op that has one. Each function takes tensors already known to be on
//! `dev` (the dispatch in `crate::ops` decided so), allocates its output there, and enqueues its
//! kernel on the current stream without waiting. The backward of every op stays in `crate::ops`,
//! written in tensor ops, so it runs on the GPU through these same forwards.

pub mod conv;
pub mod copy;
pub mod elementwise;
pub mod loss;
pub mod matmul;
pub mod optim;
pub mod pool;
pub mod random;
pub mod reduce;
pub mod rows;
pub mod scan;
pub mod scatter;
pub mod select;

use crate::cuda::runtime::DeviceState;
use crate::layout::Layout;
use crate::{DType, Error, Result, Storage, Tensor};
use std::sync::Arc;

/// A contiguous tensor on `dev` with unspecified contents.
pub fn empty(dev: &Arc<DeviceState>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let nbytes = crate::alloc_size::nbytes_for(shape, dtype.size())?;
    Ok(Tensor::from_parts(
        Storage::cuda_uninit(dev.index, nbytes)?,
        Layout::contiguous(shape),
        dtype,
    ))
}

/// A contiguous zero-filled tensor on `dev` (a memset on the current stream).
pub fn zeros(dev: &Arc<DeviceState>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let t = empty(dev, shape, dtype)?;
    let nbytes = t.numel() * dtype.size();
    if nbytes > 0 {
        let ptr = base(&t)?;
        crate::cuda::runtime::with_context(dev, || {
            let s = dev.streams.current()?;
            crate::cuda::runtime::check(
                unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, nbytes, s.cu_stream()) },
                "zero-filling a tensor",
            )
        })?;
    }
    Ok(t)
}

/// A contiguous tensor on `dev` with every element `value` (as the CPU's `Tensor::full`
/// converts it); zero is a memset.
pub fn full(
    dev: &Arc<DeviceState>,
    shape: &[usize],
    value: crate::Scalar,
    dtype: DType,
) -> Result<Tensor> {
    if matches!(value, crate::Scalar::Int(0) | crate::Scalar::Bool(false)) {
        return zeros(dev, shape, dtype);
    }
    let t = empty(dev, shape, dtype)?;
    let view = crate::cuda::launch::Strided::of(t.layout(), "full")?;
    let stream = dev.streams.current()?;
    crate::cuda::runtime::with_context(dev, || {
        crate::cuda::launch::fill::fill(
            dev.as_ref(),
            &stream,
            base(&t)?,
            &view,
            dtype,
            value,
            t.numel(),
        )
    })?;
    Ok(t)
}

/// The device address of the storage's first byte (views add their offset in the kernel).
pub fn base(t: &Tensor) -> Result<u64> {
    t.storage()
        .cuda_buffer()
        .map(|b| b.ptr)
        .ok_or_else(|| Error::runtime("internal: expected a CUDA tensor"))
}

/// The device address of `t`'s first element (kernels that take plain pointers need this of
/// a contiguous tensor; strided kernels take `base` and the view's offset instead).
pub fn first_element(t: &Tensor) -> Result<u64> {
    Ok(base(t)? + (t.offset() * t.dtype().size()) as u64)
}

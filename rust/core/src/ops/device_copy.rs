//! Moving tensors between devices: `.to(device)`, `.cuda()`, `.cpu()`. Differentiable: the
//! gradient goes back to the source device.

use crate::autograd::record;
use crate::{Device, Result, Tensor};

impl Tensor {
    /// `Tensor.to(device)`: self when already there, else a copy that stays in the graph.
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        self.to_device_with(device, false)
    }

    /// `Tensor.to(device, non_blocking=...)`: with `non_blocking`, a copy from pinned host
    /// memory and a copy to the host (into pinned memory) return before the device is done,
    /// as PyTorch's (read the result after `cuda.synchronize()` or an event).
    pub fn to_device_with(&self, device: Device, non_blocking: bool) -> Result<Tensor> {
        let src = self.device();
        if device == src {
            return Ok(self.clone());
        }
        let out = self.copy_to_device_with(device, non_blocking)?;
        Ok(record(
            "ToCopyBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.to_device(src)?)]),
        ))
    }

    /// `f` of this tensor's host copy, the result moved back to this tensor's device: the
    /// route of the ops that have no CUDA kernel yet. Differentiable (both copies are); it
    /// waits for the device.
    pub(crate) fn through_host(&self, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
        let dev = self.device();
        f(&self.to_device(Device::Cpu)?)?.to_device(dev)
    }

    /// A contiguous copy on `device`, outside autograd.
    pub fn copy_to_device(&self, device: Device) -> Result<Tensor> {
        self.copy_to_device_with(device, false)
    }

    /// `copy_to_device`, asynchronous where `non_blocking` allows (see `to_device_with`).
    pub fn copy_to_device_with(&self, device: Device, non_blocking: bool) -> Result<Tensor> {
        device.check_available()?;
        if device == self.device() {
            return self.contiguous_copy();
        }
        #[cfg(feature = "cuda")]
        {
            transfer(self, device, non_blocking)
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = non_blocking;
            Err(crate::cuda::api::not_compiled())
        }
    }

    /// `Tensor.pin_memory()`: this CPU tensor's values in page-locked memory (self when it
    /// is pinned already). Needs a CUDA driver, as PyTorch's.
    pub fn pin_memory(&self) -> Result<Tensor> {
        if self.device() != Device::Cpu {
            return Err(crate::Error::runtime(format!(
                "cannot pin '{}' tensor on {}: only dense CPU tensors can be pinned",
                self.dtype().name(),
                self.device()
            )));
        }
        if self.storage().is_pinned() {
            return Ok(self.clone());
        }
        #[cfg(feature = "cuda")]
        {
            let index = crate::cuda::api::current_device()?;
            let src = self.contiguous_raw()?;
            let nbytes = src.numel() * src.dtype().size();
            let out = Tensor::from_parts(
                crate::Storage::pinned_uninit(index, nbytes)?,
                crate::layout::Layout::contiguous(src.shape()),
                src.dtype(),
            );
            unsafe {
                let from = src
                    .storage()
                    .slice::<u8>(src.offset() * src.dtype().size(), nbytes);
                out.storage()
                    .slice_mut::<u8>(0, nbytes)
                    .copy_from_slice(from);
            }
            // Differentiable as PyTorch's: the gradient passes through unchanged.
            Ok(record(
                "PinMemoryBackward0",
                out,
                &[self],
                &[],
                false,
                |g, _| Ok(vec![Some(g.clone())]),
            ))
        }
        #[cfg(not(feature = "cuda"))]
        {
            Err(crate::cuda::api::not_compiled())
        }
    }
}

#[cfg(feature = "cuda")]
fn transfer(t: &Tensor, device: Device, non_blocking: bool) -> Result<Tensor> {
    use crate::cuda::runtime::copy;
    use crate::layout::Layout;
    use crate::Storage;
    let src = t.contiguous_raw()?;
    let nbytes = src.numel() * src.dtype().size();
    let byte_off = src.offset() * src.dtype().size();
    // A non-blocking copy to the host lands in pinned memory, which the device writes directly.
    let to_pinned = match (device, t.device()) {
        (Device::Cpu, Device::Cuda(i)) if non_blocking => Some(i),
        _ => None,
    };
    let out = match (device, to_pinned) {
        (Device::Cpu, Some(i)) => Tensor::from_parts(
            Storage::pinned_uninit(i, nbytes)?,
            Layout::contiguous(src.shape()),
            src.dtype(),
        ),
        (Device::Cpu, None) => Tensor::uninit(src.shape(), src.dtype())?,
        (Device::Cuda(i), _) => Tensor::from_parts(
            Storage::cuda_uninit(i, nbytes)?,
            Layout::contiguous(src.shape()),
            src.dtype(),
        ),
    };
    match (src.storage().cuda_buffer(), out.storage().cuda_buffer()) {
        (None, Some(d)) => {
            let bytes = unsafe { src.storage().slice::<u8>(byte_off, nbytes) };
            copy::host_to_device(&d.dev, d.ptr, bytes)?;
            // From pinned memory the copy runs on after the call returns: unless asked not
            // to, wait for it so the caller may change the source at once.
            if src.storage().is_pinned() && !non_blocking {
                copy::synchronize_current(&d.dev)?;
            }
        }
        (Some(s), None) if to_pinned.is_some() => {
            let bytes = unsafe { out.storage().slice_mut::<u8>(0, nbytes) };
            // SAFETY: `out` is pinned, and its storage waits for the device before freeing.
            unsafe { copy::device_to_host_async(&s.dev, s.ptr + byte_off as u64, bytes)? };
        }
        (Some(s), None) => {
            let bytes = unsafe { out.storage().slice_mut::<u8>(0, nbytes) };
            copy::device_to_host(&s.dev, s.ptr + byte_off as u64, bytes)?;
        }
        (Some(s), Some(d)) => copy::peer(&d.dev, d.ptr, &s.dev, s.ptr + byte_off as u64, nbytes)?,
        (None, None) => unreachable!("copy_to_device between two host tensors"),
    }
    Ok(out)
}

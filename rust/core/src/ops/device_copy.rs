//! Moving tensors between devices: `.to(device)`, `.cuda()`, `.cpu()`. Differentiable: the
//! gradient goes back to the source device.

use crate::autograd::record;
use crate::{Device, Result, Tensor};

impl Tensor {
    /// `Tensor.to(device)`: self when already there, else a copy that stays in the graph.
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        let src = self.device();
        if device == src {
            return Ok(self.clone());
        }
        let out = self.copy_to_device(device)?;
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
        device.check_available()?;
        if device == self.device() {
            return self.contiguous_copy();
        }
        #[cfg(feature = "cuda")]
        {
            transfer(self, device)
        }
        #[cfg(not(feature = "cuda"))]
        {
            Err(crate::cuda::api::not_compiled())
        }
    }
}

#[cfg(feature = "cuda")]
fn transfer(t: &Tensor, device: Device) -> Result<Tensor> {
    use crate::cuda::runtime::copy;
    use crate::layout::Layout;
    use crate::Storage;
    let src = t.contiguous_raw()?;
    let nbytes = src.numel() * src.dtype().size();
    let byte_off = src.offset() * src.dtype().size();
    let out = match device {
        Device::Cpu => Tensor::uninit(src.shape(), src.dtype())?,
        Device::Cuda(i) => Tensor::from_parts(
            Storage::cuda_uninit(i, nbytes)?,
            Layout::contiguous(src.shape()),
            src.dtype(),
        ),
    };
    match (src.storage().cuda_buffer(), out.storage().cuda_buffer()) {
        (None, Some(d)) => {
            let bytes = unsafe { src.storage().slice::<u8>(byte_off, nbytes) };
            copy::host_to_device(&d.dev, d.ptr, bytes)?;
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

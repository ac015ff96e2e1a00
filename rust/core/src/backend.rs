//! Per-op dispatch: which backend runs an op, from where its inputs live. PyTorch's rule: all
//! tensors on one device, except that a 0-d CPU tensor may join a CUDA op as a scalar.

use crate::{Device, Error, Result, Tensor};

/// Where an op runs.
pub enum Backend {
    Cpu,
    /// A GPU, with its state (context, streams, allocator, kernels).
    #[cfg(feature = "cuda")]
    Cuda(std::sync::Arc<crate::cuda::runtime::DeviceState>),
}

/// The backend for `op` over `inputs`, or PyTorch's error when they sit on different devices.
#[inline]
pub fn backend(op: &str, inputs: &[&Tensor]) -> Result<Backend> {
    let target = inputs
        .iter()
        .map(|t| t.device())
        .find(|d| *d != Device::Cpu)
        .unwrap_or(Device::Cpu);
    if target != Device::Cpu {
        for t in inputs {
            let d = t.device();
            if d != target && !(d == Device::Cpu && t.ndim() == 0) {
                return Err(Error::runtime(format!(
                    "Expected all tensors to be on the same device, but found at least two \
                     devices, {target} and {d}! (when checking arguments for {op})"
                )));
            }
        }
    }
    on(target)
}

/// The backend of one device.
pub fn on(dev: Device) -> Result<Backend> {
    match dev {
        Device::Cpu => Ok(Backend::Cpu),
        #[cfg(feature = "cuda")]
        Device::Cuda(i) => Ok(Backend::Cuda(crate::cuda::runtime::device(i)?)),
        #[cfg(not(feature = "cuda"))]
        Device::Cuda(_) => Err(crate::cuda::api::not_compiled()),
    }
}

/// The GPU an op runs on, or None for the host (the check every op with a CUDA forward does).
#[cfg(feature = "cuda")]
#[inline(always)]
pub fn cuda_of(
    op: &str,
    inputs: &[&Tensor],
) -> Result<Option<std::sync::Arc<crate::cuda::runtime::DeviceState>>> {
    match backend(op, inputs)? {
        Backend::Cpu => Ok(None),
        Backend::Cuda(d) => {
            refuse_complex_on_cuda(op, inputs)?;
            Ok(Some(d))
        }
    }
}

/// ferrotorch has no complex CUDA kernels: a complex input is refused before any launch.
#[cfg(feature = "cuda")]
#[cold]
#[inline(never)]
fn refuse_complex_on_cuda(op: &str, inputs: &[&Tensor]) -> Result<()> {
    match inputs.iter().find(|t| t.dtype().is_complex()) {
        Some(t) => Err(Error::NotImplemented(format!(
            "\"{op}_cuda\" not implemented for '{}' (ferrotorch has no complex CUDA kernels)",
            t.dtype().scalar_type_name()
        ))),
        None => Ok(()),
    }
}

/// `Some(result of $body)` when any input is on a GPU (`$d` bound to its state), else `None`
/// for the host path. Without the `cuda` feature the body is not compiled and this is `None`.
#[macro_export]
macro_rules! cuda_forward {
    ($op:expr, [$($t:expr),*], |$d:ident| $body:expr) => {{
        #[cfg(feature = "cuda")]
        let r = match $crate::backend::cuda_of($op, &[$($t),*])? {
            Some($d) => Some($body),
            None => None,
        };
        #[cfg(not(feature = "cuda"))]
        let r: Option<$crate::Result<_>> = {
            let _ = $op;
            None
        };
        r
    }};
}

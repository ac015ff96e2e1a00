//! Devices. CPU always works; CUDA needs the `cuda` feature and a driver at run time.

use crate::{Error, Result};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    Cuda(usize),
}

impl Device {
    /// Parses `"cpu"`, `"cuda"`, `"cuda:1"`.
    pub fn parse(s: &str) -> Result<Device> {
        let s = s.trim();
        if s == "cpu" {
            return Ok(Device::Cpu);
        }
        if s == "cuda" {
            return Ok(Device::Cuda(0));
        }
        if let Some(idx) = s.strip_prefix("cuda:") {
            if let Ok(i) = idx.parse() {
                return Ok(Device::Cuda(i));
            }
        }
        if let Some(idx) = s.strip_prefix("cpu:") {
            if idx.parse::<usize>().is_ok() {
                return Ok(Device::Cpu);
            }
        }
        Err(Error::runtime(format!(
            "Expected one of cpu, cuda device type at start of device string: {s}"
        )))
    }

    pub fn type_name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Cuda(_) => "cuda",
        }
    }

    /// Fails unless the device can hold tensors in this build.
    pub fn check_available(self) -> Result<()> {
        match self {
            Device::Cpu => Ok(()),
            #[cfg(feature = "cuda")]
            Device::Cuda(i) => crate::cuda::runtime::device(i).map(|_| ()),
            #[cfg(not(feature = "cuda"))]
            Device::Cuda(_) => Err(crate::cuda::api::not_compiled()),
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::Cpu => write!(f, "cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

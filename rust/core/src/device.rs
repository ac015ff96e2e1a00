//! Devices. CPU always works; CUDA is a seam for the cuda backend (a later piece of work).

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
            Device::Cuda(_) => Err(Error::runtime(
                "Torch not compiled with CUDA enabled: this ferrotorch build has no CUDA backend \
                 (build with the `cuda` cargo feature)",
            )),
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

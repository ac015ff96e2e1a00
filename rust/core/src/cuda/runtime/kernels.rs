//! Kernel modules compiled by NVRTC for this device's architecture at first use, then loaded
//! once per device and kept.

use super::device::DeviceState;
use crate::cuda::kernels::KernelModule;
use crate::cuda::launch::Kernels;
use crate::{Error, Result};
use cudarc::driver::{CudaFunction, CudaModule};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct ModuleCache(Mutex<HashMap<&'static str, Arc<CudaModule>>>);

impl Kernels for DeviceState {
    fn function(&self, module: &'static KernelModule, name: &str) -> Result<CudaFunction> {
        let m = {
            let mut cache = self.modules.0.lock().unwrap_or_else(|e| e.into_inner());
            match cache.get(module.name) {
                Some(m) => m.clone(),
                None => {
                    let ptx = crate::cuda::nvrtc::compile(module, self.arch)?;
                    let m = self
                        .ctx
                        .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
                        .map_err(super::driver_err("loading a kernel module"))?;
                    cache.insert(module.name, m.clone());
                    m
                }
            }
        };
        m.load_function(name).map_err(|e| {
            Error::runtime(format!(
                "CUDA kernel {name} not found in module {}: {e}",
                module.name
            ))
        })
    }
}

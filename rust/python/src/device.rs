//! `ferrotorch.device`.

use crate::errors::IntoPy;
use ferrotorch::Device;
use pyo3::prelude::*;

#[pyclass(
    name = "device",
    module = "ferrotorch",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDevice {
    pub d: Device,
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (spec, index=None))]
    fn new(spec: &Bound<'_, PyAny>, index: Option<usize>) -> PyResult<Self> {
        if let Ok(d) = spec.cast::<PyDevice>() {
            return Ok(d.get().clone());
        }
        let s: String = spec.extract()?;
        let mut d = Device::parse(&s).py()?;
        if let (Device::Cuda(_), Some(i)) = (d, index) {
            d = Device::Cuda(i);
        }
        Ok(PyDevice { d })
    }
    #[getter(r#type)]
    fn type_(&self) -> &'static str {
        self.d.type_name()
    }
    #[getter]
    fn index(&self) -> Option<usize> {
        match self.d {
            Device::Cpu => None,
            Device::Cuda(i) => Some(i),
        }
    }
    fn __repr__(&self) -> String {
        match self.d {
            Device::Cpu => "device(type='cpu')".into(),
            Device::Cuda(i) => format!("device(type='cuda', index={i})"),
        }
    }
    fn __str__(&self) -> String {
        match self.d {
            Device::Cpu => "cpu".into(),
            d => d.to_string(),
        }
    }
}

/// Accepts `"cpu"`, `"cuda:0"`, a device object or an int (a CUDA ordinal).
pub fn extract_device(ob: &Bound<'_, PyAny>) -> PyResult<Device> {
    if let Ok(d) = ob.cast::<PyDevice>() {
        return Ok(d.get().d);
    }
    if let Ok(i) = ob.extract::<usize>() {
        return Ok(Device::Cuda(i));
    }
    let s: String = ob.extract()?;
    Device::parse(&s).py()
}

/// Checks that tensors can be made on `d`. For a GPU this first runs
/// `ferrotorch.cuda._lazy_init()` once (it preloads the NVRTC/cuBLAS wheels and runs queued
/// seeds), so `device="cuda"` works without touching `ferrotorch.cuda` first.
pub fn ensure_available(py: Python<'_>, d: Device) -> PyResult<()> {
    if matches!(d, Device::Cuda(_)) {
        static INIT: std::sync::Once = std::sync::Once::new();
        let mut result = Ok(());
        INIT.call_once(|| {
            result = py
                .import("ferrotorch.cuda")
                .and_then(|m| m.getattr("_lazy_init")?.call0().map(|_| ()));
        });
        result?;
    }
    d.check_available().py()
}

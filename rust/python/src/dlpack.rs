//! DLPack exchange per the Python array API: `__dlpack__` (versioned capsules when the
//! consumer asks for `max_version >= (1, 0)`, legacy ones otherwise), `__dlpack_device__`,
//! and `from_dlpack` consuming any producer's capsule exactly once. CPU tensors and CUDA
//! device tensors (kDLCUDA, with the consumer's stream made to wait for ours) go both ways.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::cuda::api as cuda;
use ferrotorch::layout::Layout;
use ferrotorch::{DType, Device, Storage, Tensor};
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_void, CStr};

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

const KDL_CPU: i32 = 1;
const KDL_CUDA: i32 = 2;
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 2;
const NAME: &CStr = c"dltensor";
const NAME_V: &CStr = c"dltensor_versioned";
const USED: &CStr = c"used_dltensor";
const USED_V: &CStr = c"used_dltensor_versioned";

fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
        DType::F16 => (2, 16),
        DType::BF16 => (4, 16),
        DType::I64 => (0, 64),
        DType::I32 => (0, 32),
        DType::I16 => (0, 16),
        DType::I8 => (0, 8),
        DType::U8 => (1, 8),
        DType::Bool => (6, 8),
        DType::C64 => (5, 64),
        DType::C128 => (5, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

fn our_dtype(t: DLDataType) -> PyResult<DType> {
    if t.lanes != 1 {
        return Err(PyBufferError::new_err(
            "from_dlpack: vector (lanes > 1) dtypes are not supported",
        ));
    }
    Ok(match (t.code, t.bits) {
        (2, 32) => DType::F32,
        (2, 64) => DType::F64,
        (2, 16) => DType::F16,
        (4, 16) => DType::BF16,
        (0, 64) => DType::I64,
        (0, 32) => DType::I32,
        (0, 16) => DType::I16,
        (0, 8) => DType::I8,
        (1, 8) => DType::U8,
        (6, 8) | (1, 1) => DType::Bool,
        (5, 64) => DType::C64,
        (5, 128) => DType::C128,
        (c, b) => {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: unsupported DLPack dtype (code {c}, bits {b})"
            )))
        }
    })
}

/// What our exported capsules own: the tensor (keeping its storage alive) and the arrays
/// `shape`/`strides` point into. Freed by the deleter, which never touches Python.
struct ExportCtx {
    _tensor: Tensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    let m = Box::from_raw(m);
    drop(Box::from_raw(m.manager_ctx as *mut ExportCtx));
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    let m = Box::from_raw(m);
    drop(Box::from_raw(m.manager_ctx as *mut ExportCtx));
}

/// Capsule destructor: frees the tensor only if no consumer took it (name unchanged).
unsafe extern "C" fn capsule_destructor(cap: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(cap, NAME_V.as_ptr()) == 1 {
        let p = ffi::PyCapsule_GetPointer(cap, NAME_V.as_ptr()) as *mut DLManagedTensorVersioned;
        if let Some(d) = (*p).deleter {
            d(p);
        }
    } else if ffi::PyCapsule_IsValid(cap, NAME.as_ptr()) == 1 {
        let p = ffi::PyCapsule_GetPointer(cap, NAME.as_ptr()) as *mut DLManagedTensor;
        if let Some(d) = (*p).deleter {
            d(p);
        }
    }
}

/// DLPack's (device type, id) of a device.
fn dl_device_of(d: Device) -> (i32, i32) {
    match d {
        Device::Cpu => (KDL_CPU, 0),
        Device::Cuda(i) => (KDL_CUDA, i as i32),
    }
}

fn dl_tensor(ctx: &mut ExportCtx, t: &Tensor) -> DLTensor {
    let (device_type, device_id) = dl_device_of(t.device());
    DLTensor {
        data: t.data_ptr() as *mut c_void,
        device: DLDevice {
            device_type,
            device_id,
        },
        ndim: t.ndim() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: ctx.shape.as_mut_ptr(),
        strides: ctx.strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<&Bound<'_, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let stream: Option<i64> =
            match stream {
                Some(s) if !s.is_none() => Some(s.extract().map_err(|_| {
                    PyTypeError::new_err("__dlpack__: stream must be an int or None")
                })?),
                _ => None,
            };
        let here = dl_device_of(self.t.device());
        if stream.is_some() && here.0 == KDL_CPU {
            return Err(PyBufferError::new_err(
                "__dlpack__: stream must be None for CPU tensors",
            ));
        }
        if self.t.requires_grad() {
            return Err(PyRuntimeError::new_err(
                "Can't export tensors that require gradient, use tensor.detach()",
            ));
        }
        // Another device only by a copy, and only to the host (as PyTorch).
        let to_host = match dl_device {
            Some(d) if d != here => {
                if d.0 != KDL_CPU || copy == Some(false) {
                    return Err(PyBufferError::new_err(format!(
                        "__dlpack__: cannot export a tensor on {} to DLPack device {d:?} without a copy to the host",
                        self.t.device()
                    )));
                }
                true
            }
            _ => false,
        };
        if let Device::Cuda(i) = self.t.device() {
            // The consumer's stream (None: the legacy default) waits for our queued work.
            cuda::dlpack_sync_to(i, stream.unwrap_or(1)).py()?;
        }
        let copied = copy == Some(true) || to_host;
        let t = if to_host {
            self.t
                .detach()
                .to_device(Device::Cpu)
                .py()?
                .contiguous_copy()
                .py()?
        } else if copied {
            self.t.contiguous_copy().py()?
        } else {
            self.t.detach()
        };
        let mut ctx = Box::new(ExportCtx {
            shape: t.shape().iter().map(|&d| d as i64).collect(),
            strides: t.strides().iter().map(|&s| s as i64).collect(),
            _tensor: t.clone(),
        });
        let dlt = dl_tensor(&mut ctx, &t);
        let ctx_ptr = Box::into_raw(ctx) as *mut c_void;
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        let cap = unsafe {
            if versioned {
                let mut flags = 0;
                if t.storage().is_readonly() {
                    flags |= FLAG_READ_ONLY;
                }
                if copied {
                    flags |= FLAG_IS_COPIED;
                }
                let m = Box::into_raw(Box::new(DLManagedTensorVersioned {
                    version: DLPackVersion { major: 1, minor: 0 },
                    manager_ctx: ctx_ptr,
                    deleter: Some(delete_versioned),
                    flags,
                    dl_tensor: dlt,
                }));
                ffi::PyCapsule_New(m as *mut c_void, NAME_V.as_ptr(), Some(capsule_destructor))
            } else {
                let m = Box::into_raw(Box::new(DLManagedTensor {
                    dl_tensor: dlt,
                    manager_ctx: ctx_ptr,
                    deleter: Some(delete_legacy),
                }));
                ffi::PyCapsule_New(m as *mut c_void, NAME.as_ptr(), Some(capsule_destructor))
            }
        };
        if cap.is_null() {
            return Err(PyErr::fetch(py));
        }
        Ok(unsafe { Bound::from_owned_ptr(py, cap) }.unbind())
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        dl_device_of(self.t.device())
    }
}

/// Owns a consumed capsule's managed tensor; dropping it calls the producer's deleter, with the
/// GIL when Python is still running (producers such as NumPy decref objects there) and not at
/// all once the interpreter is gone (the process is exiting; leaking is the safe choice).
struct ImportOwner {
    ptr: usize,
    versioned: bool,
}

impl Drop for ImportOwner {
    fn drop(&mut self) {
        let (ptr, versioned) = (self.ptr, self.versioned);
        let call = move || unsafe {
            if versioned {
                let m = ptr as *mut DLManagedTensorVersioned;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            } else {
                let m = ptr as *mut DLManagedTensor;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            }
        };
        let _ = Python::try_attach(|_| call());
    }
}

fn consume_capsule(cap: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let raw = cap.as_ptr();
    let (versioned, name, used) = unsafe {
        if ffi::PyCapsule_IsValid(raw, NAME_V.as_ptr()) == 1 {
            (true, NAME_V, USED_V)
        } else if ffi::PyCapsule_IsValid(raw, NAME.as_ptr()) == 1 {
            (false, NAME, USED)
        } else {
            return Err(PyValueError::new_err("from_dlpack: expected a DLPack capsule named 'dltensor' or 'dltensor_versioned' that was not consumed yet"));
        }
    };
    let ptr = unsafe { ffi::PyCapsule_GetPointer(raw, name.as_ptr()) };
    let (dlt, flags): (&DLTensor, u64) = unsafe {
        if versioned {
            let m = &*(ptr as *const DLManagedTensorVersioned);
            if m.version.major > 1 {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: unsupported DLPack version {}.{}",
                    m.version.major, m.version.minor
                )));
            }
            (&m.dl_tensor, m.flags)
        } else {
            (&(*(ptr as *const DLManagedTensor)).dl_tensor, 0)
        }
    };
    let on_gpu = match dlt.device.device_type {
        KDL_CPU => false,
        KDL_CUDA => true,
        other => return Err(unsupported_device(other)),
    };
    let dtype = our_dtype(dlt.dtype)?;
    let nd = dlt.ndim.max(0) as usize;
    let shape: Vec<usize> = (0..nd)
        .map(|i| unsafe { *dlt.shape.add(i) } as usize)
        .collect();
    let strides: Vec<usize> = if dlt.strides.is_null() {
        ferrotorch::layout::contiguous_strides(&shape)
    } else {
        let s: Vec<i64> = (0..nd).map(|i| unsafe { *dlt.strides.add(i) }).collect();
        if s.iter().any(|&v| v < 0) {
            return Err(PyBufferError::new_err(
                "from_dlpack: negative strides are not supported",
            ));
        }
        s.iter().map(|&v| v as usize).collect()
    };
    let layout = Layout {
        shape,
        strides,
        offset: 0,
    };
    let nbytes = layout.storage_span() * dtype.size();
    let readonly = flags & FLAG_READ_ONLY != 0;
    let gpu = dlt.device.device_id.max(0) as usize;
    if on_gpu {
        // Fail before taking the capsule where this build or machine has no CUDA.
        cuda::dlpack_stream(gpu).py()?;
    }
    let data_addr = dlt.data as u64 + dlt.byte_offset;
    // From here on the capsule is ours: rename it so that it is not consumed twice.
    unsafe {
        ffi::PyCapsule_SetName(raw, used.as_ptr());
    }
    let owner = Box::new(ImportOwner {
        ptr: ptr as usize,
        versioned,
    });
    let storage = if on_gpu {
        unsafe { cuda::foreign_storage(gpu, data_addr, nbytes, owner, readonly) }.py()?
    } else {
        unsafe { Storage::from_foreign(data_addr as *mut u8, nbytes, owner, readonly) }
    };
    Ok(Tensor::from_parts(storage, layout, dtype))
}

fn unsupported_device(device_type: i32) -> PyErr {
    PyBufferError::new_err(format!(
        "from_dlpack: only CPU (kDLCPU=1) and CUDA (kDLCUDA=2) tensors can be imported (device type {device_type})"
    ))
}

/// `torch.from_dlpack(ext_tensor)`: any object with `__dlpack__`, or a raw capsule.
#[pyfunction]
pub fn from_dlpack(ext_tensor: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    if ext_tensor.hasattr("__dlpack__")? {
        let py = ext_tensor.py();
        // A device tensor's producer is told our current stream, to order its work before ours.
        let mut stream: Option<i64> = None;
        if let Ok(dev) = ext_tensor.call_method0("__dlpack_device__") {
            let (dt, id): (i32, i32) = dev.extract()?;
            match dt {
                KDL_CPU => {}
                KDL_CUDA => stream = Some(cuda::dlpack_stream(id.max(0) as usize).py()?),
                other => return Err(unsupported_device(other)),
            }
        }
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("max_version", (1u32, 0u32))?;
        if let Some(s) = stream {
            kwargs.set_item("stream", s)?;
        }
        let cap = match ext_tensor.call_method("__dlpack__", (), Some(&kwargs)) {
            Ok(c) => c,
            // Producers before DLPack 1.0 take no max_version.
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                let legacy = pyo3::types::PyDict::new(py);
                if let Some(s) = stream {
                    legacy.set_item("stream", s)?;
                }
                ext_tensor.call_method("__dlpack__", (), Some(&legacy))?
            }
            Err(e) => return Err(e),
        };
        return Ok(PyTensor::new(consume_capsule(&cap)?));
    }
    Ok(PyTensor::new(consume_capsule(ext_tensor)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    Ok(())
}

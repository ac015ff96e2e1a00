//! Shared-memory tensors for ferrotorch.multiprocessing: moving storage into POSIX shared
//! memory, handing out its descriptor, and mapping descriptors received from other processes.

use crate::dtype::extract_dtype;
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::{Layout, Storage, Tensor};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// Moves the storage into shared memory in place (a no-op when already there).
    fn share_memory_(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        slf.t.share_memory_().py()?;
        Ok(slf)
    }

    /// Whether the storage lives in shared memory.
    fn is_shared(&self) -> bool {
        self.t.is_shared()
    }
}

/// `(fd, nbytes)` of the tensor's shared storage, moving it into shared memory first.
#[pyfunction]
fn _shared_handle(t: PyRef<'_, PyTensor>) -> PyResult<(i32, usize)> {
    let s = t.t.storage();
    s.share_memory_().py()?;
    let fd = s.shared_fd().expect("storage was just shared");
    Ok((fd, s.nbytes()))
}

/// The (device, inode) identity of a shared storage, equal across processes.
#[pyfunction]
fn _shared_id(t: PyRef<'_, PyTensor>) -> Option<(u64, u64)> {
    t.t.storage().shared_id()
}

/// A tensor over a shared segment received as `fd` (owned from now on).
#[pyfunction]
#[pyo3(signature = (fd, nbytes, dtype, shape, strides, offset))]
fn _from_shared_fd(
    fd: i32,
    nbytes: usize,
    dtype: &Bound<'_, PyAny>,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
) -> PyResult<PyTensor> {
    let dtype = extract_dtype(dtype)?;
    let storage = Storage::from_shared_fd(fd, nbytes).py()?;
    let layout = Layout {
        shape,
        strides,
        offset,
    };
    Ok(PyTensor::new(Tensor::from_parts(storage, layout, dtype)))
}

/// A zero-filled contiguous tensor allocated in shared memory.
#[pyfunction]
fn _zeros_shared(shape: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let dtype = extract_dtype(dtype)?;
    Ok(PyTensor::new(Tensor::zeros_shared(&shape, dtype).py()?))
}

/// Free bytes in /dev/shm (None where it cannot be asked).
#[pyfunction]
fn _shm_available() -> Option<u64> {
    ferrotorch::shm::shm_available()
}

/// Raises the error that says how to enlarge /dev/shm when `nbytes` would not fit.
#[pyfunction]
fn _check_shm_capacity(nbytes: u64) -> PyResult<()> {
    match ferrotorch::shm::shm_available() {
        Some(free) if free < nbytes => {
            Err(ferrotorch::shm::capacity_error(nbytes as usize, Some(free))).py()
        }
        _ => Ok(()),
    }
}

#[pyfunction]
fn _set_num_threads(n: usize) {
    ferrotorch::cpu::thread_pool::set_num_threads(n);
}

#[pyfunction]
fn _get_num_threads() -> usize {
    ferrotorch::cpu::thread_pool::num_threads()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_shared_handle, m)?)?;
    m.add_function(wrap_pyfunction!(_shared_id, m)?)?;
    m.add_function(wrap_pyfunction!(_from_shared_fd, m)?)?;
    m.add_function(wrap_pyfunction!(_zeros_shared, m)?)?;
    m.add_function(wrap_pyfunction!(_shm_available, m)?)?;
    m.add_function(wrap_pyfunction!(_check_shm_capacity, m)?)?;
    m.add_function(wrap_pyfunction!(_set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(_get_num_threads, m)?)?;
    Ok(())
}

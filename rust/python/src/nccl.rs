//! `ferrotorch._core._NcclComm`: the NCCL communicator behind `backend="nccl"`, one thin
//! method per collective (the Python side turns ReduceOp into the op name and waits).

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::cuda::nccl::{self, NcclComm, NcclOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn op(name: &str) -> PyResult<NcclOp> {
    Ok(match name {
        "sum" => NcclOp::Sum,
        "product" => NcclOp::Prod,
        "max" => NcclOp::Max,
        "min" => NcclOp::Min,
        "avg" => NcclOp::Avg,
        _ => {
            return Err(PyValueError::new_err(format!(
                "the nccl backend has no reduction {name:?}"
            )))
        }
    })
}

#[pyclass(name = "_NcclComm", module = "ferrotorch._core")]
struct PyNcclComm {
    inner: NcclComm,
}

#[pymethods]
impl PyNcclComm {
    #[new]
    fn new(py: Python<'_>, device: usize, id: Vec<u8>, rank: usize, size: usize) -> PyResult<Self> {
        let id: [u8; 128] = id
            .try_into()
            .map_err(|_| PyValueError::new_err("an NCCL unique id has 128 bytes"))?;
        let inner = py.detach(|| NcclComm::new(device, id, rank, size)).py()?;
        Ok(PyNcclComm { inner })
    }
    fn all_reduce(&self, t: PyRef<'_, PyTensor>, reduction: &str) -> PyResult<()> {
        self.inner.all_reduce(&t.t, op(reduction)?).py()
    }
    fn broadcast(&self, t: PyRef<'_, PyTensor>, root: usize) -> PyResult<()> {
        self.inner.broadcast(&t.t, root).py()
    }
    fn reduce(&self, t: PyRef<'_, PyTensor>, root: usize, reduction: &str) -> PyResult<()> {
        self.inner.reduce(&t.t, root, op(reduction)?).py()
    }
    fn all_gather(&self, input: PyRef<'_, PyTensor>, output: PyRef<'_, PyTensor>) -> PyResult<()> {
        self.inner.all_gather(&input.t, &output.t).py()
    }
    fn reduce_scatter(
        &self,
        input: PyRef<'_, PyTensor>,
        output: PyRef<'_, PyTensor>,
        reduction: &str,
    ) -> PyResult<()> {
        self.inner
            .reduce_scatter(&input.t, &output.t, op(reduction)?)
            .py()
    }
    fn send(&self, t: PyRef<'_, PyTensor>, peer: usize) -> PyResult<()> {
        self.inner.send(&t.t, peer).py()
    }
    fn recv(&self, t: PyRef<'_, PyTensor>, peer: usize) -> PyResult<()> {
        self.inner.recv(&t.t, peer).py()
    }
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.synchronize()).py()
    }
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
}

/// Whether NCCL loads and a GPU is visible.
#[pyfunction]
fn _nccl_available() -> bool {
    nccl::is_available()
}

/// A new NCCL unique id (rank 0 makes it and sends it to the others).
#[pyfunction]
fn _nccl_unique_id() -> PyResult<Vec<u8>> {
    nccl::unique_id().map(|id| id.to_vec()).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNcclComm>()?;
    m.add_function(wrap_pyfunction!(_nccl_available, m)?)?;
    m.add_function(wrap_pyfunction!(_nccl_unique_id, m)?)?;
    Ok(())
}

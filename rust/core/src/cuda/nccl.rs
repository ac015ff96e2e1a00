//! NCCL communicators (cudarc's bindings, library loaded at first use): collectives on the
//! device memory of CUDA tensors, queued on the device's current stream, for
//! `init_process_group(backend="nccl")`. The ranks exchange the unique id out of band (the
//! Python side sends it over MPI).

use super::runtime::{device, DeviceState};
use crate::{DType, Device, Error, Result, Tensor};
use cudarc::nccl::{result, sys};
use std::ffi::c_void;
use std::sync::Arc;

/// The reductions NCCL computes (bitwise ones are not among them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclOp {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
}

fn nccl_err(what: &str) -> impl Fn(result::NcclError) -> Error + '_ {
    move |e| Error::runtime(format!("NCCL error during {what}: {:?}", e.0))
}

/// Whether the NCCL library loads and a GPU is visible.
pub fn is_available() -> bool {
    super::runtime::device::available().is_ok() && unsafe { sys::is_culib_present() }
}

/// A fresh unique id: rank 0 makes it, every rank passes it to `NcclComm::new`.
pub fn unique_id() -> Result<[u8; 128]> {
    let id = result::get_uniqueid().map_err(nccl_err("ncclGetUniqueId"))?;
    Ok(id.internal.map(|c| c as u8))
}

/// One rank's member of an NCCL communicator, bound to one GPU.
pub struct NcclComm {
    comm: sys::ncclComm_t,
    dev: Arc<DeviceState>,
    rank: usize,
    size: usize,
}

// NCCL communicators may be used from any thread as long as calls are not concurrent; the
// Python binding holds the GIL around every call.
unsafe impl Send for NcclComm {}
unsafe impl Sync for NcclComm {}

fn nccl_dtype(t: &Tensor, op: &str) -> Result<sys::ncclDataType_t> {
    use sys::ncclDataType_t as D;
    Ok(match t.dtype() {
        DType::F32 => D::ncclFloat32,
        DType::F64 => D::ncclFloat64,
        DType::F16 => D::ncclFloat16,
        DType::BF16 => D::ncclBfloat16,
        DType::I32 => D::ncclInt32,
        DType::I64 => D::ncclInt64,
        DType::I8 => D::ncclInt8,
        DType::U8 | DType::Bool => D::ncclUint8,
        other => {
            return Err(Error::runtime(format!(
                "{op}: NCCL has no {other:?} type; cast the tensor first"
            )))
        }
    })
}

fn nccl_op(op: NcclOp, t: &Tensor) -> sys::ncclRedOp_t {
    use sys::ncclRedOp_t as R;
    match (op, t.dtype()) {
        // bool as bytes: "sum" is "any" and "product" is "all"
        (NcclOp::Sum, DType::Bool) => R::ncclMax,
        (NcclOp::Prod, DType::Bool) => R::ncclMin,
        (NcclOp::Sum, _) => R::ncclSum,
        (NcclOp::Prod, _) => R::ncclProd,
        (NcclOp::Max, _) => R::ncclMax,
        (NcclOp::Min, _) => R::ncclMin,
        (NcclOp::Avg, _) => R::ncclAvg,
    }
}

impl NcclComm {
    /// Joins rank `rank` of `size` on GPU `device_index` to the communicator named by `id`.
    pub fn new(device_index: usize, id: [u8; 128], rank: usize, size: usize) -> Result<NcclComm> {
        if rank >= size {
            return Err(Error::value(format!(
                "NcclComm: rank {rank} is outside a communicator of {size} ranks"
            )));
        }
        let dev = device(device_index)?;
        super::runtime::with_context(&dev, || Ok(()))?;
        let uid = sys::ncclUniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        let mut comm = std::ptr::null_mut();
        unsafe { result::comm_init_rank(&mut comm, size as i32, uid, rank as i32) }
            .map_err(nccl_err("ncclCommInitRank"))?;
        Ok(NcclComm {
            comm,
            dev,
            rank,
            size,
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The device pointer, element count and stream of a contiguous tensor on this GPU.
    fn buffer(&self, t: &Tensor, op: &str) -> Result<(*mut c_void, usize, sys::cudaStream_t)> {
        if t.device() != Device::Cuda(self.dev.index) {
            return Err(Error::value(format!(
                "{op}: the tensor is on {:?}, this NCCL communicator on cuda:{}",
                t.device(),
                self.dev.index
            )));
        }
        if !t.is_contiguous() {
            return Err(Error::value(format!("{op}: Tensors must be contiguous")));
        }
        let stream = self.dev.streams.current()?;
        Ok((
            t.data_ptr() as *mut c_void,
            t.numel(),
            stream.cu_stream() as sys::cudaStream_t,
        ))
    }

    fn bind(&self) -> Result<()> {
        super::runtime::with_context(&self.dev, || Ok(()))
    }

    /// Reduces `t` across ranks in place.
    pub fn all_reduce(&self, t: &Tensor, op: NcclOp) -> Result<()> {
        self.bind()?;
        let (p, n, s) = self.buffer(t, "all_reduce")?;
        let dt = nccl_dtype(t, "all_reduce")?;
        unsafe { result::all_reduce(p, p, n, dt, nccl_op(op, t), self.comm, s) }
            .map_err(nccl_err("ncclAllReduce"))?;
        Ok(())
    }

    /// Copies rank `root`'s `t` into every rank's `t`.
    pub fn broadcast(&self, t: &Tensor, root: usize) -> Result<()> {
        self.bind()?;
        let (p, n, s) = self.buffer(t, "broadcast")?;
        let dt = nccl_dtype(t, "broadcast")?;
        unsafe { result::broadcast(p, p, n, dt, root as i32, self.comm, s) }
            .map_err(nccl_err("ncclBroadcast"))?;
        Ok(())
    }

    /// Reduces `t` across ranks into rank `root`'s `t`.
    pub fn reduce(&self, t: &Tensor, root: usize, op: NcclOp) -> Result<()> {
        self.bind()?;
        let (p, n, s) = self.buffer(t, "reduce")?;
        let dt = nccl_dtype(t, "reduce")?;
        unsafe { result::reduce(p, p, n, dt, nccl_op(op, t), root as i32, self.comm, s) }
            .map_err(nccl_err("ncclReduce"))?;
        Ok(())
    }

    /// Concatenates every rank's `input` into `output` (`size` times its numel).
    pub fn all_gather(&self, input: &Tensor, output: &Tensor) -> Result<()> {
        self.bind()?;
        let (src, n, s) = self.buffer(input, "all_gather_into_tensor")?;
        let (dst, m, _) = self.buffer(output, "all_gather_into_tensor")?;
        check_sizes("all_gather_into_tensor", m, n * self.size, input, output)?;
        let dt = nccl_dtype(input, "all_gather_into_tensor")?;
        unsafe { result::all_gather(src, dst, n, dt, self.comm, s) }
            .map_err(nccl_err("ncclAllGather"))?;
        Ok(())
    }

    /// Reduces `input` across ranks; rank i keeps block i in `output`.
    pub fn reduce_scatter(&self, input: &Tensor, output: &Tensor, op: NcclOp) -> Result<()> {
        self.bind()?;
        let (src, n, s) = self.buffer(input, "reduce_scatter_tensor")?;
        let (dst, m, _) = self.buffer(output, "reduce_scatter_tensor")?;
        check_sizes("reduce_scatter_tensor", n, m * self.size, input, output)?;
        let dt = nccl_dtype(input, "reduce_scatter_tensor")?;
        unsafe { result::reduce_scatter(src, dst, m, dt, nccl_op(op, input), self.comm, s) }
            .map_err(nccl_err("ncclReduceScatter"))?;
        Ok(())
    }

    /// Sends `t` to rank `peer`.
    pub fn send(&self, t: &Tensor, peer: usize) -> Result<()> {
        self.bind()?;
        let (p, n, s) = self.buffer(t, "send")?;
        let dt = nccl_dtype(t, "send")?;
        unsafe { result::send(p, n, dt, peer as i32, self.comm, s) }
            .map_err(nccl_err("ncclSend"))?;
        Ok(())
    }

    /// Receives into `t` from rank `peer`.
    pub fn recv(&self, t: &Tensor, peer: usize) -> Result<()> {
        self.bind()?;
        let (p, n, s) = self.buffer(t, "recv")?;
        let dt = nccl_dtype(t, "recv")?;
        unsafe { result::recv(p, n, dt, peer as i32, self.comm, s) }
            .map_err(nccl_err("ncclRecv"))?;
        Ok(())
    }

    /// Blocks until the work queued on the current stream (NCCL's included) finished.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        let stream = self.dev.streams.current()?;
        stream
            .synchronize()
            .map_err(super::runtime::driver_err("synchronizing the NCCL stream"))
    }
}

fn check_sizes(op: &str, have: usize, want: usize, input: &Tensor, output: &Tensor) -> Result<()> {
    if have != want {
        return Err(Error::value(format!(
            "{op}: output {:?} and input {:?} do not match the world size",
            output.shape(),
            input.shape()
        )));
    }
    Ok(())
}

impl Drop for NcclComm {
    fn drop(&mut self) {
        if !self.comm.is_null() {
            let _ = self.bind();
            let _ = unsafe { result::comm_destroy(self.comm) };
        }
    }
}

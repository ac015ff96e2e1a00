//! Typed launchers: the one place that knows each kernel's argument list. Callers pass device
//! pointers (as `u64`) and views; launchers pick the kernel by dtype and the grid by size.
// Kernel docs write index math (`out[i]`, `C[b]`) in brackets: those are not doc links.
#![allow(rustdoc::broken_intra_doc_links)]

use crate::{DType, Error, Layout, Result};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig};

pub use super::kernels::KernelModule;

pub mod binary;
pub mod copy;
pub mod ew;
pub mod fill;
pub mod optim;
pub mod random;
pub mod ternary;
pub mod unary;

/// Where launchers get compiled kernels (the runtime: NVRTC once per device and arch, cached).
pub trait Kernels {
    fn function(&self, module: &'static KernelModule, name: &str) -> Result<CudaFunction>;
}

/// Mirrors `struct Strided` in common.cuh: a view in element offsets.
pub const MAX_DIMS: usize = 8;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Strided {
    pub ndim: i32,
    pub offset: i64,
    pub shape: [i64; MAX_DIMS],
    pub strides: [i64; MAX_DIMS],
}

// Plain old data with the C layout the kernels declare.
unsafe impl DeviceRepr for Strided {}

impl Strided {
    /// The view of `layout`; more than MAX_DIMS dimensions is an error naming the op.
    pub fn of(layout: &Layout, op: &str) -> Result<Strided> {
        Strided::from_parts(&layout.shape, &layout.strides, layout.offset, op)
    }

    pub fn from_parts(
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        op: &str,
    ) -> Result<Strided> {
        if shape.len() > MAX_DIMS {
            return Err(Error::runtime(format!(
                "{op}: CUDA kernels take at most {MAX_DIMS} dimensions, got {}",
                shape.len()
            )));
        }
        let mut s = Strided {
            ndim: shape.len() as i32,
            offset: offset as i64,
            ..Default::default()
        };
        for (d, (&n, &st)) in shape.iter().zip(strides).enumerate() {
            s.shape[d] = n as i64;
            s.strides[d] = st as i64;
        }
        Ok(s)
    }
}

/// The kernel-name suffix of a dtype: kernels are instantiated as `name_f32`, `name_bf16` ...
pub fn suffix(dt: DType) -> &'static str {
    match dt {
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::I64 => "i64",
        DType::I32 => "i32",
        DType::I16 => "i16",
        DType::I8 => "i8",
        DType::U8 => "u8",
        DType::Bool => "bool",
        // No kernel has these names: complex tensors stop at `backend::cuda_of`.
        DType::C64 => "c64",
        DType::C128 => "c128",
    }
}

/// A 1-D grid for `n` elements: 256 threads a block, capped so grid-stride loops cover the rest.
pub fn grid_for(n: usize) -> LaunchConfig {
    // Large launches get a quarter of the blocks: the dense elementwise loops keep four
    // elements in flight per thread (FT_ILP in elementwise.cuh); grid-stride loops cover
    // the rest either way.
    let per_block = if n >= 1 << 20 { 256 * 4 } else { 256 };
    let blocks = n.div_ceil(per_block).clamp(1, 65_535 * 8) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Turns a driver error into ours, naming the kernel.
pub fn launch_err(kernel: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::runtime(format!("CUDA kernel {kernel} failed to launch: {e}"))
}

/// The stream type launchers enqueue on.
pub type Stream = CudaStream;
pub mod conv;
pub mod index;
pub mod loss;
pub mod norm;
pub mod pool;
pub mod reduce;
pub mod scan;
pub mod softmax;

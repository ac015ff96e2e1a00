//! The CUDA backend (paper §5.2-5.3). The allocator's bookkeeping and the kernel sources are
//! plain Rust and strings, compiled and tested in every build; everything that talks to a
//! driver (cudarc, loaded dynamically at first use) sits behind the `cuda` feature.

pub mod allocator;
pub mod api;
pub mod kernels;
#[cfg(feature = "cuda")]
pub mod launch;
#[cfg(feature = "cuda")]
pub mod nccl;
#[cfg(feature = "cuda")]
pub mod nvrtc;
#[cfg(feature = "cuda")]
pub mod ops;
#[cfg(feature = "cuda")]
pub mod runtime;

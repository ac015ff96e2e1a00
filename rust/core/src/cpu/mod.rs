//! CPU kernels: scalar math traits and parallel loops over contiguous buffers.

pub mod gemm_any;
pub mod lanes;
pub mod math;
pub mod parallel;
pub mod sgemm;
pub mod simd;
pub mod special;
pub mod thread_pool;
pub mod vec_math;

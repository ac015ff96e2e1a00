//! CPU kernels: scalar math traits and parallel loops over contiguous buffers.

pub mod math;
pub mod parallel;
pub mod thread_pool;

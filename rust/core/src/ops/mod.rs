//! Tensor operations. Each primitive keeps its forward and its backward together.

pub mod binary;
pub mod broadcast_blocks;
pub mod complex_copy;
pub mod complex_math;
pub mod complex_reduce;
pub mod complex_view;
pub mod conv;
mod conv_kernels;
mod conv_scratch;
pub mod copy;
pub mod creation;
pub mod device_copy;
pub mod fft;
mod fft_kernels;
pub mod gather;
pub mod index;
pub mod inplace;
pub mod join;
pub mod linear;
pub mod matmul;
pub mod norm;
pub mod pointwise_extra;
pub mod pool;
mod pool_2x2;
mod pool_backward;
pub mod reduce;
pub mod scan;
pub mod softmax;
pub mod special;
pub mod special_binary;
pub mod stats;
pub mod unary;
pub mod unfold;
pub mod view;

pub use binary::BinaryOp;
pub use unary::UnaryOp;

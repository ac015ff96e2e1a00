//! # ferrotorch
//!
//! The Rust core of ferrotorch: refcounted tensor storage, CPU kernels and a define-by-run
//! autograd engine. It has no Python in it and can be embedded in any Rust program.
//!
//! ```
//! use ferrotorch::{Tensor, Scalar};
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
//! x.set_requires_grad(true).unwrap();
//! let y = x.mul(&x).unwrap().sum_all().unwrap();
//! ferrotorch::autograd::backward(&[y.clone()], &[Tensor::scalar(Scalar::Float(1.0), y.dtype())], false, false).unwrap();
//! assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
//! ```

pub mod alloc_size;
pub mod autocast;
pub mod autograd;
pub mod backend;
pub mod block_cache;
pub mod cpu;
pub mod cuda;
pub mod device;
pub mod dtype;
pub mod error;
pub mod grad_scale;
pub mod layout;
pub mod linalg;
pub mod ops;
pub mod optim;
pub mod profiler;
pub mod random;
pub mod samplers;
pub mod scalar_range;
pub mod serialize;
#[cfg(unix)]
pub mod shm;
pub mod storage;
pub mod tensor;

pub use device::Device;
pub use dtype::{DType, Element, Scalar};
pub use error::{Error, Result};
pub use layout::Layout;
pub use storage::Storage;
pub use tensor::Tensor;

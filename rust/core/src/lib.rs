//! # ferrotorch
//!
//! PyTorch's programming model in Rust: tensors with broadcasting and dtype promotion, a
//! define-by-run autograd engine, `nn` layers, optimizers and safetensors checkpoints. This is
//! the core under the `ferrotorch` Python package; it has no Python in it, so a Rust service
//! can load a model trained in Python and run it (or train one) on its own.
//!
//! The names follow PyTorch's: `torch.randn(2, 3)` is [`randn(&[2, 3])`](randn),
//! `loss.backward()` is [`loss.backward()`](Tensor::backward), `torch.nn.Linear(4, 8)` is
//! [`nn::Linear::new(4, 8)`](nn::Linear::new), `torch.optim.AdamW` is [`optim::AdamW`], and
//! `torch.save` / `torch.load` of a state dict are [`save`] / [`load`].
//!
//! ## Quick start
//!
//! Fit a small regression with a two-layer network and AdamW, then save and reload it:
//!
//! ```
//! use ferrotorch::nn::{self, functional as F, Module};
//! use ferrotorch::optim::{AdamConfig, AdamW, Optimizer};
//!
//! ferrotorch::manual_seed(0);
//! let x = ferrotorch::randn(&[64, 3])?;
//! let y = x.sum_dim(1, true)?; // the target: the sum of the inputs
//!
//! let model = nn::Sequential::new()
//!     .add(nn::Linear::new(3, 16)?)
//!     .add(nn::ReLU)
//!     .add(nn::Linear::new(16, 1)?);
//! let mut opt = AdamW::with_config(model.parameters(), AdamConfig { lr: 1e-2, ..Default::default() })?;
//!
//! let mut first = None;
//! for _ in 0..200 {
//!     let loss = F::mse_loss(&model.forward(&x)?, &y)?;
//!     opt.zero_grad()?;
//!     loss.backward()?;
//!     opt.step()?;
//!     first.get_or_insert(loss.item()?.to_f64());
//! }
//! let _guard = ferrotorch::no_grad(); // inference: record no graph
//! let last = F::mse_loss(&model.forward(&x)?, &y)?.item()?.to_f64();
//! assert!(last < 0.1 * first.unwrap());
//!
//! // State dicts use PyTorch's keys ("0.weight", "0.bias", ...): Python loads this file with
//! // `model.load_state_dict(torch.load(path))`, and Rust loads the files Python saves.
//! let path = std::env::temp_dir().join(format!("quickstart-{}.safetensors", std::process::id()));
//! ferrotorch::save(&path, &model.state_dict())?;
//! model.load_state_dict(&ferrotorch::load(&path)?, true)?;
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Arithmetic operators (`&a + &b`, `&x * 2.0`) broadcast and record gradients like Python's;
//! they panic on shapes that do not broadcast, so code that must not panic calls the fallible
//! methods ([`Tensor::add`], [`Tensor::matmul`], ...) with `?`. Every fallible operation
//! returns [`Error`], whose variant says which Python exception PyTorch would raise.
//!
//! ## Layout
//!
//! - [`Tensor`]: refcounted storage and views; ops are methods (`matmul`, `relu`, `softmax`,
//!   `sum`, `mean`, `conv2d`, ...), defined under [`ops`].
//! - [`autograd`]: the engine; [`no_grad`] turns recording off for a scope.
//! - [`nn`]: layers behind the [`nn::Module`] trait, and [`nn::functional`].
//! - [`optim`]: [`optim::AdamW`], [`optim::Adam`], [`optim::Sgd`] on fused kernels.
//! - [`save`] / [`load`]: safetensors checkpoints shared with the Python package.
//! - Feature `cuda`: the CUDA backend (driver, NVRTC and cuBLAS loaded at run time).

pub mod alloc_size;
pub mod autocast;
pub mod autograd;
pub mod backend;
pub mod block_cache;
mod checkpoint;
pub mod cpu;
pub mod cuda;
pub mod device;
pub mod dtype;
pub mod error;
mod factories;
pub mod grad_scale;
mod grad_scope;
pub mod layout;
pub mod linalg;
pub mod nn;
mod operators;
pub mod ops;
pub mod optim;
pub mod prelude;
pub mod profiler;
pub mod random;
pub mod samplers;
pub mod scalar_range;
pub mod serialize;
#[cfg(unix)]
pub mod shm;
pub mod storage;
pub mod tensor;
mod tensor_api;

pub use checkpoint::{load, load_from_bytes, save, save_to_bytes};
pub use device::Device;
pub use dtype::{DType, Element, Scalar};
pub use error::{Error, Result};
pub use factories::{arange, full, manual_seed, ones, rand, randn, tensor, zeros};
pub use grad_scope::no_grad;
pub use layout::Layout;
pub use storage::Storage;
pub use tensor::Tensor;

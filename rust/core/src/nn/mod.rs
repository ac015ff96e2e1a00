//! Neural-network layers with PyTorch's parameter names, shapes and initialization, as
//! `torch.nn`: [`Linear`], [`Conv2d`], [`LayerNorm`], [`Embedding`], [`ReLU`], [`GELU`] and
//! [`Sequential`], all behind the [`Module`] trait.
//!
//! A layer holds its parameters as leaf tensors that require grad; cloning a parameter tensor
//! shares its storage, so an optimizer built from [`Module::parameters`] updates the layer.
//! [`Module::state_dict`] uses PyTorch's keys (`weight`, `bias`, `0.weight` inside a
//! [`Sequential`]), so checkpoints move between Rust and Python with
//! [`crate::save`] / [`crate::load`].
//!
//! # Examples
//!
//! ```
//! use ferrotorch::nn::{self, Module};
//!
//! let model = nn::Sequential::new()
//!     .add(nn::Linear::new(4, 8)?)
//!     .add(nn::ReLU)
//!     .add(nn::Linear::new(8, 2)?);
//! let y = model.forward(&ferrotorch::randn(&[3, 4])?)?;
//! assert_eq!(y.shape(), &[3, 2]);
//! let names: Vec<String> = model.named_parameters().into_iter().map(|(n, _)| n).collect();
//! assert_eq!(names, ["0.weight", "0.bias", "2.weight", "2.bias"]);
//! # Ok::<(), ferrotorch::Error>(())
//! ```
#![warn(missing_docs)]

mod activation;
mod conv2d;
mod dropout;
mod embedding;
pub mod functional;
pub mod init;
mod layer_norm;
mod linear;
mod module;
mod nll_loss;
mod sequential;

pub use activation::{ReLU, GELU};
pub use conv2d::{Conv2d, Conv2dConfig};
pub use embedding::Embedding;
pub use layer_norm::LayerNorm;
pub use linear::Linear;
pub use module::{prefixed, IncompatibleKeys, Module, StateDict};
pub use sequential::Sequential;

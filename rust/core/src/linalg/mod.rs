//! `torch.linalg` on the faer crate: factorizations with PyTorch's semantics (LAPACK's pivots
//! and info codes, batches over the leading dims, its error messages) whose backward rules
//! are written with differentiable tensor ops, so higher derivatives come free.

mod check;
mod matrices;
mod multi_output;
mod triangle;

pub mod cholesky;
pub mod det;
pub mod eig;
pub mod eigh;
pub mod inv;
pub mod ldl;
pub mod ldl_solve;
pub mod lu;
pub mod lu_solve;
pub mod qr;
pub mod solve;
pub mod svd;
pub mod triangular;

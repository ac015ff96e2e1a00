//! Small differentiable building blocks of the backward rules: triangles, diagonals,
//! transposes, identities.

use crate::autograd::GradModeGuard;
use crate::{Result, Scalar, Tensor};

/// The transpose of the last two dims.
pub(crate) fn mt(t: &Tensor) -> Result<Tensor> {
    t.transpose(-2, -1)
}

/// A constant `[m, n]` tensor on `like`'s device and dtype, from `f(row, col)`.
fn constant(like: &Tensor, m: usize, n: usize, f: impl Fn(usize, usize) -> bool) -> Result<Tensor> {
    let v: Vec<bool> = (0..m * n).map(|k| f(k / n.max(1), k % n.max(1))).collect();
    let t = Tensor::from_vec(v, &[m, n])?;
    if like.device() == crate::Device::Cpu {
        Ok(t)
    } else {
        t.copy_to_device(like.device())
    }
}

/// Keeps the entries of the last two dims where `keep(row, col)`, zeroes the rest.
fn masked(t: &Tensor, keep: impl Fn(usize, usize) -> bool) -> Result<Tensor> {
    let nd = t.ndim();
    let (m, n) = (t.shape()[nd - 2], t.shape()[nd - 1]);
    let mask = constant(t, m, n, keep)?;
    let zero = Tensor::scalar(Scalar::Float(0.0), t.dtype());
    mask.where_(t, &zero)
}

/// `tril(t, k)`: entries on and below the k-th diagonal.
pub(crate) fn tril(t: &Tensor, k: i64) -> Result<Tensor> {
    masked(t, |i, j| (j as i64) - (i as i64) <= k)
}

/// `triu(t, k)`: entries on and above the k-th diagonal.
pub(crate) fn triu(t: &Tensor, k: i64) -> Result<Tensor> {
    masked(t, |i, j| (j as i64) - (i as i64) >= k)
}

/// The n x n identity in `like`'s dtype and device.
pub(crate) fn eye_like(like: &Tensor, n: usize) -> Result<Tensor> {
    let _no_grad = GradModeGuard::new(false);
    let e = Tensor::eye(n, n, like.dtype())?;
    crate::linalg::matrices::on(e, like.device())
}

/// Matrices with `v` (`[..., n]`) on their diagonals.
pub(crate) fn diag_embed(v: &Tensor) -> Result<Tensor> {
    let n = v.shape()[v.ndim() - 1];
    v.unsqueeze(-1)?.mul(&eye_like(v, n)?)
}

/// The diagonals of the last two dims (`[..., min(m, n)]`).
pub(crate) fn diagonal(t: &Tensor) -> Result<Tensor> {
    t.diagonal(0, -2, -1)
}

/// `x` as a 0-d tensor of `like`'s dtype.
pub(crate) fn scalar_like(like: &Tensor, x: f64) -> Tensor {
    Tensor::scalar(Scalar::Float(x), like.dtype())
}

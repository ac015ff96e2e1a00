//! The `Optimizer` trait that the Rust optimizers share, as `torch.optim.Optimizer`.

use crate::{bail, DType, Device, Result, Tensor};

/// Updates a fixed list of parameters from their `.grad`, as `torch.optim.Optimizer`.
pub trait Optimizer {
    /// One update of every parameter that has a gradient, as `opt.step()`; parameters whose
    /// `.grad` is `None` are skipped, as in PyTorch.
    fn step(&mut self) -> Result<()>;

    /// The parameters being optimized.
    fn params(&self) -> &[Tensor];

    /// The learning rate.
    fn lr(&self) -> f64;

    /// Sets the learning rate, for a schedule.
    fn set_lr(&mut self, lr: f64);

    /// Clears every parameter's `.grad`, as `opt.zero_grad()` (set_to_none=True).
    fn zero_grad(&self) -> Result<()> {
        for p in self.params() {
            p.set_grad(None)?;
        }
        Ok(())
    }
}

/// The fused CPU kernels update contiguous float32/float64 leaves in place.
pub(super) fn check_params(op: &str, params: &[Tensor]) -> Result<()> {
    for (i, p) in params.iter().enumerate() {
        if !matches!(p.dtype(), DType::F32 | DType::F64) || !p.is_contiguous() {
            bail!(
                Type,
                "{op}: parameter {i} must be a contiguous float32 or float64 tensor (got {} of shape {:?})",
                p.dtype().name(),
                p.shape()
            );
        }
        if p.device() != Device::Cpu {
            bail!(
                Runtime,
                "{op}: parameter {i} is on {:?}; the Rust optimizers update CPU tensors only",
                p.device()
            );
        }
        if !p.is_leaf() {
            bail!(
                Value,
                "{op}: can't optimize a non-leaf Tensor (parameter {i})"
            );
        }
    }
    Ok(())
}

/// The gradient of `p` as the fused kernels want it: contiguous, in `p`'s dtype.
pub(super) fn grad_of(p: &Tensor) -> Result<Option<Tensor>> {
    match p.grad() {
        None => Ok(None),
        Some(g) => Ok(Some(g.to_dtype(p.dtype())?.contiguous()?)),
    }
}

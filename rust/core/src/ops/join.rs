//! Joining and reordering: cat, stack, flip.

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::error::InOp;
use crate::layout::wrap_dim;
use crate::{bail, DType, Result, Tensor};

/// Where a concatenation's result goes.
enum Target<'a> {
    New,
    #[cfg(unix)]
    Shared,
    Out(&'a Tensor),
}

impl Tensor {
    /// `torch.cat`: tensors promote to a common dtype; legacy 1-D empty tensors are skipped.
    pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        Tensor::cat_to(tensors, dim, Target::New)
    }

    /// `torch.cat(..., out=out)`: writes into `out`, which must have the result's shape.
    pub fn cat_out(tensors: &[Tensor], dim: i64, out: &Tensor) -> Result<Tensor> {
        Tensor::cat_to(tensors, dim, Target::Out(out))
    }

    /// `torch.cat` into a new tensor allocated in shared memory (DataLoader workers).
    #[cfg(unix)]
    pub fn cat_shared(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        Tensor::cat_to(tensors, dim, Target::Shared)
    }

    /// `torch.stack(..., out=out)`.
    pub fn stack_out(tensors: &[Tensor], dim: i64, out: &Tensor) -> Result<Tensor> {
        Tensor::cat_out(
            &Tensor::stack_parts(tensors, dim)?,
            Tensor::stack_dim(tensors, dim)?,
            out,
        )
    }

    /// `torch.stack` into a new tensor allocated in shared memory.
    #[cfg(unix)]
    pub fn stack_shared(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        Tensor::cat_shared(
            &Tensor::stack_parts(tensors, dim)?,
            Tensor::stack_dim(tensors, dim)?,
        )
    }

    fn cat_to(tensors: &[Tensor], dim: i64, target: Target) -> Result<Tensor> {
        if tensors.is_empty() {
            bail!(Runtime, "torch.cat(): expected a non-empty list of Tensors");
        }
        // Every tensor is checked for zero dims first (PyTorch names the position).
        if let Some(i) = tensors.iter().position(|t| t.ndim() == 0) {
            bail!(
                Runtime,
                "torch.cat(): zero-dimensional tensor (at position {i}) cannot be concatenated"
            );
        }
        let parts: Vec<&Tensor> = tensors
            .iter()
            .filter(|t| !(t.ndim() == 1 && t.numel() == 0))
            .collect();
        // With every tensor a legacy empty one, PyTorch checks no dim: the result is empty.
        let all_legacy_empty = parts.is_empty();
        let parts: Vec<&Tensor> = if all_legacy_empty {
            vec![&tensors[0]]
        } else {
            parts
        };
        let first = parts[0];
        if first.ndim() == 0 {
            bail!(
                Runtime,
                "torch.cat(): zero-dimensional tensor (at position 0) cannot be concatenated"
            );
        }
        let d = if all_legacy_empty {
            0
        } else {
            wrap_dim("cat", dim, first.ndim())?
        };
        let mut dt = first.dtype();
        let mut total = 0;
        for (i, t) in parts.iter().enumerate() {
            if t.ndim() != first.ndim() {
                bail!(
                    Runtime,
                    "torch.cat(): Tensors must have same number of dimensions: got {} and {}",
                    first.ndim(),
                    t.ndim()
                );
            }
            for k in 0..first.ndim() {
                if k != d && t.shape()[k] != first.shape()[k] {
                    bail!(Runtime, "torch.cat(): Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list (shapes {} and {}).", first.shape()[k], t.shape()[k], fmt_shape(first.shape()), fmt_shape(t.shape()));
                }
            }
            dt = crate::dtype::promote_types(dt, t.dtype());
            total += t.shape()[d];
        }
        // Skipped legacy empty tensors still take part in the type promotion, as in PyTorch.
        for t in tensors {
            dt = crate::dtype::promote_types(dt, t.dtype());
        }
        let mut shape = first.shape().to_vec();
        shape[d] = total;
        // The result lives where the inputs do (PyTorch's error when they are on two devices).
        crate::backend::backend("cat", &parts)?;
        let device = first.device();
        let out = match target {
            Target::New => Tensor::zeros_on(&shape, dt, device).op("cat")?,
            #[cfg(unix)]
            Target::Shared => Tensor::zeros_shared(&shape, dt)?,
            Target::Out(o) => {
                if o.shape() != shape.as_slice() {
                    bail!(
                        Runtime,
                        "torch.cat(): the out tensor has shape {} but the result has shape {}",
                        fmt_shape(o.shape()),
                        fmt_shape(&shape)
                    );
                }
                if crate::autograd::is_grad_enabled() && parts.iter().any(|t| t.requires_grad()) {
                    bail!(Runtime, "cat(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.");
                }
                let o = o.clone();
                let mut start = 0;
                for t in &parts {
                    let n = t.shape()[d];
                    o.narrow(d as i64, start as i64, n as i64)?.write_from(t)?;
                    start += n;
                }
                o.storage().bump_version();
                return Ok(o);
            }
        };
        let mut start = 0;
        let mut sizes = Vec::new();
        for t in &parts {
            let n = t.shape()[d];
            out.detach()
                .narrow(d as i64, start as i64, n as i64)?
                .write_from(t)?;
            sizes.push((n, t.dtype()));
            start += n;
        }
        let inputs: Vec<&Tensor> = parts.to_vec();
        Ok(record(
            "CatBackward0",
            out,
            &inputs,
            &[],
            false,
            move |g, _| {
                let mut s = 0i64;
                let mut grads = Vec::new();
                for &(n, t_dt) in &sizes {
                    grads.push(Some(g.narrow(d as i64, s, n as i64)?.to_dtype(t_dt)?));
                    s += n as i64;
                }
                Ok(grads)
            },
        ))
    }

    /// `torch.stack`: all tensors must have the same shape.
    pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        Tensor::cat(
            &Tensor::stack_parts(tensors, dim)?,
            Tensor::stack_dim(tensors, dim)?,
        )
    }

    fn stack_dim(tensors: &[Tensor], dim: i64) -> Result<i64> {
        if tensors.is_empty() {
            bail!(Runtime, "stack expects a non-empty TensorList");
        }
        Ok(wrap_dim("stack", dim, tensors[0].ndim() + 1)? as i64)
    }

    /// The inputs of a stack, each with the new dim inserted, after the shape check.
    fn stack_parts(tensors: &[Tensor], dim: i64) -> Result<Vec<Tensor>> {
        let d = Tensor::stack_dim(tensors, dim)?;
        for (i, t) in tensors.iter().enumerate() {
            if t.shape() != tensors[0].shape() {
                bail!(Runtime, "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}", fmt_shape(tensors[0].shape()), fmt_shape(t.shape()));
            }
        }
        tensors.iter().map(|t| t.unsqueeze(d)).collect()
    }

    /// `flip(dims)`: a copy with the order of the given dims reversed.
    pub fn flip(&self, dims: &[i64]) -> Result<Tensor> {
        if self.ndim() == 0 {
            for &d in dims {
                wrap_dim("flip", d, 0)?;
            }
            return self.clone_tensor();
        }
        let mut out = self.detach();
        let mut seen = Vec::new();
        for &d in dims {
            let d = wrap_dim("flip", d, self.ndim())?;
            if seen.contains(&d) {
                bail!(
                    Runtime,
                    "flip: dim {d} appears multiple times in the list of dims"
                );
            }
            seen.push(d);
            let n = self.shape()[d] as i64;
            let idx = Tensor::from_vec((0..n).rev().collect::<Vec<i64>>(), &[n as usize])?;
            out = out.index_select(d as i64, &idx)?;
        }
        if seen.is_empty() {
            out = out.contiguous_copy()?;
        }
        let dims: Vec<i64> = seen.iter().map(|&d| d as i64).collect();
        Ok(record(
            "FlipBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.flip(&dims)?)]),
        ))
    }

    /// True when every tensor has dtype `dt`.
    pub fn all_dtype(tensors: &[Tensor], dt: DType) -> bool {
        tensors.iter().all(|t| t.dtype() == dt)
    }
}

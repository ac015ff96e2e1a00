//! `index_fill`: every slice along `dim` picked by `index` set to one value. Composed of
//! `index_put` (so it is differentiable), after PyTorch's own checks in PyTorch's order.

use crate::layout::wrap_dim;
use crate::ops::index::TensorIndex;
use crate::{bail, DType, Result, Tensor};

/// The index expression `[:, :, ..., index]` with `index` at `dim`.
fn items_at(dim: usize, index: &Tensor) -> Vec<TensorIndex> {
    let mut items = vec![
        TensorIndex::Slice {
            start: None,
            stop: None,
            step: 1,
        };
        dim
    ];
    items.push(TensorIndex::Tensor(index.clone()));
    items
}

/// PyTorch's checks: an int64 index of at most one dim, a 0-d value, and no index into a
/// dim of size 0 (PyTorch fails there with a storage error, a RuntimeError).
fn check_index_fill(x: &Tensor, dim: usize, index: &Tensor, value: &Tensor) -> Result<()> {
    if index.dtype() != DType::I64 {
        bail!(
            Index,
            "index_fill_(): Expected dtype int64 for index, got {}",
            index.dtype().scalar_type_name()
        );
    }
    if index.ndim() > 1 {
        bail!(
            Runtime,
            "index_fill_(): Index has to be a vector/scalar, got shape {}",
            crate::error::fmt_shape(index.shape())
        );
    }
    if value.ndim() != 0 {
        bail!(
            Runtime,
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.ndim()
        );
    }
    let size = if x.ndim() == 0 { 1 } else { x.shape()[dim] };
    // PyTorch restrides the input with `dim` of size 1: that fails for a size-0 dim unless
    // another dim is empty too.
    let rest: usize = (0..x.ndim())
        .filter(|&d| d != dim)
        .map(|d| x.shape()[d])
        .product();
    if size == 0 && index.numel() > 0 && rest > 0 {
        bail!(
            Runtime,
            "index_fill_(): cannot index into dimension {dim} of size 0 (input shape {})",
            crate::error::fmt_shape(x.shape())
        );
    }
    Ok(())
}

impl Tensor {
    /// `index_fill(dim, index, value)`: a copy with the slices `index` along `dim` set to
    /// `value` (a 0-d tensor; a 0-d input fills as a one-element vector and stays 0-d).
    pub fn index_fill(&self, dim: i64, index: &Tensor, value: &Tensor) -> Result<Tensor> {
        let d = wrap_dim("index_fill", dim, self.ndim())?;
        check_index_fill(self, d, index, value)?;
        if self.numel() == 0 {
            // Nothing to fill: no index is looked at.
            return self.clone_tensor();
        }
        let items = items_at(d, index);
        if self.ndim() == 0 {
            return self
                .reshape(&[1])?
                .index_put(&items, value, false)?
                .reshape(&[]);
        }
        self.index_put(&items, value, false)
    }

    /// `index_fill_(dim, index, value)` in place.
    pub fn index_fill_(&self, dim: i64, index: &Tensor, value: &Tensor) -> Result<()> {
        wrap_dim("index_fill_", dim, self.ndim())?;
        self.apply_inplace("index_fill_", &[value], |s| s.index_fill(dim, index, value))
    }
}

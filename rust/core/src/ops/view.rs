//! Views: tensors that share storage with their input (reshape, permute, narrow, expand, ...).
//!
//! Every strided view is described by one function from the input's layout to the view's
//! layout. Forward applies it to the real layout; backward applies it to a contiguous layout
//! of the input's shape to scatter the gradient back (no overlap) — one rule for all views.

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::layout::{contiguous_strides, numel, wrap_dim, Layout};
use crate::{bail, Error, Result, Tensor};
use std::sync::Arc;

type Geometry = Arc<dyn Fn(&Layout) -> Layout + Send + Sync>;

/// Scatters `g` (shaped like the view) into zeros shaped like the input.
fn view_backward(g: &Tensor, in_shape: &[usize], geom: Geometry) -> Result<Tensor> {
    let base = Tensor::zeros_on(in_shape, g.dtype(), g.device())?;
    let view_layout = geom(base.layout());
    base.alias(view_layout).write_from(g)?;
    let shape = g.shape().to_vec();
    let geom2 = geom.clone();
    Ok(record(
        "AsStridedScatterBackward0",
        base,
        &[g],
        &[],
        false,
        move |gg, _| {
            let v = gg.contiguous()?.strided_view("as_strided", geom2.clone())?;
            debug_assert_eq!(v.shape(), &shape[..]);
            Ok(vec![Some(v)])
        },
    ))
}

/// Extracts the row-major dims of a tensor: `sizes` with inferred `-1`.
pub fn infer_shape(op: &str, sizes: &[i64], n: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                bail!(Runtime, "{op}: only one dimension can be inferred");
            }
            infer = Some(i);
        } else if s < 0 {
            bail!(Runtime, "{op}: invalid shape dimension {s}");
        } else {
            known *= s as usize;
        }
    }
    let mut out: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
    match infer {
        Some(i) if known != 0 && n.is_multiple_of(known) => out[i] = n / known,
        None if known == n => {}
        _ => bail!(
            Runtime,
            "{op}: shape '{}' is invalid for input of size {n}",
            fmt_sizes(sizes)
        ),
    }
    Ok(out)
}

fn fmt_sizes(sizes: &[i64]) -> String {
    let parts: Vec<String> = sizes.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Strides for viewing `layout` as `shape` without a copy, if possible.
fn view_strides(layout: &Layout, shape: &[usize]) -> Option<Vec<usize>> {
    if layout.is_contiguous() {
        return Some(contiguous_strides(shape));
    }
    let n = layout.numel();
    if n == 0 {
        return Some(contiguous_strides(shape));
    }
    // Walk chunks of old dims that are mutually contiguous and match them to new dims.
    let (old_s, old_st) = (&layout.shape, &layout.strides);
    let mut new_st = vec![0usize; shape.len()];
    let mut view_d = shape.len() as isize - 1;
    let mut chunk_base_stride = *old_st.last().unwrap_or(&1);
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..old_s.len()).rev() {
        tensor_numel *= old_s[tensor_d];
        if tensor_d == 0
            || (old_s[tensor_d - 1] != 1
                && old_st[tensor_d - 1] != tensor_numel * chunk_base_stride)
        {
            while view_d >= 0 && (view_numel < tensor_numel || shape[view_d as usize] == 1) {
                new_st[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_st[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_st)
}

impl Tensor {
    /// A view given by `geom`, with the generic scatter backward.
    pub(crate) fn strided_view(&self, name: &'static str, geom: Geometry) -> Result<Tensor> {
        let out = self.view_alias(geom(self.layout()));
        let in_shape = self.shape().to_vec();
        Ok(record(name, out, &[self], &[], false, move |g, _| {
            Ok(vec![Some(view_backward(g, &in_shape, geom.clone())?)])
        }))
    }

    /// `view`: fails when the strides do not allow it.
    pub fn view(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_shape("view", sizes, self.numel())?;
        let Some(strides) = view_strides(self.layout(), &shape) else {
            bail!(Runtime, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        };
        self.view_as_shape(shape, strides, "ViewBackward0")
    }

    fn view_as_shape(
        &self,
        shape: Vec<usize>,
        strides: Vec<usize>,
        name: &'static str,
    ) -> Result<Tensor> {
        let out = self.view_alias(Layout {
            shape,
            strides,
            offset: self.offset(),
        });
        let in_shape: Vec<i64> = self.shape().iter().map(|&d| d as i64).collect();
        Ok(record(name, out, &[self], &[], false, move |g, _| {
            Ok(vec![Some(g.reshape(&in_shape)?)])
        }))
    }

    /// `reshape`: a view when possible, a copy otherwise.
    pub fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_shape("reshape", sizes, self.numel())?;
        if shape == self.shape() {
            return Ok(self.clone());
        }
        match view_strides(self.layout(), &shape) {
            Some(strides) => self.view_as_shape(shape, strides, "ViewBackward0"),
            None => {
                let c = self.clone_tensor()?;
                let strides = contiguous_strides(&shape);
                c.view_as_shape(shape, strides, "UnsafeViewBackward0")
            }
        }
    }

    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            // The dims are still checked: a 0-d tensor acts as one dim here (PyTorch).
            wrap_dim("flatten", start, 0)?;
            wrap_dim("flatten", end, 0)?;
            return self.reshape(&[1]);
        }
        let (s, e) = (
            wrap_dim("flatten", start, self.ndim())?,
            wrap_dim("flatten", end, self.ndim())?,
        );
        if s > e {
            bail!(
                Runtime,
                "flatten() has invalid args: start_dim cannot come after end_dim"
            );
        }
        let mut sizes: Vec<i64> = self.shape()[..s].iter().map(|&d| d as i64).collect();
        sizes.push(self.shape()[s..=e].iter().product::<usize>() as i64);
        sizes.extend(self.shape()[e + 1..].iter().map(|&d| d as i64));
        self.reshape(&sizes)
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        let nd = self.ndim();
        if dims.len() != nd {
            bail!(Runtime, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {}", dims.len());
        }
        let mut perm = Vec::with_capacity(nd);
        for &d in dims {
            let d = wrap_dim("permute", d, nd)?;
            if perm.contains(&d) {
                bail!(Runtime, "permute(): duplicate dims are not allowed.");
            }
            perm.push(d);
        }
        let p2 = perm.clone();
        let out = self.view_alias(Layout {
            shape: perm.iter().map(|&d| self.shape()[d]).collect(),
            strides: perm.iter().map(|&d| self.strides()[d]).collect(),
            offset: self.offset(),
        });
        Ok(record(
            "PermuteBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let mut inv = vec![0i64; p2.len()];
                for (i, &d) in p2.iter().enumerate() {
                    inv[d] = i as i64;
                }
                Ok(vec![Some(g.permute(&inv)?)])
            },
        ))
    }

    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        let nd = self.ndim();
        let (a, b) = (
            wrap_dim("transpose", d0, nd)?,
            wrap_dim("transpose", d1, nd)?,
        );
        if nd == 0 {
            return Ok(self.clone());
        }
        let mut perm: Vec<i64> = (0..nd as i64).collect();
        perm.swap(a, b);
        self.permute(&perm)
    }

    /// `t()`: transpose of a tensor with at most 2 dims.
    pub fn t(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            bail!(
                Runtime,
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                self.ndim()
            );
        }
        if self.ndim() < 2 {
            return Ok(self.clone());
        }
        self.transpose(0, 1)
    }

    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        let nd = sizes.len();
        if nd < self.ndim() {
            bail!(Runtime, "expand: the number of sizes provided ({nd}) must be greater or equal to the number of dimensions in the tensor ({})", self.ndim());
        }
        let lead = nd - self.ndim();
        let mut shape = Vec::with_capacity(nd);
        for (i, &s) in sizes.iter().enumerate() {
            if s == -1 {
                if i < lead {
                    bail!(
                        Runtime,
                        "expand: -1 is not allowed in a leading, non-existing dimension {i}"
                    );
                }
                shape.push(self.shape()[i - lead]);
            } else if s < 0 {
                bail!(Runtime, "expand: invalid size {s}");
            } else {
                shape.push(s as usize);
            }
        }
        if shape == self.shape() {
            return Ok(self.clone());
        }
        // A view whose element count wraps around would look small (or empty) to every op.
        if crate::alloc_size::checked_numel(&shape).is_none() {
            bail!(Runtime, "numel: integer multiplication overflow");
        }
        let strides = self.layout().broadcast_strides("expand", &shape)?;
        let out = self.view_alias(Layout {
            shape,
            strides,
            offset: self.offset(),
        });
        let in_shape = self.shape().to_vec();
        Ok(record(
            "ExpandBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.sum_to(&in_shape)?)]),
        ))
    }

    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        self.expand(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>())
    }

    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim("unsqueeze", dim, self.ndim() + 1)?;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        let st = if d < self.ndim() {
            strides[d] * shape[d]
        } else {
            1
        };
        shape.insert(d, 1);
        strides.insert(d, st);
        self.view_as_shape(shape, strides, "UnsqueezeBackward0")
    }

    /// `squeeze(dims)`: removes the given size-1 dims (all size-1 dims when `None`).
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        let nd = self.ndim();
        let drop: Vec<usize> = match dims {
            None => (0..nd).filter(|&d| self.shape()[d] == 1).collect(),
            Some(ds) => {
                let mut v = Vec::new();
                for &d in ds {
                    let d = wrap_dim("squeeze", d, nd)?;
                    if nd > 0 && self.shape()[d] == 1 {
                        v.push(d);
                    }
                }
                v
            }
        };
        let keep: Vec<usize> = (0..nd).filter(|d| !drop.contains(d)).collect();
        let shape = keep.iter().map(|&d| self.shape()[d]).collect();
        let strides = keep.iter().map(|&d| self.strides()[d]).collect();
        self.view_as_shape(shape, strides, "SqueezeBackward0")
    }

    /// `narrow(dim, start, length)`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Runtime, "narrow() cannot be applied to a 0-dim tensor.");
        }
        if length < 0 {
            // Checked before the dim, as PyTorch does.
            bail!(
                Runtime,
                "narrow(): length must be non-negative (got {length})"
            );
        }
        let d = wrap_dim("narrow", dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if start < -size || start > size {
            bail!(Index, "narrow: start out of range (expected to be in range of [{}, {size}], but got {start}) for shape {}", -size, fmt_shape(self.shape()));
        }
        let start = if start < 0 { start + size } else { start };
        if length < 0 {
            bail!(
                Runtime,
                "narrow(): length must be non-negative (got {length})"
            );
        }
        if start.saturating_add(length) > size {
            bail!(Runtime, "narrow: start ({start}) + length ({length}) exceeds dimension size ({size}) of tensor of shape {}", fmt_shape(self.shape()));
        }
        self.slice(d, start, start + length, 1)
    }

    /// `t[start:stop:step]` along `dim` (bounds already clamped to the dim).
    pub fn slice(&self, dim: usize, start: i64, stop: i64, step: i64) -> Result<Tensor> {
        if step <= 0 {
            bail!(Value, "slice step must be positive (got {step})");
        }
        let (start, stop) = (start.max(0) as usize, stop.max(start) as usize);
        let len = (stop - start).div_ceil(step as usize);
        let step = step as usize;
        self.strided_view(
            "SliceBackward0",
            Arc::new(move |l: &Layout| {
                let mut l = l.clone();
                if len > 0 {
                    l.offset += start * l.strides[dim];
                }
                l.shape[dim] = len;
                l.strides[dim] *= step;
                l
            }),
        )
    }

    /// `select(dim, index)`: removes `dim`, keeping one index.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim("select", dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        let i = if index < 0 { index + size } else { index };
        if i < 0 || i >= size {
            bail!(
                Index,
                "select(): index {index} out of range for tensor of size {} at dimension {d}",
                fmt_shape(self.shape())
            );
        }
        let i = i as usize;
        self.strided_view(
            "SelectBackward0",
            Arc::new(move |l: &Layout| {
                let mut l = l.clone();
                l.offset += i * l.strides[d];
                l.shape.remove(d);
                l.strides.remove(d);
                l
            }),
        )
    }

    /// `diagonal(offset, dim1, dim2)`: the diagonal becomes the last dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let nd = self.ndim();
        let (a, b) = (
            wrap_dim("diagonal", dim1, nd)?,
            wrap_dim("diagonal", dim2, nd)?,
        );
        if a == b {
            bail!(
                Runtime,
                "diagonal dimensions cannot be identical {dim1}, {dim2}"
            );
        }
        let (sa, sb) = (self.shape()[a] as i64, self.shape()[b] as i64);
        let len = if offset >= 0 {
            (sa.min(sb - offset)).max(0)
        } else {
            (sa + offset).min(sb).max(0)
        } as usize;
        self.strided_view(
            "DiagonalBackward0",
            Arc::new(move |l: &Layout| {
                let mut off = l.offset;
                if len > 0 {
                    off += if offset >= 0 {
                        offset as usize * l.strides[b]
                    } else {
                        (-offset) as usize * l.strides[a]
                    };
                }
                let stride = l.strides[a] + l.strides[b];
                let mut shape = Vec::new();
                let mut strides = Vec::new();
                for i in 0..l.shape.len() {
                    if i != a && i != b {
                        shape.push(l.shape[i]);
                        strides.push(l.strides[i]);
                    }
                }
                shape.push(len);
                strides.push(stride);
                Layout {
                    shape,
                    strides,
                    offset: off,
                }
            }),
        )
    }

    /// `unflatten(dim, sizes)`.
    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        // PyTorch checks the sizes before the dim, a 0-d input's included.
        if sizes.is_empty() {
            bail!(Runtime, "unflatten: sizes must be non-empty");
        }
        if self.ndim() == 0 {
            // An out-of-range dim is an IndexError first; any other dim has nothing to split.
            let d = wrap_dim("unflatten", dim, 0)?;
            bail!(
                Runtime,
                "unflatten: Dimension specified as {d} but tensor has no dimensions"
            );
        }
        let d = wrap_dim("unflatten", dim, self.ndim())?;
        let inner = infer_shape("unflatten", sizes, self.shape()[d])?;
        let mut shape: Vec<i64> = self.shape()[..d].iter().map(|&x| x as i64).collect();
        shape.extend(inner.iter().map(|&x| x as i64));
        shape.extend(self.shape()[d + 1..].iter().map(|&x| x as i64));
        self.reshape(&shape)
    }

    /// Number of elements in dim `d`, after wrapping.
    pub fn size_at(&self, dim: i64) -> Result<usize> {
        self.need_dims("size", 1)?;
        Ok(self.shape()[wrap_dim("size", dim, self.ndim())?])
    }

    /// Ops that split along a dim need a tensor that has one.
    fn need_dims(&self, op: &str, n: usize) -> Result<()> {
        if self.ndim() < n {
            bail!(
                Index,
                "{op}: Dimension specified as 0 but tensor has no dimensions"
            );
        }
        Ok(())
    }

    /// Splits into pieces of the given sizes along `dim`.
    pub fn split_with_sizes(&self, sizes: &[usize], dim: i64) -> Result<Vec<Tensor>> {
        self.need_dims("split", 1)?;
        let d = wrap_dim("split_with_sizes", dim, self.ndim())?;
        if sizes.iter().sum::<usize>() != self.shape()[d] {
            bail!(Runtime, "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {d}), but got split_sizes={:?}", self.shape()[d], sizes);
        }
        let mut start = 0i64;
        let mut out = Vec::new();
        for &s in sizes {
            out.push(self.narrow(d as i64, start, s as i64)?);
            start += s as i64;
        }
        Ok(out)
    }

    pub fn split(&self, size: usize, dim: i64) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            bail!(Runtime, "split expects at least a 1-dimensional tensor");
        }
        let d = wrap_dim("split", dim, self.ndim())?;
        let n = self.shape()[d];
        if size == 0 && n != 0 {
            bail!(
                Runtime,
                "split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            );
        }
        let mut sizes = Vec::new();
        let mut left = n;
        while left > 0 {
            sizes.push(size.min(left));
            left -= size.min(left);
        }
        if sizes.is_empty() {
            sizes.push(0);
        }
        self.split_with_sizes(&sizes, d as i64)
    }

    pub fn chunk(&self, chunks: usize, dim: i64) -> Result<Vec<Tensor>> {
        if chunks == 0 {
            bail!(
                Runtime,
                "chunk expects `chunks` to be greater than 0, got: 0"
            );
        }
        if self.ndim() == 0 {
            bail!(Runtime, "chunk expects at least a 1-dimensional tensor");
        }
        let d = wrap_dim("chunk", dim, self.ndim())?;
        let n = self.shape()[d];
        if n == 0 {
            // PyTorch: `chunks` empty pieces of a size-0 dim, not one (a list too large to
            // allocate is its bad_alloc, a RuntimeError, not an abort).
            let mut pieces: Vec<Tensor> = Vec::new();
            if pieces.try_reserve_exact(chunks).is_err() {
                bail!(
                    Runtime,
                    "chunk: std::bad_alloc (a list of {chunks} empty chunks of shape {})",
                    fmt_shape(self.shape())
                );
            }
            for _ in 0..chunks {
                pieces.push(self.narrow(d as i64, 0, 0)?);
            }
            return Ok(pieces);
        }
        self.split(n.div_ceil(chunks), d as i64)
    }

    pub fn unbind(&self, dim: i64) -> Result<Vec<Tensor>> {
        self.need_dims("unbind", 1)?;
        let d = wrap_dim("unbind", dim, self.ndim())?;
        (0..self.shape()[d])
            .map(|i| self.select(d as i64, i as i64))
            .collect()
    }

    /// True when both views have the same numel and shape.
    pub fn same_shape(&self, other: &Tensor) -> bool {
        self.shape() == other.shape()
    }

    /// The size check shared by ops that need equal element counts.
    pub fn check_numel(&self, op: &str, n: usize) -> Result<()> {
        if numel(self.shape()) != n {
            return Err(Error::runtime(format!(
                "{op}: expected {n} elements, got {}",
                self.numel()
            )));
        }
        Ok(())
    }
}

//! `t[...]` and `t[...] = v`: basic indexing gives views; advanced indexing (integer and bool
//! tensors) is composed of permute, reshape and index_select, so it is differentiable with no
//! rule of its own. Assignment goes through one primitive, `put_linear`.

use crate::autograd::{is_grad_enabled, record};
use crate::error::fmt_shape;
use crate::layout::broadcast_shapes;
use crate::{bail, with_dtype, DType, Element, Result, Scalar, Tensor};

/// One component of an index expression.
#[derive(Clone, Debug)]
pub enum TensorIndex {
    Int(i64),
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    },
    NewAxis,
    Ellipsis,
    /// Python `True` / `False` as an index: a new axis of size 1 or 0.
    Bool(bool),
    /// An integer (advanced) or bool (mask) tensor.
    Tensor(Tensor),
}

/// Python slice bounds resolved against a dim of `size` (positive step).
fn slice_bounds(start: Option<i64>, stop: Option<i64>, step: i64, size: i64) -> (i64, i64) {
    let clamp = |v: i64| {
        if v < 0 {
            (v + size).max(0)
        } else {
            v.min(size)
        }
    };
    let s = start.map(clamp).unwrap_or(0);
    let e = stop.map(clamp).unwrap_or(size);
    let _ = step;
    (s, e.max(s))
}

fn shape_str(t: &Tensor) -> String {
    fmt_shape(t.shape())
}

impl Tensor {
    /// Applies the basic part of an index; returns the view and the advanced indices with the
    /// view dim each applies to.
    fn index_basic(&self, items: &[TensorIndex]) -> Result<(Tensor, Vec<(usize, Tensor)>)> {
        let consumed: usize = items
            .iter()
            .map(|it| match it {
                TensorIndex::Int(_) | TensorIndex::Slice { .. } => 1,
                TensorIndex::Tensor(t) if t.dtype() == DType::Bool || t.dtype() == DType::U8 => {
                    t.ndim()
                }
                TensorIndex::Tensor(_) => 1,
                _ => 0,
            })
            .sum();
        // A bad step is a ValueError before any count of dims (PyTorch unpacks slices first).
        for it in items {
            if let TensorIndex::Slice { step, .. } = it {
                if *step <= 0 {
                    bail!(Value, "step must be greater than zero (got {step})");
                }
            }
        }
        if consumed > self.ndim() {
            bail!(
                Index,
                "too many indices for tensor of dimension {} (got {consumed})",
                self.ndim()
            );
        }
        let ellipses = items
            .iter()
            .filter(|i| matches!(i, TensorIndex::Ellipsis))
            .count();
        if ellipses > 1 {
            bail!(Index, "an index can only have a single ellipsis ('...')");
        }
        let mut v = self.clone();
        let mut d = 0usize;
        let mut adv: Vec<(usize, Tensor)> = Vec::new();
        for it in items {
            match it {
                TensorIndex::Int(i) => {
                    let size = v.shape()[d] as i64;
                    if *i < -size || *i >= size {
                        bail!(
                            Index,
                            "index {i} is out of bounds for dimension {d} with size {size}"
                        );
                    }
                    v = v.select(d as i64, *i)?;
                }
                TensorIndex::Slice { start, stop, step } => {
                    if *step <= 0 {
                        bail!(Value, "step must be greater than zero (got {step})");
                    }
                    let (s, e) = slice_bounds(*start, *stop, *step, v.shape()[d] as i64);
                    v = v.slice(d, s, e, *step)?;
                    d += 1;
                }
                TensorIndex::NewAxis => {
                    v = v.unsqueeze(d as i64)?;
                    d += 1;
                }
                TensorIndex::Bool(b) => {
                    v = v.unsqueeze(d as i64)?;
                    if !b {
                        v = v.narrow(d as i64, 0, 0)?;
                    }
                    d += 1;
                }
                TensorIndex::Ellipsis => d += self.ndim() - consumed,
                TensorIndex::Tensor(t) => {
                    if t.dtype() == DType::Bool || t.dtype() == DType::U8 {
                        let k = t.ndim();
                        if t.shape() != &v.shape()[d..d + k] {
                            bail!(Index, "The shape of the mask {} at index {d} does not match the shape of the indexed tensor {}", shape_str(t), shape_str(&v));
                        }
                        for (j, idx) in t.nonzero_columns()?.into_iter().enumerate() {
                            adv.push((d + j, idx));
                        }
                        d += k;
                    } else if t.dtype().is_float() {
                        bail!(Index, "tensors used as indices must be long, int, byte or bool tensors (got {})", t.dtype().name());
                    } else {
                        adv.push((d, t.clone()));
                        d += 1;
                    }
                }
            }
        }
        Ok((v, adv))
    }

    /// For a bool tensor: the int64 index of each True element, one 1-D tensor per dim.
    pub fn nonzero_columns(&self) -> Result<Vec<Tensor>> {
        let mask = self.try_to_vec::<bool>()?;
        let nd = self.ndim();
        let strides = crate::layout::contiguous_strides(self.shape());
        let mut cols: Vec<Vec<i64>> = vec![Vec::new(); nd.max(1)];
        for (lin, &m) in mask.iter().enumerate() {
            if m {
                for (k, col) in cols.iter_mut().enumerate().take(nd) {
                    col.push(((lin / strides[k]) % self.shape()[k]) as i64);
                }
                if nd == 0 {
                    cols[0].push(0);
                }
            }
        }
        if nd == 0 {
            // A 0-d mask adds a dim of size 1 (True) or 0 (False); handled by the caller as a column.
            return Ok(vec![]);
        }
        // Found on the host (a device mask is copied over); the indices live with the mask.
        cols.into_iter()
            .map(|c| {
                let n = c.len();
                Tensor::from_vec(c, &[n])?.to_device(self.device())
            })
            .collect()
    }

    /// `nonzero()`: [count, ndim] int64 indices of non-zero elements.
    pub fn nonzero(&self) -> Result<Tensor> {
        let b = self.binary_scalar(crate::ops::BinaryOp::Ne, Scalar::Int(0))?;
        let cols = b.nonzero_columns()?;
        if cols.is_empty() {
            let n = b.try_to_vec::<bool>()?.iter().filter(|&&v| v).count();
            return Tensor::from_vec(Vec::<i64>::new(), &[n, 0])?.to_device(self.device());
        }
        let stacked = Tensor::stack(&cols, 1)?;
        Ok(stacked.detach())
    }

    /// `t[items]`.
    pub fn index(&self, items: &[TensorIndex]) -> Result<Tensor> {
        // A 0-d bool tensor index behaves like Python True/False.
        let items: Vec<TensorIndex> = items
            .iter()
            .map(|it| match it {
                TensorIndex::Tensor(t) if t.ndim() == 0 && t.dtype() == DType::Bool => {
                    Ok(TensorIndex::Bool(t.item()?.to_i64() != 0))
                }
                other => Ok(other.clone()),
            })
            .collect::<Result<_>>()?;
        let (v, adv) = self.index_basic(&items)?;
        if adv.is_empty() {
            return Ok(v);
        }
        v.gather_advanced(&adv)
    }

    /// Advanced indexing of view `v` with integer tensors at the given dims (NumPy rules).
    fn gather_advanced(&self, adv: &[(usize, Tensor)]) -> Result<Tensor> {
        let v = self;
        let mut bshape: Vec<usize> = Vec::new();
        for (_, t) in adv {
            bshape = broadcast_shapes("index", &bshape, t.shape()).map_err(|_| {
                crate::Error::index(format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    adv.iter().map(|(_, t)| shape_str(t)).collect::<Vec<_>>().join(", ")
                ))
            })?;
        }
        let dims: Vec<usize> = adv.iter().map(|(d, _)| *d).collect();
        let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
        // Linear index into the flattened advanced dims, with bounds checks and negative wrap.
        let sizes: Vec<usize> = dims.iter().map(|&d| v.shape()[d]).collect();
        let n: usize = bshape.iter().product();
        let mut lin = crate::alloc_size::try_vec(n)?;
        lin.resize(n, 0i64);
        let rest: Vec<usize> = (0..v.ndim()).filter(|d| !dims.contains(d)).collect();
        if n > 0 && sizes.contains(&0) {
            bail!(Index, "index is out of bounds for dimension with size 0");
        }
        // As in PyTorch, indices are checked as elements are read: an empty result reads none.
        let reads = rest.iter().all(|&d| v.shape()[d] > 0);
        let mut mult = 1i64;
        for (k, (d, t)) in adv.iter().enumerate().rev() {
            let size = sizes[k] as i64;
            let vals = t
                .to_dtype_raw(DType::I64)?
                .broadcast_to(&bshape)?
                .try_to_vec::<i64>()?;
            for (l, &i) in lin.iter_mut().zip(&vals) {
                if !reads {
                    continue;
                }
                if i < -size || i >= size {
                    bail!(
                        Index,
                        "index {i} is out of bounds for dimension {d} with size {size}"
                    );
                }
                *l += (if i < 0 { i + size } else { i }) * mult;
            }
            mult *= size;
        }
        let mut perm: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        perm.extend(rest.iter().map(|&d| d as i64));
        let mut flat_shape: Vec<i64> = vec![sizes.iter().product::<usize>() as i64];
        flat_shape.extend(rest.iter().map(|&d| v.shape()[d] as i64));
        let moved = v.permute(&perm)?.reshape(&flat_shape)?;
        let picked = moved.index_select(0, &Tensor::from_vec(lin, &[n])?)?;
        let mut out_shape: Vec<i64> = bshape.iter().map(|&d| d as i64).collect();
        out_shape.extend(rest.iter().map(|&d| v.shape()[d] as i64));
        let out = picked.reshape(&out_shape)?;
        let first = dims[0];
        if adjacent && first > 0 {
            // Put the broadcast dims back where the advanced indices were.
            let nb = bshape.len();
            let nrest = rest.len();
            let mut p: Vec<i64> = (nb..nb + first).map(|d| d as i64).collect();
            p.extend((0..nb).map(|d| d as i64));
            p.extend((nb + first..nb + nrest).map(|d| d as i64));
            return out.permute(&p);
        }
        Ok(out)
    }

    /// Out-of-place assignment into the flattened tensor: `out[pos[i]] = v[i]` (or `+=`).
    pub fn put_linear(&self, pos: &Tensor, values: &Tensor, accumulate: bool) -> Result<Tensor> {
        let p = pos.try_to_vec::<i64>()?;
        let n = self.numel() as i64;
        let vals = values
            .to_dtype_raw(self.dtype())?
            .contiguous_copy_if_needed()?;
        if vals.numel() != p.len() {
            bail!(
                Runtime,
                "index_put: {} values for {} positions",
                vals.numel(),
                p.len()
            );
        }
        let out = if self.dtype().is_complex() {
            if let Some(&i) = p.iter().find(|&&i| i < 0 || i >= n) {
                bail!(
                    Index,
                    "index_put: position {i} is out of bounds for {n} elements"
                );
            }
            // Each element is a (re, im) pair of the real view.
            let pairs: Vec<i64> = p.iter().flat_map(|&i| [2 * i, 2 * i + 1]).collect();
            let pairs = Tensor::from_vec(pairs, &[2 * p.len()])?;
            let flat = self.contiguous_copy()?.real_alias().reshape(&[-1])?;
            let vflat = vals.real_alias().reshape(&[-1])?;
            let mut shape: Vec<i64> = self.shape().iter().map(|&d| d as i64).collect();
            shape.push(2);
            flat.put_linear(&pairs, &vflat, accumulate)?
                .reshape(&shape)?
                .complex_alias()?
        } else {
            let out = self.contiguous_copy()?;
            with_dtype!(self.dtype(), T => {
                let o: &mut [T] = unsafe { out.contiguous_slice_mut() };
                let v = vals.contiguous_slice::<T>();
                for (k, &i) in p.iter().enumerate() {
                    if i < 0 || i >= n {
                        bail!(Index, "index_put: position {i} is out of bounds for {n} elements");
                    }
                    o[i as usize] = if accumulate { add_elem(o[i as usize], v[k]) } else { v[k] };
                }
            });
            out
        };
        let (pos, vshape) = (pos.clone(), values.shape().to_vec());
        Ok(record(
            "IndexPutBackward0",
            out,
            &[self, values],
            &[],
            false,
            move |g, _| {
                let gself = if accumulate {
                    g.clone()
                } else {
                    let z = Tensor::zeros_on(&[pos.numel()], g.dtype(), g.device())?;
                    g.put_linear(&pos, &z, false)?
                };
                let gv = g
                    .reshape(&[-1])?
                    .index_select(0, &pos)?
                    .reshape(&vshape.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
                Ok(vec![Some(gself), Some(gv)])
            },
        ))
    }

    /// `t[items] = value` as a new tensor (the in-place form rebases history onto it).
    pub fn index_put(
        &self,
        items: &[TensorIndex],
        value: &Tensor,
        accumulate: bool,
    ) -> Result<Tensor> {
        // Where each selected element lives in the flattened tensor.
        let positions = Tensor::arange(0.0, self.numel() as f64, 1.0, DType::I64)?
            .reshape(&self.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())?;
        let sel = positions.index(items)?;
        let v = strip_leading_ones(&value.to_dtype(self.dtype())?, sel.ndim())?;
        let v = v.broadcast_to(sel.shape()).map_err(|_| {
            crate::Error::runtime(format!("shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}", shape_str(value), shape_str(&sel)))
        })?;
        let flat = self.reshape(&[-1])?;
        let out = flat.put_linear(&sel.reshape(&[-1])?, &v.reshape(&[-1])?, accumulate)?;
        out.reshape(&self.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())
    }

    /// `t[items] = value` in place.
    pub fn index_put_(
        &self,
        items: &[TensorIndex],
        value: &Tensor,
        accumulate: bool,
    ) -> Result<()> {
        let has_adv = items.iter().any(
            |i| matches!(i, TensorIndex::Tensor(t) if t.ndim() > 0 || t.dtype() != DType::Bool),
        );
        let tracking = is_grad_enabled() && (self.requires_grad() || value.requires_grad());
        if !has_adv && !tracking && !accumulate {
            // Fast path: write straight through the view.
            let view = self.detach().index(items)?;
            let value = strip_leading_ones(value, view.ndim())?;
            return view.write_from(&value.to_dtype_raw(self.dtype())?.broadcast_to(view.shape()).map_err(|_| {
                crate::Error::runtime(format!("shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}", shape_str(&value), shape_str(&view)))
            })?);
        }
        self.apply_inplace("index_put_", &[value], |s| {
            s.index_put(items, value, accumulate)
        })
    }
}

/// Drops leading size-1 dims of an assigned value beyond the target's rank, as PyTorch does
/// (so `t[0] = torch.tensor([5.0])` works on a 0-d slot).
fn strip_leading_ones(v: &Tensor, target_ndim: usize) -> Result<Tensor> {
    let mut v = v.clone();
    while v.ndim() > target_ndim && v.shape()[0] == 1 {
        v = v.squeeze(Some(&[0]))?;
    }
    Ok(v)
}

#[inline(always)]
fn add_elem<T: Element>(a: T, b: T) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(a.to_f64() + b.to_f64())
    } else {
        T::from_i64(a.to_i64().wrapping_add(b.to_i64()))
    }
}

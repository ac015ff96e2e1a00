//! Index-driven primitives: gather, scatter, scatter_add, index_select, index_add, where.

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::layout::{for_each_offset, wrap_dim, Layout};
use crate::{bail, with_dtype, DType, Element, Result, Scalar, Tensor};

#[inline(always)]
fn acc<T: Element>(a: T, b: T) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(a.to_f64() + b.to_f64())
    } else if T::DTYPE == DType::Bool {
        T::from_i64(((a.to_i64() != 0) || (b.to_i64() != 0)) as i64)
    } else {
        T::from_i64(a.to_i64().wrapping_add(b.to_i64()))
    }
}

fn index_values(op: &str, index: &Tensor) -> Result<Vec<i64>> {
    if index.dtype() != DType::I64 && index.dtype() != DType::I32 {
        bail!(
            Runtime,
            "{op}(): Expected dtype int64 for index, got {}",
            index.dtype().name()
        );
    }
    index.try_to_vec::<i64>()
}

/// PyTorch's checks of `index_add`, in its order: a vector index of int32/int64, a source of
/// the input's dtype with one slice per index and the input's shape elsewhere.
fn check_index_add(x: &Tensor, dim: usize, index: &Tensor, source: &Tensor) -> Result<()> {
    if index.ndim() > 1 {
        bail!(
            Index,
            "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
            index.ndim(),
            index.dtype().scalar_type_name(),
            fmt_shape(index.shape())
        );
    }
    if !matches!(index.dtype(), DType::I64 | DType::I32) {
        bail!(
            Runtime,
            "index_add_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype().scalar_type_name()
        );
    }
    if x.dtype() != source.dtype() {
        bail!(
            Runtime,
            "index_add_(): self ({}) and source ({}) must have the same scalar type",
            x.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        );
    }
    if dim != 0 && dim >= source.ndim() {
        bail!(
            Runtime,
            "index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim {}",
            source.ndim()
        );
    }
    let per_dim = if source.ndim() == 0 {
        1
    } else {
        source.shape()[dim]
    };
    if index.numel() != per_dim && x.ndim() == 0 {
        bail!(
            Index,
            "index_add_(): Dimension specified as 0 but tensor has no dimensions (a 0-d input takes one index, got {})",
            index.numel()
        );
    }
    if index.numel() != per_dim {
        bail!(
            Runtime,
            "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({per_dim}), for dim: {dim}",
            index.numel()
        );
    }
    let (mut xs, mut ss) = (x.shape().to_vec(), source.shape().to_vec());
    if x.ndim() > 0 && source.ndim() > 0 {
        xs.remove(dim);
        ss.remove(dim);
    }
    if xs != ss {
        bail!(
            Runtime,
            "index_add(): source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
            fmt_shape(x.shape()),
            fmt_shape(source.shape())
        );
    }
    Ok(())
}

/// `index_select`'s bounds checks (negative indices are out of range, unlike `t[idx]`), with
/// PyTorch's exception classes: its vector and dim-0 paths raise IndexError, its dim-1 path
/// and its empty-input path RuntimeError.
fn check_select_bounds(x: &Tensor, d: usize, idx: &[i64]) -> Result<()> {
    let size = x.shape()[d] as i64;
    let Some(&i) = idx.iter().find(|&&i| i < 0 || i >= size) else {
        return Ok(());
    };
    if x.ndim() > 1 && size == 0 {
        bail!(
            Runtime,
            "index_select(): self indexing axis dim should be positive (dimension {d} of input shape {} has size 0)",
            fmt_shape(x.shape())
        );
    }
    if x.ndim() > 1 && (d == 1 || x.numel() == 0) {
        bail!(
            Runtime,
            "index_select(): index {i} is out of bounds for dimension {d} with size {size}"
        );
    }
    bail!(
        Index,
        "index_select(): index {i} is out of range for dimension {d} with size {size}"
    )
}

/// PyTorch's scatter kernels take the source in the destination's dtype only.
fn check_same_dtype(op: &str, x: &Tensor, src: &Tensor) -> Result<()> {
    if x.dtype() != src.dtype() {
        bail!(
            Runtime,
            "{op}(): Expected self.dtype to be equal to src.dtype ({} vs {})",
            x.dtype().name(),
            src.dtype().name()
        );
    }
    Ok(())
}

/// Offsets into `x` of every position of `shape` with `dim` zeroed (the base of each lookup).
fn base_offsets(x_layout: &Layout, shape: &[usize], dim: usize) -> Result<Vec<usize>> {
    let mut strides: Vec<usize> = x_layout.strides.clone();
    strides[dim] = 0;
    let mut out = crate::alloc_size::try_vec(shape.iter().product())?;
    for_each_offset(shape, &strides, x_layout.offset, |o| out.push(o));
    Ok(out)
}

fn check_gather_shapes(op: &str, x: &Tensor, index: &Tensor, dim: usize) -> Result<()> {
    if index.ndim() != x.ndim().max(1) && !(x.ndim() == 0 && index.ndim() <= 1) {
        bail!(Runtime, "{op}(): Index tensor must have the same number of dimensions as input tensor (input {} and index {})", fmt_shape(x.shape()), fmt_shape(index.shape()));
    }
    for d in 0..x.ndim() {
        if d != dim && index.shape()[d] > x.shape()[d] {
            bail!(Runtime, "{op}(): Size does not match at dimension {d} expected index {} to be smaller than self {} apart from dimension {dim}", fmt_shape(index.shape()), fmt_shape(x.shape()));
        }
    }
    Ok(())
}

impl Tensor {
    pub(crate) fn as_1d_if_scalar(&self) -> Tensor {
        if self.ndim() == 0 {
            self.alias(Layout {
                shape: vec![1],
                strides: vec![1],
                offset: self.offset(),
            })
        } else {
            self.clone()
        }
    }

    /// `gather(dim, index)`: `out[i][j] = self[index[i][j]][j]` for dim 0.
    pub fn gather(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let d = wrap_dim("gather", dim, self.ndim())?;
        let x = self.as_1d_if_scalar();
        let idx_t = index.as_1d_if_scalar();
        check_gather_shapes("gather", &x, &idx_t, d)?;
        let on_cuda: Option<Result<Tensor>> =
            crate::cuda_forward!("gather", [self, index], |dev| {
                crate::cuda::ops::select::gather(&dev, &x, &idx_t, d)
            });
        let out = if let Some(out) = on_cuda {
            out?.reshape(&index.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())?
        } else if self.dtype().is_complex() {
            // Both parts of an element move together: gather the real view.
            let pairs = pair_index(&idx_t)?;
            x.real_alias()
                .gather(d as i64, &pairs)?
                .complex_alias()?
                .reshape(&index.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())?
        } else {
            self.gather_real(&x, &idx_t, index, d)?
        };
        let in_shape = self.shape().to_vec();
        let index = index.clone();
        Ok(record(
            "GatherBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let z = Tensor::zeros_on(&in_shape, g.dtype(), g.device())?;
                Ok(vec![Some(z.scatter_add(d as i64, &index, g)?)])
            },
        ))
    }

    /// The kernel of `gather` for real dtypes, outside autograd.
    fn gather_real(&self, x: &Tensor, idx_t: &Tensor, index: &Tensor, d: usize) -> Result<Tensor> {
        let idx = index_values("gather", index)?;
        let size = x.shape()[d] as i64;
        let out_shape = index.shape().to_vec();
        let out = Tensor::zeros(&out_shape, self.dtype())?;
        let bases = base_offsets(x.layout(), idx_t.shape(), d)?;
        let stride = x.strides()[d];
        with_dtype!(self.dtype(), T => {
            let src: &[T] = unsafe { x.storage().slice(0, x.layout().storage_span()) };
            let dst: &mut [T] = unsafe { out.contiguous_slice_mut() };
            for (k, (&b, &i)) in bases.iter().zip(&idx).enumerate() {
                if i < 0 || i >= size {
                    bail!(Runtime, "gather(): index {i} is out of bounds for dimension {d} with size {size}");
                }
                dst[k] = src[b + i as usize * stride];
            }
        });
        Ok(out)
    }

    fn scatter_impl(
        &self,
        op: &str,
        dim: usize,
        index: &Tensor,
        src: &Tensor,
        add: bool,
    ) -> Result<Tensor> {
        if index.numel() == 0 {
            // Nothing is written, and PyTorch checks no shapes then.
            return self.detach().contiguous_copy();
        }
        let x = self.as_1d_if_scalar();
        let idx_t = index.as_1d_if_scalar();
        check_gather_shapes(op, &x, &idx_t, dim)?;
        // A 0-d source holds one element: it covers an index of one element per dim only.
        let src = &if src.ndim() == 0 {
            src.alias(Layout {
                shape: vec![1; idx_t.ndim()],
                strides: vec![1; idx_t.ndim()],
                offset: src.offset(),
            })
        } else {
            src.clone()
        };
        for d in 0..idx_t.ndim() {
            if src.ndim() == idx_t.ndim() && idx_t.shape()[d] > src.shape()[d] {
                bail!(
                    Runtime,
                    "{op}(): Expected index {} to be smaller than src {} in every dimension",
                    fmt_shape(index.shape()),
                    fmt_shape(src.shape())
                );
            }
        }
        let on_cuda: Option<Result<Tensor>> = crate::cuda_forward!(op, [self, index, src], |dev| {
            crate::cuda::ops::scatter::scatter(&dev, op, &x, dim, &idx_t, src, add)
        });
        if let Some(out) = on_cuda {
            return out?.reshape(&self.shape().iter().map(|&s| s as i64).collect::<Vec<_>>());
        }
        if self.dtype().is_complex() {
            // Both parts of an element move together: scatter into the real view.
            let src = src.to_dtype_raw(self.dtype())?;
            let src = if src.ndim() == idx_t.ndim() {
                src
            } else {
                src.broadcast_to(idx_t.shape())?
            };
            let out = x.real_alias().scatter_impl(
                op,
                dim,
                &pair_index(&idx_t)?,
                &src.real_alias(),
                add,
            )?;
            return out
                .contiguous_raw()?
                .complex_alias()?
                .reshape(&self.shape().iter().map(|&s| s as i64).collect::<Vec<_>>());
        }
        let idx = index_values(op, index)?;
        let size = x.shape()[dim] as i64;
        let out = x.contiguous_copy()?;
        // The part of src covered by index, in row-major order.
        let src = src.to_dtype_raw(self.dtype())?;
        let vals = if src.ndim() == idx_t.ndim() {
            src.alias(Layout {
                shape: idx_t.shape().to_vec(),
                strides: src.strides().to_vec(),
                offset: src.offset(),
            })
            .contiguous_copy()?
        } else {
            src.broadcast_to(idx_t.shape())?.contiguous_copy()?
        };
        let bases = base_offsets(out.layout(), idx_t.shape(), dim)?;
        let stride = out.strides()[dim];
        with_dtype!(self.dtype(), T => {
            let dst: &mut [T] = unsafe { out.contiguous_slice_mut() };
            let v = vals.contiguous_slice::<T>();
            for (k, (&b, &i)) in bases.iter().zip(&idx).enumerate() {
                if i < 0 || i >= size {
                    bail!(Runtime, "{op}(): index {i} is out of bounds for dimension {dim} with size {size}");
                }
                let o = b + i as usize * stride;
                dst[o] = if add { acc(dst[o], v[k]) } else { v[k] };
            }
        });
        out.reshape(&self.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())
    }

    /// `scatter_add(dim, index, src)`: out of place.
    pub fn scatter_add(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let d = wrap_dim("scatter_add", dim, self.ndim())?;
        check_same_dtype("scatter_add", self, src)?;
        let out = self.scatter_impl("scatter_add", d, index, src, true)?;
        let index = index.clone();
        let src_shape = src.shape().to_vec();
        Ok(record(
            "ScatterAddBackward0",
            out,
            &[self, src],
            &[],
            false,
            move |g, _| {
                let gs = g.gather(d as i64, &index)?;
                let gs = if gs.shape() == src_shape.as_slice() {
                    gs
                } else {
                    fit_src_grad(&gs, &src_shape)?
                };
                Ok(vec![Some(g.clone()), Some(gs)])
            },
        ))
    }

    /// `scatter(dim, index, src)`: out of place; overwritten positions get no gradient.
    pub fn scatter(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let d = wrap_dim("scatter", dim, self.ndim())?;
        check_same_dtype("scatter", self, src)?;
        let out = self.scatter_impl("scatter", d, index, src, false)?;
        let index = index.clone();
        let src_shape = src.shape().to_vec();
        Ok(record(
            "ScatterBackward0",
            out,
            &[self, src],
            &[],
            false,
            move |g, _| {
                let zero = Tensor::full_on(&[], Scalar::Float(0.0), g.dtype(), g.device())?
                    .broadcast_to(index.shape())?;
                let gself = g.scatter(d as i64, &index, &zero)?;
                let gs = g.gather(d as i64, &index)?;
                let gs = if gs.shape() == src_shape.as_slice() {
                    gs
                } else {
                    fit_src_grad(&gs, &src_shape)?
                };
                Ok(vec![Some(gself), Some(gs)])
            },
        ))
    }

    /// `index_select(dim, index)` with a 1-D (or 0-d) integer index.
    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if index.ndim() > 1 {
            bail!(
                Index,
                "index_select(): Index is supposed to be a vector, got shape {}",
                fmt_shape(index.shape())
            );
        }
        let d = wrap_dim("index_select", dim, self.ndim())?;
        let on_cuda: Option<Result<Tensor>> =
            crate::cuda_forward!("index_select", [self, index], |dev| {
                crate::cuda::ops::select::index_select(
                    &dev,
                    &self.detach().as_1d_if_scalar(),
                    d,
                    index,
                )
            });
        let out = match on_cuda {
            Some(out) => out?,
            None => self.index_select_host(d, index)?,
        };
        let out = if self.ndim() == 0 {
            out.reshape(&[])?
        } else {
            out
        };
        let in_shape = self.shape().to_vec();
        let index = index.clone();
        Ok(record(
            "IndexSelectBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let z = Tensor::zeros_on(&in_shape, g.dtype(), g.device())?;
                Ok(vec![Some(z.index_add(
                    d as i64,
                    &index,
                    g,
                    Scalar::Int(1),
                )?)])
            },
        ))
    }

    /// The host kernel of `index_select`, on the input viewed as at least 1-D.
    fn index_select_host(&self, d: usize, index: &Tensor) -> Result<Tensor> {
        let idx = index_values("index_select", index)?;
        if self.ndim() == 0 && idx.len() != 1 {
            bail!(
                Runtime,
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                idx.len()
            );
        }
        let x = self.as_1d_if_scalar();
        let size = x.shape()[d] as i64;
        check_select_bounds(&x, d, &idx)?;
        let mut shape = x.shape().to_vec();
        shape[d] = idx.len();
        // Expand the index along the other dims and gather.
        let mut ishape = vec![1usize; x.ndim()];
        ishape[d] = idx.len();
        let wrapped: Vec<i64> = idx
            .iter()
            .map(|&i| if i < 0 { i + size } else { i })
            .collect();
        let it = Tensor::from_vec(wrapped, &ishape)?.broadcast_to(&shape)?;
        self.detach().as_1d_if_scalar().gather(d as i64, &it)
    }

    /// `index_add(dim, index, source, alpha)`: out of place.
    pub fn index_add(
        &self,
        dim: i64,
        index: &Tensor,
        source: &Tensor,
        alpha: Scalar,
    ) -> Result<Tensor> {
        let d = wrap_dim("index_add", dim, self.ndim())?;
        check_index_add(self, d, index, source)?;
        let on_cuda: Option<Result<Tensor>> =
            crate::cuda_forward!("index_add", [self, index, source], |dev| {
                crate::cuda::ops::select::index_add(
                    &dev,
                    &self.detach().as_1d_if_scalar(),
                    d,
                    index,
                    &source.detach(),
                    alpha,
                )
            });
        let out = match on_cuda {
            Some(out) => {
                out?.reshape(&self.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())?
            }
            None => self.index_add_host(d, index, source, alpha)?,
        };
        let index = index.clone();
        let src_shape: Vec<i64> = source.shape().iter().map(|&s| s as i64).collect();
        Ok(record(
            "IndexAddBackward0",
            out,
            &[self, source],
            &[],
            false,
            move |g, _| {
                let gs = g.index_select(d as i64, &index)?;
                let gs = if alpha == Scalar::Int(1) {
                    gs
                } else {
                    gs.mul_scalar(alpha)?
                };
                Ok(vec![Some(g.clone()), Some(gs.reshape(&src_shape)?)])
            },
        ))
    }

    /// The host kernel of `index_add`, outside autograd.
    fn index_add_host(
        &self,
        d: usize,
        index: &Tensor,
        source: &Tensor,
        alpha: Scalar,
    ) -> Result<Tensor> {
        let idx = index_values("index_add", index)?;
        let x = self.as_1d_if_scalar();
        let size = x.shape()[d] as i64;
        if self.numel() == 0 && x.ndim() > 1 {
            // PyTorch returns before reading any index when there is nothing to add to.
            return self.clone_tensor();
        }
        if let Some(i) = idx.iter().find(|&&i| i < 0 || i >= size) {
            // PyTorch: IndexError on a vector, RuntimeError on the general path.
            if x.ndim() <= 1 {
                bail!(
                    Index,
                    "index_add(): index {i} out of range in self (dimension {d} with size {size})"
                );
            }
            bail!(
                Runtime,
                "index_add(): index {i} is out of bounds for dimension {d} with size {size}"
            );
        }
        // PyTorch multiplies a complex source by alpha even when it is 1: a complex product
        // with an infinite part gives NaN there (-inf + 2j times 1 is -inf + nan j).
        let src = if alpha == Scalar::Int(1) && !source.dtype().is_complex() {
            source.clone()
        } else {
            source.mul_scalar(alpha)?
        };
        let src = src.as_1d_if_scalar();
        let mut expect = x.shape().to_vec();
        expect[d] = idx.len();
        let mut ishape = vec![1usize; x.ndim()];
        ishape[d] = idx.len();
        let wrapped: Vec<i64> = idx
            .iter()
            .map(|&i| if i < 0 { i + size } else { i })
            .collect();
        let it = Tensor::from_vec(wrapped, &ishape)?
            .broadcast_to(&expect)?
            .contiguous_copy()?;
        self.detach()
            .scatter_impl("index_add", d, &it, &src.detach(), true)
    }

    /// `torch.where(cond, self, other)` with broadcasting and promotion.
    pub fn where_(&self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let cond = self;
        if cond.dtype() != DType::Bool && cond.dtype() != DType::U8 {
            bail!(
                Runtime,
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype().name()
            );
        }
        let shape = crate::layout::broadcast_shapes("where", cond.shape(), a.shape())?;
        let shape = crate::layout::broadcast_shapes("where", &shape, b.shape())?;
        // Promoted as operands are (a 0-d float64 next to a float16 tensor gives float16).
        let zero_dim = |t: &Tensor| {
            if t.ndim() == 0 {
                crate::dtype::Operand::ZeroDim(t.dtype())
            } else {
                crate::dtype::Operand::Dim(t.dtype())
            }
        };
        let dt = crate::dtype::result_type(&[zero_dim(a), zero_dim(b)], DType::F32);
        let out = match crate::cuda_forward!("where", [cond, a, b], |dev| {
            crate::cuda::ops::select::where_(&dev, cond, a, b, &shape, dt)
        }) {
            Some(out) => out?,
            None => where_host(cond, a, b, &shape, dt)?,
        };
        let (sa, sb, da, db) = (a.shape().to_vec(), b.shape().to_vec(), a.dtype(), b.dtype());
        let cond = cond.clone();
        Ok(record(
            "WhereBackward0",
            out,
            &[a, b],
            &[],
            false,
            move |g, _| {
                let z = Tensor::scalar(Scalar::Float(0.0), g.dtype());
                let ga = cond.where_(g, &z)?.sum_to(&sa)?.to_dtype(da)?;
                let gb = cond.where_(&z, g)?.sum_to(&sb)?.to_dtype(db)?;
                Ok(vec![Some(ga), Some(gb)])
            },
        ))
    }

    /// `masked_fill(mask, value)`: `value` where `mask` holds, broadcast over both shapes.
    pub fn masked_fill(&self, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            bail!(
                Runtime,
                "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().name()
            );
        }
        crate::layout::broadcast_shapes("masked_fill", self.shape(), mask.shape())?;
        let v = value.to_dtype(self.dtype())?;
        // Out of place, the input broadcasts to the mask too (PyTorch expands both); the
        // in-place form keeps the input's shape (apply_inplace checks it).
        mask.where_(&v, self)
    }
}

/// Shapes the gradient of a scatter source: summed down when the source was broadcast
/// (a 0-d value), zero-padded when the source was larger than the index.
fn fit_src_grad(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if shape.len() < g.ndim() || shape.iter().product::<usize>() == 1 {
        return g.sum_to(shape);
    }
    pad_to(g, shape)
}

/// Zero-pads a gradient up to `shape` (the part of src that index did not cover gets none).
fn pad_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let z = Tensor::zeros_on(shape, g.dtype(), g.device())?;
    let mut v = z.clone();
    for (d, &n) in g.shape().iter().enumerate() {
        v = v.narrow(d as i64, 0, n as i64)?;
    }
    v.write_from(g)?;
    Ok(z)
}

/// The host kernel of `where`: operands broadcast to `shape` and cast to `dt` first.
fn where_host(cond: &Tensor, a: &Tensor, b: &Tensor, shape: &[usize], dt: DType) -> Result<Tensor> {
    let c = cond
        .to_dtype_raw(DType::Bool)?
        .broadcast_to(shape)?
        .contiguous_copy()?;
    let av = a
        .detach()
        .to_dtype_raw(dt)?
        .broadcast_to(shape)?
        .contiguous_copy()?;
    let bv = b
        .detach()
        .to_dtype_raw(dt)?
        .broadcast_to(shape)?
        .contiguous_copy()?;
    Ok(if dt.is_complex() {
        // Both parts of an element follow the condition: select on the real views.
        c.unsqueeze(-1)?
            .where_(&av.real_alias(), &bv.real_alias())?
            .complex_alias()?
    } else {
        where_real(&c, &av, &bv, shape, dt)?
    })
}

/// The kernel of `where` for real dtypes: inputs already broadcast, contiguous, in `dt`.
fn where_real(c: &Tensor, av: &Tensor, bv: &Tensor, shape: &[usize], dt: DType) -> Result<Tensor> {
    let out = Tensor::zeros(shape, dt)?;
    with_dtype!(dt, T => {
        let (cs, xs, ys) = (c.contiguous_slice::<bool>(), av.contiguous_slice::<T>(), bv.contiguous_slice::<T>());
        let o: &mut [T] = unsafe { out.contiguous_slice_mut() };
        for i in 0..o.len() {
            o[i] = if cs[i] { xs[i] } else { ys[i] };
        }
    });
    Ok(out)
}

/// An index over a complex tensor's elements as an index over its real view: each entry
/// repeated for the (re, im) pair along a trailing dim of 2.
fn pair_index(index: &Tensor) -> Result<Tensor> {
    let mut shape = index.shape().to_vec();
    shape.push(2);
    index
        .detach()
        .unsqueeze(-1)?
        .broadcast_to(&shape)?
        .contiguous_copy()
}

#[cfg(test)]
mod tests {
    use crate::{DType, Scalar, Tensor};

    #[test]
    fn a_scalar_source_fills_every_indexed_position() {
        let x = Tensor::from_vec(vec![1.0f64; 64], &[64]).unwrap();
        let idx = Tensor::from_vec((0..64).step_by(2).collect::<Vec<i64>>(), &[32]).unwrap();
        // A number is a 0-d tensor broadcast to the index's shape (a 0-d tensor source itself
        // covers one index element, as in PyTorch).
        let seven = Tensor::scalar(Scalar::Float(7.0), DType::F64)
            .broadcast_to(&[32])
            .unwrap();
        let out = x.scatter(0, &idx, &seven).unwrap().to_vec::<f64>();
        let want: Vec<f64> = (0..64)
            .map(|i| if i % 2 == 0 { 7.0 } else { 1.0 })
            .collect();
        assert_eq!(out, want);
    }
}

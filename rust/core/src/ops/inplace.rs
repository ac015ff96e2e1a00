//! In-place ops: computed out of place, written back into the tensor's memory, and, when
//! autograd is recording, the tensor's history is rebased onto the new node.

use crate::autograd::is_grad_enabled;
use crate::error::fmt_shape;
use crate::{Error, Result, Tensor};

/// Whether the elements fill a block of memory exactly once, in some order of the dims (a
/// contiguous tensor or a permutation of one).
fn non_overlapping_and_dense(t: &Tensor) -> bool {
    let mut dims: Vec<(usize, usize)> = t
        .shape()
        .iter()
        .zip(t.strides())
        .filter(|(&n, _)| n != 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut expected = 1;
    for (stride, n) in dims {
        if stride != expected {
            return false;
        }
        expected *= n;
    }
    true
}

/// Which elements of `a` differ from `b` (same shape and dtype), a NaN that stayed NaN not
/// counting: rewriting it would overwrite the value another element aliasing its memory
/// location was given (`x.expand(...)[mask] = 0`). Complex elements compare part by part.
fn differs(a: &Tensor, b: &Tensor) -> Result<Vec<bool>> {
    if a.dtype().is_complex() {
        let parts = differs(&a.view_as_real()?, &b.view_as_real()?)?;
        return Ok(parts.chunks(2).map(|p| p[0] || p[1]).collect());
    }
    let mut ne = a
        .binary(crate::ops::BinaryOp::Ne, b)?
        .try_to_vec::<bool>()?;
    if a.dtype().is_float() {
        let (an, bn) = (
            a.isnan()?.try_to_vec::<bool>()?,
            b.isnan()?.try_to_vec::<bool>()?,
        );
        for ((d, x), y) in ne.iter_mut().zip(an).zip(bn) {
            *d &= !(x && y);
        }
    }
    Ok(ne)
}

impl Tensor {
    /// For a view sharing this tensor's storage: the row-major index in `self` of each of the
    /// view's elements (in the view's row-major order).
    pub(crate) fn positions_of(&self, view: &Tensor) -> Result<Tensor> {
        let l = self.layout();
        let mut by_offset = std::collections::HashMap::with_capacity(self.numel());
        let mut i = 0i64;
        crate::layout::for_each_offset(&l.shape, &l.strides, l.offset, |o| {
            by_offset.entry(o).or_insert(i);
            i += 1;
        });
        let vl = view.layout();
        let mut pos = Vec::with_capacity(view.numel());
        let mut missing = false;
        crate::layout::for_each_offset(&vl.shape, &vl.strides, vl.offset, |o| {
            match by_offset.get(&o) {
                Some(&p) => pos.push(p),
                None => missing = true,
            }
        });
        if missing {
            return Err(Error::runtime(
                "in-place write through a view that reaches outside its base",
            ));
        }
        let n = pos.len();
        Tensor::from_vec(pos, &[n])
    }

    /// Whether several elements share one memory location (a stride 0 over a dim of 2 or more).
    fn has_internal_overlap(&self) -> bool {
        self.numel() > 0
            && self
                .shape()
                .iter()
                .zip(self.strides())
                .any(|(&n, &s)| n > 1 && s == 0)
    }

    /// Writes `r` into an overlapping view only where it differs from the current values: the
    /// elements of a location then agree that it was written (masked_fill_ and index_put_ on an
    /// expanded tensor set a location wherever one of its elements was selected).
    fn write_changed(&self, r: &Tensor) -> Result<()> {
        if self.storage().is_readonly() {
            return self.write_from(r); // its error names the read-only memory
        }
        let vals = r.copy_as(self.dtype())?;
        let changed = differs(&vals, self)?;
        // A complex element is written as its (re, im) pair of reals: `per` reals per flag.
        let (dst_t, vals, per) = if self.dtype().is_complex() {
            (self.view_as_real()?, vals.view_as_real()?.contiguous()?, 2)
        } else {
            (self.clone(), vals, 1)
        };
        crate::with_dtype!(dst_t.dtype(), D => {
            let v = vals.contiguous_slice::<D>();
            let l = dst_t.layout();
            let dst: &mut [D] = unsafe { dst_t.storage().slice_mut::<D>(0, l.storage_span()) };
            let mut i = 0;
            crate::layout::for_each_offset(&l.shape, &l.strides, l.offset, |o| {
                if changed[i / per] {
                    dst[o] = v[i];
                }
                i += 1;
            });
        });
        self.storage().bump_version();
        Ok(())
    }

    /// PyTorch's check before elementwise writes (`add_`, `copy_`...): an expanded tensor has
    /// one memory location for several elements, so the result could not be stored.
    pub fn check_no_internal_overlap(&self, op: &str) -> Result<()> {
        if self.has_internal_overlap() {
            return Err(Error::runtime(format!(
                "{op}: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."
            )));
        }
        Ok(())
    }

    /// PyTorch's refusal of an in-place write whose operand is partly the destination's own
    /// memory (`x[1:].add_(x[:-1])`, `x.add_(x[2])`); the very same elements are fine, and
    /// layouts too irregular to tell are let through, as in PyTorch.
    pub(crate) fn check_no_partial_overlap(&self, o: &Tensor) -> Result<()> {
        if self.numel() == 0
            || o.numel() == 0
            || !o.storage().same(self.storage())
            || !non_overlapping_and_dense(self)
            || !non_overlapping_and_dense(o)
        {
            return Ok(());
        }
        let (a0, a1) = (self.offset(), self.offset() + self.numel());
        let (b0, b1) = (o.offset(), o.offset() + o.numel());
        let full = a0 == b0 && a1 == b1 && self.strides() == o.strides();
        if !full && a0 < b1 && b0 < a1 {
            return Err(Error::runtime(
                "unsupported operation: some elements of the input tensor and the written-to \
                 tensor refer to a single memory location. Please clone() the tensor before \
                 performing the operation.",
            ));
        }
        Ok(())
    }

    /// Runs `f` on this tensor (or a snapshot of it, when autograd needs the old values) and
    /// writes the result back. `others` are the other inputs of the op.
    pub fn apply_inplace(
        &self,
        op: &str,
        others: &[&Tensor],
        f: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        // PyTorch lets only these write into an expanded tensor (fills, and index puts with a
        // deprecation warning); every elementwise kernel refuses.
        if !matches!(
            op,
            "fill_" | "zero_" | "masked_fill_" | "index_put_" | "conj_physical_" | "data"
        ) {
            self.check_no_internal_overlap(op)?;
        }
        let base = self.view_base();
        let base_grad = base.as_ref().is_some_and(|b| b.requires_grad());
        let tracking = is_grad_enabled()
            && (self.requires_grad() || base_grad || others.iter().any(|t| t.requires_grad()));
        if tracking
            && base
                .as_ref()
                .is_some_and(|b| b.is_leaf() && b.requires_grad())
        {
            return Err(Error::runtime(format!(
                "{op}: a view of a leaf Variable that requires grad is being used in an in-place operation."
            )));
        }
        if tracking && self.is_leaf() && self.requires_grad() {
            return Err(Error::runtime(format!(
                "{op}: a leaf Variable that requires grad is being used in an in-place operation."
            )));
        }
        if tracking && base.as_ref().is_some_and(|b| b.dtype() != self.dtype()) {
            // `.real`/`.imag`/`view_as_real` views see their base in another dtype.
            return Err(Error::NotImplemented(format!(
                "{op}: in-place operations on a real or imaginary view of a complex tensor are \
                 not supported while autograd records them"
            )));
        }
        // Writing through a view changes the base: snapshot it so its history can be rebased.
        let base_snapshot = match &base {
            Some(b) if tracking => Some(b.clone_tensor()?),
            _ => None,
        };
        // The op's node may save its input; give it a snapshot the write below cannot change.
        let src = if tracking {
            self.clone_tensor()?
        } else {
            self.clone()
        };
        let r = f(&src)?;
        if r.shape() != self.shape() {
            return Err(Error::runtime(format!(
                "{op}: output with shape {} doesn't match the broadcast shape {}",
                fmt_shape(self.shape()),
                fmt_shape(r.shape())
            )));
        }
        if !crate::dtype::can_cast(r.dtype(), self.dtype()) {
            return Err(Error::runtime(format!(
                "{op}: result type {} can't be cast to the desired output type {}",
                r.dtype().name(),
                self.dtype().name()
            )));
        }
        if self.has_internal_overlap() {
            self.write_changed(&r)?;
        } else {
            self.write_from(&r)?;
        }
        // A result that needs no gradient (a copy or fill of constants) still replaces the old
        // values: the old history then gets a zero gradient (PyTorch's CopyBackwards), not g.
        let r = if tracking && !r.requires_grad() {
            let alias = r.alias(r.layout().clone());
            crate::autograd::record("CopyBackwards", alias, &[&src], &[], false, |g, _| {
                Ok(vec![Some(g.zeros_like()?)])
            })
        } else {
            r
        };
        if tracking && r.requires_grad() {
            let mut r = r.to_dtype(self.dtype())?;
            if r.grad_fn().is_none() {
                // The result is a leaf itself (`b.copy_(leaf)`): self's history is a copy of it.
                let alias = r.alias(r.layout().clone());
                r = crate::autograd::record("CopyBackwards", alias, &[&r], &[], false, |g, _| {
                    Ok(vec![Some(g.clone())])
                });
            }
            self.set_grad_fn(r.grad_fn());
            if let (Some(b), Some(snap)) = (base, base_snapshot) {
                // The base becomes its old values with the view's elements replaced by r.
                let pos = b.positions_of(self)?;
                let flat = snap
                    .reshape(&[-1])?
                    .put_linear(&pos, &r.reshape(&[-1])?, false)?;
                let shape: Vec<i64> = b.shape().iter().map(|&d| d as i64).collect();
                b.set_grad_fn(flat.reshape(&shape)?.grad_fn());
            }
        }
        Ok(())
    }
}

//! Reductions over any set of dims on the device: the kept dims and the reduced dims are
//! passed to the kernel as two strided views of the same input, so nothing is permuted first.

use super::{base, empty, first_element};
use crate::cuda::launch::reduce::{max_with_indices, reduce as launch, ReduceOp};
use crate::cuda::launch::Strided;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::{DType, Result, Tensor};
use std::sync::Arc;

/// The kept and reduced dims of `t` as two strided views of it, their element counts and
/// the output's shape (keepdim as PyTorch's).
struct Split {
    outer: Strided,
    inner: Strided,
    n_out: usize,
    n_inner: usize,
    out_shape: Vec<usize>,
    /// The kept dims, and the reduced dims after `merge_runs` (shape, strides).
    keep: (Vec<usize>, Vec<usize>),
    red: (Vec<usize>, Vec<usize>),
}

fn split(t: &Tensor, dims: &[usize], keepdim: bool) -> Result<Split> {
    let (shape, strides) = (t.shape(), t.strides());
    let (mut keep_shape, mut keep_strides, mut red_shape, mut red_strides) =
        (vec![], vec![], vec![], vec![]);
    let mut out_shape = vec![];
    for d in 0..t.ndim() {
        if dims.contains(&d) {
            red_shape.push(shape[d]);
            red_strides.push(strides[d]);
            if keepdim {
                out_shape.push(1);
            }
        } else {
            keep_shape.push(shape[d]);
            keep_strides.push(strides[d]);
            out_shape.push(shape[d]);
        }
    }
    let n_inner = red_shape.iter().product();
    let (red_shape, red_strides) = merge_runs(&red_shape, &red_strides);
    Ok(Split {
        outer: Strided::from_parts(&keep_shape, &keep_strides, t.offset(), "reduce")?,
        inner: Strided::from_parts(&red_shape, &red_strides, 0, "reduce")?,
        n_out: keep_shape.iter().product(),
        n_inner,
        out_shape,
        keep: (keep_shape, keep_strides),
        red: (red_shape, red_strides),
    })
}

/// Dims merged where one steps over the next exactly (the same addresses in the same order,
/// fewer dims): a contiguous block of reduced dims becomes one run, which the kernel walks
/// without dividing indices.
fn merge_runs(shape: &[usize], strides: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let (mut ms, mut mt): (Vec<usize>, Vec<usize>) = (vec![], vec![]);
    for (&n, &st) in shape.iter().zip(strides) {
        match (ms.last_mut(), mt.last_mut()) {
            (Some(m), Some(t)) if *t == n * st => {
                *m *= n;
                *t = st;
            }
            _ => {
                ms.push(n);
                mt.push(st);
            }
        }
    }
    (ms, mt)
}

/// `op` of `t` over `dims` (sorted, distinct), output in `out_dt`, keepdim as PyTorch's.
pub fn reduce(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dims: &[usize],
    keepdim: bool,
    op: ReduceOp,
    out_dt: DType,
) -> Result<Tensor> {
    let sp = split(t, dims, keepdim)?;
    if let Some(plan) = Parts::plan(op, out_dt, &sp) {
        return plan.run(dev, t, op, out_dt, &sp);
    }
    let out = empty(dev, &sp.out_shape, out_dt)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        launch(
            dev.as_ref(),
            &stream,
            op,
            base(t)?,
            t.dtype(),
            &sp.outer,
            &sp.inner,
            base(&out)?,
            out_dt,
            sp.n_out,
            sp.n_inner,
        )
    })?;
    Ok(out)
}

/// `max(dim)` / `min(dim)` of `t` over `dims` (one dim, or none for a 0-d tensor): values
/// and int64 indices of the first extreme (a NaN wins), keepdim as PyTorch's. The reduced
/// dim is not empty (the caller checked).
pub fn max_dim(
    dev: &Arc<DeviceState>,
    t: &Tensor,
    dims: &[usize],
    keepdim: bool,
    is_max: bool,
) -> Result<(Tensor, Tensor)> {
    let sp = split(t, dims, keepdim)?;
    let vals = empty(dev, &sp.out_shape, t.dtype())?;
    let idx = empty(dev, &sp.out_shape, DType::I64)?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        max_with_indices(
            dev.as_ref(),
            &stream,
            base(t)?,
            t.dtype(),
            &sp.outer,
            &sp.inner,
            first_element(&vals)?,
            first_element(&idx)?,
            sp.n_out,
            sp.n_inner,
            is_max,
        )
    })?;
    Ok((vals, idx))
}

/// Few outputs of many elements each: one block per output would leave most of the GPU idle
/// (a full sum of 64M floats ran on one block), so the reduced elements are cut into `parts`
/// runs reduced side by side into partial results, which a second launch combines.
struct Parts {
    parts: usize,
    /// Elements of the leading reduced dim in each part (the last `rem` go to an extra part).
    chunk: usize,
    rem: usize,
    /// The partial results' dtype and the op that combines them.
    partial_dt: DType,
    combine: ReduceOp,
}

/// Below this many reduced elements per output one block is fast enough.
const PARTS_MIN_INNER: usize = 1 << 15;
/// Partial results per launch to aim for: several blocks for each of the GPU's SMs.
const PARTS_TARGET: usize = 1024;
/// The least elements a part reduces (fewer only add combining work).
const PARTS_MIN_CHUNK: usize = 4096;

impl Parts {
    fn plan(op: ReduceOp, out_dt: DType, sp: &Split) -> Option<Parts> {
        if sp.n_inner < PARTS_MIN_INNER || sp.n_out >= PARTS_TARGET / 2 {
            return None;
        }
        // Partial sums and products keep the output's dtype; halves would round each partial
        // (their single launch accumulates in float), so they stay on one launch.
        let (partial_dt, combine) = match op {
            ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod
                if matches!(out_dt, DType::F16 | DType::BF16) =>
            {
                return None
            }
            ReduceOp::Sum | ReduceOp::Mean => (out_dt, ReduceOp::Sum),
            ReduceOp::Prod => (out_dt, ReduceOp::Prod),
            ReduceOp::Max | ReduceOp::Min | ReduceOp::Any | ReduceOp::All => (out_dt, op),
            ReduceOp::CountNonzero => (DType::I64, ReduceOp::Sum),
            _ => return None,
        };
        if sp.keep.0.len() + 1 > crate::cuda::launch::MAX_DIMS {
            return None;
        }
        let lead = sp.red.0[0];
        let rest = sp.n_inner / lead.max(1);
        let parts = (PARTS_TARGET / sp.n_out.max(1))
            .min(lead)
            .min(sp.n_inner / PARTS_MIN_CHUNK);
        if parts < 2 {
            return None;
        }
        let chunk = lead / parts;
        debug_assert!(chunk * rest >= 1);
        Some(Parts {
            parts,
            chunk,
            rem: lead - parts * chunk,
            partial_dt,
            combine,
        })
    }

    /// Rows of partial results: one per part, and one for the remainder if there is one.
    fn rows(&self) -> usize {
        self.parts + (self.rem > 0) as usize
    }

    /// The launches over `sp`'s kept and reduced dims, in order: the parts into the first rows
    /// of the partial results, the remainder (if any) into the row after them, then the
    /// combine into the output.
    fn passes(&self, sp: &Split, offset: usize, op: ReduceOp) -> Result<Vec<Pass>> {
        let n_out = sp.n_out;
        let (ks, kt) = &sp.keep;
        let (rs, rt) = &sp.red;
        let rest: usize = rs[1..].iter().product();
        let first = if op == ReduceOp::Mean {
            ReduceOp::Sum
        } else {
            op
        };
        // Part p reduces leading-dim rows [p * chunk, (p + 1) * chunk): the parts are one more
        // outer dim (stepping `chunk` rows), written first so that the remainder follows.
        let mut outer_shape = vec![self.parts];
        outer_shape.extend(ks);
        let mut outer_strides = vec![self.chunk * rt[0]];
        outer_strides.extend(kt);
        let mut inner_shape = vec![self.chunk];
        inner_shape.extend(&rs[1..]);
        let mut passes = vec![Pass {
            op: first,
            from_input: true,
            outer: Strided::from_parts(&outer_shape, &outer_strides, offset, "reduce")?,
            inner: Strided::from_parts(&inner_shape, rt, 0, "reduce")?,
            dst_at: Some(0),
            n_out: self.parts * n_out,
            n_inner: self.chunk * rest,
        }];
        if self.rem > 0 {
            let start = offset + self.parts * self.chunk * rt[0];
            inner_shape[0] = self.rem;
            passes.push(Pass {
                op: first,
                from_input: true,
                outer: Strided::from_parts(ks, kt, start, "reduce")?,
                inner: Strided::from_parts(&inner_shape, rt, 0, "reduce")?,
                dst_at: Some(self.parts * n_out),
                n_out,
                n_inner: self.rem * rest,
            });
        }
        // Then each output combines its column of partial results.
        let rows = self.rows();
        passes.push(Pass {
            op: self.combine,
            from_input: false,
            outer: Strided::from_parts(&[n_out], &[1], 0, "reduce")?,
            inner: Strided::from_parts(&[rows], &[n_out], 0, "reduce")?,
            dst_at: None,
            n_out,
            n_inner: rows,
        });
        Ok(passes)
    }

    fn run(
        &self,
        dev: &Arc<DeviceState>,
        t: &Tensor,
        op: ReduceOp,
        out_dt: DType,
        sp: &Split,
    ) -> Result<Tensor> {
        let partial = empty(dev, &[self.rows(), sp.n_out], self.partial_dt)?;
        let out = empty(dev, &sp.out_shape, out_dt)?;
        let passes = self.passes(sp, t.offset(), op)?;
        let stream = dev.streams.current()?;
        with_context(dev, || {
            for p in &passes {
                let (src, src_dt) = if p.from_input {
                    (base(t)?, t.dtype())
                } else {
                    (base(&partial)?, self.partial_dt)
                };
                let (dst, dst_dt) = match p.dst_at {
                    Some(at) => (
                        base(&partial)? + (at * self.partial_dt.size()) as u64,
                        self.partial_dt,
                    ),
                    None => (base(&out)?, out_dt),
                };
                launch(
                    dev.as_ref(),
                    &stream,
                    p.op,
                    src,
                    src_dt,
                    &p.outer,
                    &p.inner,
                    dst,
                    dst_dt,
                    p.n_out,
                    p.n_inner,
                )?;
            }
            Ok(())
        })?;
        if op == ReduceOp::Mean {
            return out.div_scalar(crate::Scalar::Float(sp.n_inner as f64));
        }
        Ok(out)
    }
}

/// One launch of the reduce kernel in a split reduction.
struct Pass {
    op: ReduceOp,
    /// Reads the input (else the partial results).
    from_input: bool,
    outer: Strided,
    inner: Strided,
    /// Where in the partial results it writes (in elements), or None for the output.
    dst_at: Option<usize>,
    n_out: usize,
    n_inner: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's addressing (kernels/common.cuh `strided_offset`), on the host.
    fn offset(s: &Strided, mut linear: i64) -> i64 {
        let mut off = s.offset;
        for d in (0..s.ndim as usize).rev() {
            off += (linear % s.shape[d]) * s.strides[d];
            linear /= s.shape[d];
        }
        off
    }

    /// One launch of the sum kernel, on the host.
    fn sums(
        src: &[f64],
        outer: &Strided,
        inner: &Strided,
        n_out: usize,
        n_inner: usize,
    ) -> Vec<f64> {
        (0..n_out as i64)
            .map(|o| {
                let ob = offset(outer, o);
                (0..n_inner as i64)
                    .map(|j| src[(ob + offset(inner, j)) as usize])
                    .sum()
            })
            .collect()
    }

    /// Runs the planned passes of a sum on the host and compares each output with the sum
    /// taken directly: every input element is counted once, in the right output.
    fn check(t: &Tensor, dims: &[usize]) {
        let sp = split(t, dims, false).unwrap();
        let parts = Parts::plan(ReduceOp::Sum, DType::F64, &sp).expect("split planned");
        // Element at storage offset k holds k + 1 (so a lost or doubled element shows).
        let storage: Vec<f64> = (0..t.storage().nbytes() / 8)
            .map(|k| k as f64 + 1.0)
            .collect();
        let mut partial = vec![f64::NAN; parts.rows() * sp.n_out];
        let mut out = vec![f64::NAN; sp.n_out];
        for p in parts.passes(&sp, t.offset(), ReduceOp::Sum).unwrap() {
            let src = if p.from_input { &storage } else { &partial };
            let sums = sums(src, &p.outer, &p.inner, p.n_out, p.n_inner);
            match p.dst_at {
                Some(at) => partial[at..at + sums.len()].copy_from_slice(&sums),
                None => out.copy_from_slice(&sums),
            }
        }
        let direct = sums(&storage, &sp.outer, &sp.inner, sp.n_out, sp.n_inner);
        assert_eq!(out, direct, "dims {dims:?} of {:?}", t.shape());
    }

    #[test]
    fn split_reductions_count_every_element_once() {
        let v = Tensor::zeros(&[200_003], DType::F64).unwrap();
        check(&v, &[0]); // a remainder part
        let m = Tensor::zeros(&[3, 70_001], DType::F64).unwrap();
        check(&m, &[1]); // rows
        check(&m.t().unwrap(), &[0]); // strided columns
        check(&m.narrow(1, 5, 60_000).unwrap(), &[1]); // an offset view
        let c = Tensor::zeros(&[40, 3, 1000], DType::F64).unwrap();
        check(&c, &[0, 2]); // two reduced dims around a kept one
        check(&c, &[0, 1, 2]); // everything: one merged run
    }

    #[test]
    fn many_outputs_or_small_inputs_take_one_launch() {
        let m = Tensor::zeros(&[600, 100], DType::F32).unwrap();
        let sp = split(&m, &[1], false).unwrap();
        assert!(Parts::plan(ReduceOp::Sum, DType::F32, &sp).is_none());
        let big = Tensor::zeros(&[1000, 1000], DType::F32).unwrap();
        let sp = split(&big, &[1], false).unwrap();
        assert!(Parts::plan(ReduceOp::Sum, DType::F32, &sp).is_none()); // 1000 outputs
        let sp = split(&big, &[0, 1], false).unwrap();
        assert!(Parts::plan(ReduceOp::Sum, DType::F16, &sp).is_none()); // half partials
        assert!(Parts::plan(ReduceOp::Var { correction: 1.0 }, DType::F32, &sp).is_none());
        assert!(Parts::plan(ReduceOp::Sum, DType::F32, &sp).is_some());
    }
}

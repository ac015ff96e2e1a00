//! Reductions over dims (sum, mean, prod, max/min, all/any) and their gradients.

use crate::autograd::record;
use crate::layout::{wrap_dim, Layout};
use crate::{bail, with_dtype, DType, Element, Error, Result, Scalar, Tensor};
use rayon::prelude::*;

/// Resolves a dim list (empty = all dims) into sorted unique dims.
pub fn reduce_dims(op: &str, dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    if dims.is_empty() {
        return Ok((0..ndim).collect());
    }
    // PyTorch's order of errors: var/std wrap and compare one dim at a time; the others
    // range-check every dim before looking for a repeat.
    let sequential = op == "var";
    let wrapped = if sequential {
        Vec::new()
    } else {
        dims.iter()
            .map(|&d| wrap_dim(op, d, ndim))
            .collect::<Result<Vec<_>>>()?
    };
    let mut out = Vec::new();
    for i in 0..dims.len() {
        let d = if sequential {
            wrap_dim(op, dims[i], ndim)?
        } else {
            wrapped[i]
        };
        if out.contains(&d) {
            bail!(
                Runtime,
                "{op}: dim {d} appears multiple times in the list of dims"
            );
        }
        out.push(d);
    }
    out.retain(|&d| d < ndim);
    out.sort_unstable();
    Ok(out)
}

/// A tensor rearranged so that reduced dims are last and contiguous: `outer` rows of `inner`.
pub struct Rows {
    pub data: Tensor,
    pub outer: usize,
    pub inner: usize,
    /// Output shape with reduced dims kept as 1.
    pub keep_shape: Vec<usize>,
    /// Output shape with reduced dims removed.
    pub drop_shape: Vec<usize>,
}

pub fn to_rows(x: &Tensor, dims: &[usize]) -> Result<Rows> {
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    let mut perm = kept.clone();
    perm.extend_from_slice(dims);
    let l = x.layout();
    let permuted = Layout {
        shape: perm.iter().map(|&d| l.shape[d]).collect(),
        strides: perm.iter().map(|&d| l.strides[d]).collect(),
        offset: l.offset,
    };
    let p = x.alias(permuted);
    let data = if p.is_contiguous() {
        p
    } else {
        p.contiguous_copy()?
    };
    let inner: usize = dims.iter().map(|&d| l.shape[d]).product();
    let outer: usize = kept.iter().map(|&d| l.shape[d]).product();
    let keep_shape = (0..nd)
        .map(|d| if dims.contains(&d) { 1 } else { l.shape[d] })
        .collect();
    let drop_shape = kept.iter().map(|&d| l.shape[d]).collect();
    Ok(Rows {
        data,
        outer,
        inner,
        keep_shape,
        drop_shape,
    })
}

/// A function of one row. Closures qualify; heavy row kernels (sums) are zero-sized types
/// whose `row` is `#[inline(always)]`, so that they are compiled into each instruction set's
/// copy of the loop (a called function stays at the baseline build).
pub trait RowFn<T, O>: Sync {
    fn row(&self, r: &[T]) -> O;
}

impl<T, O, F: Fn(&[T]) -> O + Sync> RowFn<T, O> for F {
    #[inline(always)]
    fn row(&self, r: &[T]) -> O {
        self(r)
    }
}

struct RowsKernel<'a, T, O, F> {
    src: &'a [T],
    inner: usize,
    out: &'a mut [O],
    f: &'a F,
}

impl<T, O, F: RowFn<T, O>> crate::cpu::simd::Kernel for RowsKernel<'_, T, O, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (o, r) in self.out.iter_mut().zip(self.src.chunks_exact(self.inner)) {
            *o = self.f.row(r);
        }
    }
}

/// Applies `f` to each row, writing one output per row (blocks of rows in parallel when large).
pub fn per_row<T: Element, O: Element>(rows: &Rows, out: &mut [O], f: impl RowFn<T, O>) {
    let src = rows.data.contiguous_slice::<T>();
    let inner = rows.inner;
    if inner == 0 {
        out.iter_mut().for_each(|o| *o = f.row(&[]));
        return;
    }
    let run = |src: &[T], out: &mut [O]| {
        crate::cpu::simd::run(RowsKernel {
            src,
            inner,
            out,
            f: &f,
        })
    };
    if crate::cpu::parallel::worth(rows.outer * inner) && rows.outer > 1 {
        // Blocks of about 16K elements: enough work per task, enough tasks to balance.
        let per = (16_384 / inner).max(1);
        crate::cpu::parallel::chunks_claimed(out, per, |i, o| {
            run(&src[i * per * inner..(i * per + o.len()) * inner], o)
        });
    } else {
        run(src, out);
    }
}

/// Row sums of float32 rows.
struct SumF32;
impl RowFn<f32, f32> for SumF32 {
    #[inline(always)]
    fn row(&self, r: &[f32]) -> f32 {
        sum_f32(r)
    }
}

/// Row sums of float64 rows.
struct SumF64;
impl RowFn<f64, f64> for SumF64 {
    #[inline(always)]
    fn row(&self, r: &[f64]) -> f64 {
        sum_f64(r)
    }
}

/// Output and compute dtypes of accumulating ops (sum, prod, cumsum, cumprod): floats keep
/// their dtype (halves accumulate in f32), integers and bools accumulate in int64.
pub fn accum_dtypes(dt: DType) -> (DType, DType) {
    let out = if dt.is_float() { dt } else { DType::I64 };
    let compute = match out {
        DType::F64 => DType::F64,
        DType::I64 => DType::I64,
        _ => DType::F32,
    };
    (out, compute)
}

/// Sum in vector lanes per block of 4096, blocks combined in f64 (accuracy of long rows).
/// Always inlined: `per_row` compiles its closure per instruction set, and a call would
/// drop back to the baseline build.
#[inline(always)]
fn sum_f32(x: &[f32]) -> f32 {
    let mut total = 0f64;
    for block in x.chunks(4096) {
        let s = crate::cpu::lanes::sum(block);
        // A lane's partial sum overflowed (inf, or inf - inf) though every value is finite:
        // this block again in f64, where no partial sum can overflow.
        total += if s.is_finite() || block.iter().any(|v| !v.is_finite()) {
            s as f64
        } else {
            block.iter().map(|&v| v as f64).sum::<f64>()
        };
    }
    total as f32
}

#[inline(always)]
fn sum_f64(x: &[f64]) -> f64 {
    let s = crate::cpu::lanes::sum(x);
    if s.is_finite() || s.is_nan() {
        return s;
    }
    // A partial sum overflowed: again scaled down by 2^k > len (no partial sum can overflow
    // then), so the result is finite whenever the sum is.
    if x.iter().any(|v| v.is_infinite()) {
        return s;
    }
    let k = (usize::BITS - x.len().leading_zeros()) as i32;
    let down: Vec<f64> = x.iter().map(|v| v * 2f64.powi(-k)).collect();
    crate::cpu::lanes::sum(&down) * 2f64.powi(k)
}

/// Column sums of `x` viewed as `rows` rows of `out.len()`: rows are added into the output
/// in blocks (partial sums of a block in `F`, blocks combined in f64), columns split
/// across threads when large.
fn sum_leading<F: crate::cpu::math::Float>(x: &[F], rows: usize, out: &mut [F]) {
    let cols = out.len();
    if cols == 0 {
        return;
    }
    let columns = |c0: usize, o: &mut [F]| {
        let w = o.len();
        let mut total = vec![0f64; w];
        let mut part = vec![F::zero(); w];
        for block in (0..rows).collect::<Vec<_>>().chunks(512) {
            part.fill(F::zero());
            crate::cpu::simd::dispatch(|| {
                for &r in block {
                    let row = &x[r * cols + c0..r * cols + c0 + w];
                    for (p, &v) in part.iter_mut().zip(row) {
                        *p = *p + v;
                    }
                }
            });
            for (t, &p) in total.iter_mut().zip(&part) {
                *t += p.to_f64();
            }
        }
        for (o, t) in o.iter_mut().zip(total) {
            *o = F::from_f64c(t);
        }
    };
    let threads = crate::cpu::thread_pool::num_threads();
    if crate::cpu::parallel::worth(rows * cols) && cols >= 64 * threads && threads > 1 {
        let per = cols.div_ceil(threads).next_multiple_of(16);
        crate::cpu::thread_pool::run(|| {
            out.par_chunks_mut(per)
                .enumerate()
                .for_each(|(i, o)| columns(i * per, o))
        });
    } else {
        columns(0, out);
    }
}

/// Restores the reduced dims of a gradient so that it broadcasts against the input.
pub fn expand_grad(
    g: &Tensor,
    in_shape: &[usize],
    dims: &[usize],
    keepdim: bool,
) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim {
        for &d in dims {
            g = g.unsqueeze(d as i64)?;
        }
    }
    g.broadcast_to(in_shape)
}

impl Tensor {
    fn reduce_out(&self, rows: &Rows, keepdim: bool, dtype: DType) -> Result<Tensor> {
        let shape = if keepdim {
            &rows.keep_shape
        } else {
            &rows.drop_shape
        };
        Tensor::zeros(shape, dtype)
    }

    /// `sum(dims, keepdim)`; integer and bool inputs sum to int64, as in PyTorch.
    pub fn sum_dims(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let dims = reduce_dims("sum", dims, self.ndim())?;
        if self.dtype().is_complex() {
            return self.complex_sum(&dims, keepdim);
        }
        let (out_dt, cd) = accum_dtypes(self.dtype());
        if let Some(out) = crate::cuda_forward!("sum", [self], |d| {
            use crate::cuda::launch::reduce::ReduceOp;
            crate::cuda::ops::reduce::reduce(&d, self, &dims, keepdim, ReduceOp::Sum, out_dt)
        }) {
            return Ok(self.sum_record(out?, dims, keepdim));
        }
        let src = self.to_dtype_raw(cd)?;
        let leading = !dims.is_empty()
            && dims.len() < self.ndim()
            && dims.iter().enumerate().all(|(i, &d)| i == d);
        let rows = if leading && src.is_contiguous() && matches!(cd, DType::F32 | DType::F64) {
            // Sum over leading dims of a contiguous tensor (a bias gradient): add whole rows
            // instead of transposing the tensor so that each column becomes a row.
            let k = dims.len();
            let keep_shape: Vec<usize> = (0..self.ndim())
                .map(|d| if d < k { 1 } else { self.shape()[d] })
                .collect();
            let drop_shape: Vec<usize> = self.shape()[k..].to_vec();
            let out = Tensor::zeros(if keepdim { &keep_shape } else { &drop_shape }, cd)?;
            let nrows: usize = self.shape()[..k].iter().product();
            match cd {
                DType::F32 => sum_leading::<f32>(src.contiguous_slice(), nrows, unsafe {
                    out.contiguous_slice_mut()
                }),
                _ => sum_leading::<f64>(src.contiguous_slice(), nrows, unsafe {
                    out.contiguous_slice_mut()
                }),
            }
            return Ok(self.sum_record(out.to_dtype_raw(out_dt)?, dims, keepdim));
        } else {
            to_rows(&src, &dims)?
        };
        let out = self.reduce_out(&rows, keepdim, cd)?;
        match cd {
            DType::F32 => per_row::<f32, f32>(&rows, unsafe { out.contiguous_slice_mut() }, SumF32),
            DType::F64 => per_row::<f64, f64>(&rows, unsafe { out.contiguous_slice_mut() }, SumF64),
            _ => per_row::<i64, i64>(
                &rows,
                unsafe { out.contiguous_slice_mut() },
                |r: &[i64]| r.iter().fold(0i64, |a, &b| a.wrapping_add(b)),
            ),
        }
        Ok(self.sum_record(out.to_dtype_raw(out_dt)?, dims, keepdim))
    }

    fn sum_record(&self, out: Tensor, dims: Vec<usize>, keepdim: bool) -> Tensor {
        let in_shape = self.shape().to_vec();
        record("SumBackward1", out, &[self], &[], false, move |g, _| {
            Ok(vec![Some(expand_grad(g, &in_shape, &dims, keepdim)?)])
        })
    }

    pub fn sum_all(&self) -> Result<Tensor> {
        self.sum_dims(&[], false)
    }

    /// `mean(dims, keepdim)`; floating point only, as in PyTorch.
    pub fn mean_dims(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_differentiable() {
            bail!(NotImplemented, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}", self.dtype().name());
        }
        let rd = reduce_dims("mean", dims, self.ndim())?;
        let n: usize = rd.iter().map(|&d| self.shape()[d]).product();
        if matches!(self.dtype(), DType::F16 | DType::BF16) {
            // As PyTorch: sum and divide in float32, round once (a half sum of 50 x 60000
            // would be inf before the division).
            let s = self.to_dtype(DType::F32)?.sum_dims(dims, keepdim)?;
            return s
                .div_scalar(Scalar::Float(n as f64))?
                .to_dtype(self.dtype());
        }
        let s = self.sum_dims(dims, keepdim)?;
        s.div_scalar(Scalar::Float(n as f64))
    }

    /// `amax`/`amin`: the gradient is shared equally among tied extrema.
    pub fn amax_dims(&self, dims: &[i64], keepdim: bool, is_max: bool) -> Result<Tensor> {
        let name = if is_max { "amax" } else { "amin" };
        // Dims are checked in the order given, each for a zero size before any repeat is seen
        // (and before the dtype, as in PyTorch).
        for &d in dims {
            let d = wrap_dim(name, d, self.ndim())?;
            if self.ndim() > 0 && self.shape()[d] == 0 {
                bail!(
                    Index,
                    "{name}(): Expected reduction dim {d} to have non-zero size."
                );
            }
        }
        if self.numel() > 0 {
            self.refuse_complex(if is_max {
                "max_values_cpu"
            } else {
                "min_values_cpu"
            })?;
        }
        let rd = reduce_dims(name, dims, self.ndim())?;
        if dims.is_empty() && self.numel() == 0 {
            bail!(
                Runtime,
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            );
        }
        if self.numel() == 0 && self.dtype().is_complex() {
            // No kernel runs: the result keeps the input's zero-size dim, so it is empty too.
            return self.detach().sum_dims(dims, keepdim);
        }
        let gpu = crate::cuda_forward!(name, [self], |d| {
            use crate::cuda::launch::reduce::ReduceOp;
            let op = if is_max { ReduceOp::Max } else { ReduceOp::Min };
            crate::cuda::ops::reduce::reduce(&d, self, &rd, keepdim, op, self.dtype())
        });
        let out = match gpu {
            Some(out) => out?,
            None => {
                let rows = to_rows(self, &rd)?;
                let out = self.reduce_out(&rows, keepdim, self.dtype())?;
                with_dtype!(self.dtype(), T => {
                    per_row::<T, T>(&rows, unsafe { out.contiguous_slice_mut() }, |r: &[T]| extreme(r, is_max).1);
                });
                out
            }
        };
        let in_shape = self.shape().to_vec();
        let bw = if is_max {
            "AmaxBackward0"
        } else {
            "AminBackward0"
        };
        Ok(record(bw, out, &[self], &[self], true, move |g, s| {
            let (x, y) = (&s[0], &s[1]);
            let y = expand_grad(y, &in_shape, &rd, keepdim)?;
            let mask = x
                .binary(crate::ops::binary::BinaryOp::Eq, &y)?
                .to_dtype(g.dtype())?;
            let count = mask.sum_dims(&rd.iter().map(|&d| d as i64).collect::<Vec<_>>(), true)?;
            let g = expand_grad(g, &in_shape, &rd, keepdim)?;
            Ok(vec![Some(g.mul(&mask)?.div(&count)?)])
        }))
    }

    /// `max(dim)` / `min(dim)`: values and int64 indices; the gradient goes to the index.
    pub fn max_dim(&self, dim: i64, keepdim: bool, is_max: bool) -> Result<(Tensor, Tensor)> {
        let name = if is_max { "max" } else { "min" };
        let d = wrap_dim(name, dim, self.ndim())?;
        if self.ndim() > 0 && self.shape()[d] == 0 {
            bail!(
                Index,
                "{name}(): Expected reduction dim {d} to have non-zero size."
            );
        }
        self.refuse_complex_order(&format!("{name}(): does not support complex input"))?;
        let rd: Vec<usize> = if self.ndim() == 0 { vec![] } else { vec![d] };
        let on_cuda = crate::cuda_forward!(name, [self], |dev| {
            crate::cuda::ops::reduce::max_dim(&dev, self, &rd, keepdim, is_max)
        });
        let (vals, idx) = match on_cuda {
            Some(r) => r?,
            None => {
                let rows = to_rows(self, &rd)?;
                let idx = self.reduce_out(&rows, keepdim, DType::I64)?;
                let vals = self.reduce_out(&rows, keepdim, self.dtype())?;
                with_dtype!(self.dtype(), T => {
                    per_row::<T, i64>(&rows, unsafe { idx.contiguous_slice_mut() }, |r: &[T]| extreme(r, is_max).0 as i64);
                    per_row::<T, T>(&rows, unsafe { vals.contiguous_slice_mut() }, |r: &[T]| extreme(r, is_max).1);
                });
                (vals, idx)
            }
        };
        let in_shape = self.shape().to_vec();
        let bw = if is_max {
            "MaxBackward0"
        } else {
            "MinBackward0"
        };
        let idx_saved = idx.clone();
        let vals = record(bw, vals, &[self], &[], false, move |g, _| {
            let (g, i) = if keepdim || rd.is_empty() {
                (g.clone(), idx_saved.clone())
            } else {
                (g.unsqueeze(d as i64)?, idx_saved.unsqueeze(d as i64)?)
            };
            let z = Tensor::zeros_on(&in_shape, g.dtype(), g.device())?;
            if rd.is_empty() {
                return Ok(vec![Some(g.reshape(&[])?)]);
            }
            Ok(vec![Some(z.scatter_add(d as i64, &i, &g)?)])
        });
        Ok((vals, idx))
    }

    /// `argmax`/`argmin` over one dim, or over the flattened tensor when `dim` is None.
    pub fn argmax(&self, dim: Option<i64>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let name = if is_max { "argmax" } else { "argmin" };
        self.refuse_complex_order(&format!("{name}(): does not support complex input"))?;
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "{name}(): does not support bool input");
        }
        match dim {
            Some(d) => Ok(self.max_dim(d, keepdim, is_max)?.1),
            None => {
                if self.numel() == 0 {
                    bail!(
                        Index,
                        "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                    );
                }
                let flat = self.detach().reshape(&[-1])?;
                let i = flat.max_dim(0, false, is_max)?.1;
                if keepdim {
                    i.reshape(&vec![1; self.ndim()])
                } else {
                    Ok(i)
                }
            }
        }
    }

    /// `all`/`any` over dims; the result is bool.
    pub fn all_any(&self, dims: &[i64], keepdim: bool, all: bool) -> Result<Tensor> {
        let name = if all { "all" } else { "any" };
        let rd = reduce_dims(name, dims, self.ndim())?;
        let gpu: Option<Result<Tensor>> = crate::cuda_forward!(name, [self], |d| {
            use crate::cuda::launch::reduce::ReduceOp;
            let op = if all { ReduceOp::All } else { ReduceOp::Any };
            crate::cuda::ops::reduce::reduce(&d, self, &rd, keepdim, op, DType::Bool)
        });
        if let Some(out) = gpu {
            return out?.to_dtype_raw(if self.dtype() == DType::U8 {
                DType::U8
            } else {
                DType::Bool
            });
        }
        let b = self.to_dtype_raw(DType::Bool)?;
        let rows = to_rows(&b, &rd)?;
        let out = self.reduce_out(&rows, keepdim, DType::Bool)?;
        per_row::<bool, bool>(
            &rows,
            unsafe { out.contiguous_slice_mut() },
            |r: &[bool]| {
                if all {
                    r.iter().all(|&v| v)
                } else {
                    r.iter().any(|&v| v)
                }
            },
        );
        // PyTorch keeps uint8 for all/any of uint8 (a legacy rule); every other dtype gives bool.
        out.to_dtype_raw(if self.dtype() == DType::U8 {
            DType::U8
        } else {
            DType::Bool
        })
    }

    /// The host product of `self` (cast to `cd`) over `rd`.
    fn prod_host(&self, rd: &[usize], keepdim: bool, cd: DType) -> Result<Tensor> {
        let rows = to_rows(&self.to_dtype_raw(cd)?, rd)?;
        let out = self.reduce_out(&rows, keepdim, cd)?;
        match cd {
            DType::F32 => per_row::<f32, f32>(
                &rows,
                unsafe { out.contiguous_slice_mut() },
                |r: &[f32]| r.iter().product(),
            ),
            DType::F64 => per_row::<f64, f64>(
                &rows,
                unsafe { out.contiguous_slice_mut() },
                |r: &[f64]| r.iter().product(),
            ),
            _ => per_row::<i64, i64>(
                &rows,
                unsafe { out.contiguous_slice_mut() },
                |r: &[i64]| r.iter().fold(1i64, |a, &b| a.wrapping_mul(b)),
            ),
        }
        Ok(out)
    }

    /// `prod(dims)`; the gradient handles zeros by the product of the other elements.
    pub fn prod_dims(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let rd = reduce_dims("prod", dims, self.ndim())?;
        if self.dtype().is_complex() {
            return self.complex_prod(&rd, keepdim);
        }
        let (out_dt, cd) = accum_dtypes(self.dtype());
        let gpu: Option<Result<Tensor>> = crate::cuda_forward!("prod", [self], |d| {
            use crate::cuda::launch::reduce::ReduceOp;
            let src = self.to_dtype_raw(cd)?;
            crate::cuda::ops::reduce::reduce(&d, &src, &rd, keepdim, ReduceOp::Prod, cd)
        });
        let out = match gpu {
            Some(out) => out?,
            None => self.prod_host(&rd, keepdim, cd)?,
        };
        let out = out.to_dtype_raw(out_dt)?;
        let in_shape = self.shape().to_vec();
        Ok(record(
            "ProdBackward1",
            out,
            &[self],
            &[self],
            false,
            move |g, s| {
                let x = &s[0];
                // d prod / d x_i = prod of the others: a product of exclusive cumulative products.
                let n = rd.len();
                let moved_rows = {
                    let kept: Vec<i64> = (0..x.ndim())
                        .filter(|d| !rd.contains(d))
                        .map(|d| d as i64)
                        .collect();
                    let mut perm = kept.clone();
                    perm.extend(rd.iter().map(|&d| d as i64));
                    let p = x.permute(&perm)?;
                    let flat = p
                        .flatten((x.ndim() - n) as i64, -1)
                        .or_else(|_| p.reshape(&[-1]))?;
                    (perm, flat)
                };
                let (perm, flat) = moved_rows;
                let last = flat.ndim() as i64 - 1;
                let ones = Tensor::ones_like_tensor(&flat.narrow(
                    last,
                    0,
                    1.min(flat.shape()[last as usize] as i64),
                )?)?;
                let before = if flat.shape()[last as usize] == 0 {
                    flat.clone()
                } else {
                    Tensor::cat(
                        &[
                            ones.clone(),
                            flat.narrow(last, 0, flat.shape()[last as usize] as i64 - 1)?,
                        ],
                        last,
                    )?
                    .cumprod(last)?
                };
                let rev = flat.flip(&[last])?;
                let after = if flat.shape()[last as usize] == 0 {
                    flat.clone()
                } else {
                    Tensor::cat(
                        &[
                            ones,
                            rev.narrow(last, 0, rev.shape()[last as usize] as i64 - 1)?,
                        ],
                        last,
                    )?
                    .cumprod(last)?
                    .flip(&[last])?
                };
                let others = before.mul(&after)?;
                let mut pshape: Vec<i64> =
                    perm.iter().map(|&d| x.shape()[d as usize] as i64).collect();
                if pshape.is_empty() {
                    pshape = vec![];
                }
                let others = others.reshape(&pshape)?;
                let mut inv = vec![0i64; perm.len()];
                for (i, &d) in perm.iter().enumerate() {
                    inv[d as usize] = i as i64;
                }
                let others = others.permute(&inv)?;
                let g = expand_grad(g, &in_shape, &rd, keepdim)?;
                Ok(vec![Some(g.mul(&others)?)])
            },
        ))
    }
}

/// (index, value) of the first maximum (or minimum); NaN wins, as in PyTorch.
fn extreme<T: Element>(r: &[T], is_max: bool) -> (usize, T) {
    let mut bi = 0;
    let mut bv = r[0];
    #[allow(clippy::eq_op)]
    let is_nan = |v: T| v != v;
    if is_nan(bv) {
        return (0, bv);
    }
    for (i, &v) in r.iter().enumerate().skip(1) {
        if is_nan(v) {
            return (i, v);
        }
        if (is_max && v > bv) || (!is_max && v < bv) {
            bi = i;
            bv = v;
        }
    }
    (bi, bv)
}

#[allow(dead_code)]
fn _unused(_: Error) {}

//! `linear`: x W^T + b as one node, the op every Linear layer runs. The leading dims of x fold
//! into one product (one gemm instead of one per batch entry, and no summed weight gradient
//! per entry), the bias is added in place, and the weight gradient comes out contiguous like
//! the weight instead of as a transposed view that must be copied before it is accumulated.

use crate::autograd::record;
use crate::autograd::GradModeGuard;
use crate::{bail, DType, Element, Result, Tensor};

/// Adds `bias` to every row of the fresh contiguous `out` of shape [rows, n].
fn add_bias_rows<T: Element + std::ops::Add<Output = T>>(
    out: &Tensor,
    bias: &Tensor,
) -> Result<()> {
    let b = bias.contiguous()?;
    let b: &[T] = b.contiguous_slice();
    let n = b.len();
    if n == 0 {
        return Ok(());
    }
    // Safety: `out` was allocated by the caller and nobody else has seen it yet.
    let o: &mut [T] = unsafe { out.contiguous_slice_mut() };
    let add_rows = |rows: &mut [T]| {
        for row in rows.chunks_exact_mut(n) {
            for (x, &y) in row.iter_mut().zip(b) {
                *x = *x + y;
            }
        }
    };
    if crate::cpu::parallel::worth(o.len()) {
        use rayon::prelude::*;
        let rows_per_task = (crate::cpu::parallel::PAR_THRESHOLD / n).max(1);
        crate::cpu::thread_pool::run(|| o.par_chunks_mut(rows_per_task * n).for_each(add_rows));
    } else {
        add_rows(o);
    }
    Ok(())
}

impl Tensor {
    /// `torch.nn.functional.linear`: `self @ weight.T + bias`.
    pub fn linear(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let (x, w) = (self, weight);
        let fused = w.ndim() == 2
            && x.ndim() >= 1
            && matches!(x.dtype(), DType::F32 | DType::F64)
            && w.dtype() == x.dtype()
            && bias.is_none_or(|b| b.shape() == [w.shape()[0]] && b.dtype() == x.dtype())
            // The fused kernel is the host's; on a GPU the composition runs cuBLAS.
            && x.device() == crate::Device::Cpu
            && w.device() == crate::Device::Cpu;
        if !fused {
            // Other layouts and dtypes: the composition, with its own checks and messages.
            let out = x.matmul(&w.t()?)?;
            return match bias {
                Some(b) => out.add(b),
                None => Ok(out),
            };
        }
        let (out_f, in_f) = (w.shape()[0], w.shape()[1]);
        let k = x.shape()[x.ndim() - 1];
        if k != in_f {
            let rows = x.numel() / k.max(1);
            bail!(
                Runtime,
                "linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {in_f}x{out_f})"
            );
        }
        let lead: Vec<usize> = x.shape()[..x.ndim() - 1].to_vec();
        let rows: usize = lead.iter().product();
        let out2 = {
            let _no_graph = GradModeGuard::new(false);
            let x2 = x.reshape(&[rows as i64, k as i64])?;
            // The product overwrites every element unless the inner dim is empty (sum of nothing).
            let out2 = if k == 0 {
                Tensor::zeros(&[rows, out_f], x.dtype())?
            } else {
                Tensor::uninit(&[rows, out_f], x.dtype())?
            };
            if k > 0 && rows * out_f > 0 {
                crate::ops::matmul::gemm_into(&x2, &w.t()?, &out2)?;
            }
            if let Some(b) = bias {
                match x.dtype() {
                    DType::F64 => add_bias_rows::<f64>(&out2, b)?,
                    _ => add_bias_rows::<f32>(&out2, b)?,
                }
            }
            out2
        };
        let mut shape = lead;
        shape.push(out_f);
        let out = out2.alias(crate::layout::Layout::contiguous(&shape));
        let name = if bias.is_some() {
            "AddmmBackward0"
        } else {
            "MmBackward0"
        };
        let has_bias = bias.is_some();
        let mut inputs = vec![x, w];
        inputs.extend(bias);
        Ok(record(name, out, &inputs, &[x, w], false, move |g, s| {
            let (x, w) = (&s[0], &s[1]);
            let g2 = g.reshape(&[rows as i64, out_f as i64])?;
            let gx = if x.requires_grad() {
                Some(g2.matmul(w)?.reshape(&shape_i64(x.shape()))?)
            } else {
                None
            };
            let gw = if w.requires_grad() {
                let x2 = x.reshape(&[rows as i64, in_f as i64])?;
                Some(g2.t()?.matmul(&x2)?)
            } else {
                None
            };
            let mut grads = vec![gx, gw];
            if has_bias {
                grads.push(Some(g2.sum_dims(&[0], false)?));
            }
            Ok(grads)
        }))
    }
}

fn shape_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

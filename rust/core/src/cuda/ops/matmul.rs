//! Batched matrix products through cuBLAS's strided-batched GEMM. Transposed operands and
//! broadcast batches are passed by strides; only an operand with no single batch stride or no
//! unit stride in its last two dims is copied first.

use super::{base, copy::copy_as, empty};
use crate::cuda::runtime::blas::{matmul as gemm, MatRef};
use crate::cuda::runtime::DeviceState;
use crate::{Result, Tensor};
use std::sync::Arc;

/// The one stride that steps through all batch dims of `t` in row-major order, if any.
fn batch_stride(t: &Tensor) -> Option<i64> {
    let nd = t.ndim();
    let (shape, strides) = (&t.shape()[..nd - 2], &t.strides()[..nd - 2]);
    let mut expect: Option<usize> = None;
    let mut inner = 0usize;
    for d in (0..shape.len()).rev() {
        if shape[d] == 1 {
            continue;
        }
        match expect {
            None => {
                inner = strides[d];
                expect = Some(strides[d] * shape[d]);
            }
            Some(e) if strides[d] == e || (inner == 0 && strides[d] == 0) => {
                expect = Some(strides[d] * shape[d]);
            }
            _ => return None,
        }
    }
    Some(inner as i64)
}

/// `t` as a cuBLAS operand: its matrix strides and batch stride (copied contiguous if needed).
fn operand(dev: &Arc<DeviceState>, t: &Tensor) -> Result<(Tensor, MatRef)> {
    let nd = t.ndim();
    let (rows, cols) = (t.shape()[nd - 2], t.shape()[nd - 1]);
    let make = |t: &Tensor| {
        let st = t.strides();
        batch_stride(t).map(|bs| MatRef {
            ptr: 0,
            row_stride: if rows == 1 {
                cols.max(1) as i64
            } else {
                st[nd - 2] as i64
            },
            col_stride: if cols == 1 { 1 } else { st[nd - 1] as i64 },
            batch_stride: bs,
        })
    };
    let (t, mut m) = match make(t).filter(|m| m.usable(rows, cols)) {
        Some(m) => (t.clone(), m),
        None => {
            let c = copy_as(dev, t, t.dtype())?;
            let m = make(&c).expect("a contiguous tensor has one batch stride");
            (c, m)
        }
    };
    m.ptr = base(&t)? + (t.offset() * t.dtype().size()) as u64;
    Ok((t, m))
}

/// `a @ b` for [.., m, k] and [.., k, n] views with equal batch shapes: a contiguous result.
pub fn bmm(dev: &Arc<DeviceState>, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let mut shape = a.shape()[..nd - 2].to_vec();
    let batch: usize = shape.iter().product();
    shape.extend([m, n]);
    if k == 0 || batch * m * n == 0 {
        return super::zeros(dev, &shape, a.dtype());
    }
    let out = empty(dev, &shape, a.dtype())?;
    let (_ka, ma) = operand(dev, a)?;
    let (_kb, mb) = operand(dev, b)?;
    gemm(dev, a.dtype(), ma, mb, base(&out)?, m, n, k, batch)?;
    Ok(out)
}

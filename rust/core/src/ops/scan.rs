//! Cumulative ops along a dim: cumsum, cumprod.

use crate::autograd::record;
use crate::layout::wrap_dim;
use crate::ops::reduce::{accum_dtypes, to_rows};
use crate::{DType, Result, Tensor};

fn scan(x: &Tensor, dim: usize, prod: bool) -> Result<Tensor> {
    let (out_dt, cd) = accum_dtypes(x.dtype());
    if x.ndim() == 0 {
        return Ok(x.copy_as(out_dt));
    }
    let rows = to_rows(&x.to_dtype_raw(cd), &[dim]);
    let out = rows.data.contiguous_copy();
    let inner = rows.inner.max(1);
    macro_rules! run {
        ($T:ty, $one:expr, $op:expr) => {{
            let o: &mut [$T] = unsafe { out.contiguous_slice_mut() };
            for row in o.chunks_mut(inner) {
                let mut acc: $T = $one;
                for v in row.iter_mut() {
                    acc = $op(acc, *v);
                    *v = acc;
                }
            }
        }};
    }
    match (cd, prod) {
        (DType::F32, false) => run!(f32, 0.0, |a: f32, b| a + b),
        (DType::F32, true) => run!(f32, 1.0, |a: f32, b| a * b),
        (DType::F64, false) => run!(f64, 0.0, |a: f64, b| a + b),
        (DType::F64, true) => run!(f64, 1.0, |a: f64, b| a * b),
        (_, false) => run!(i64, 0, |a: i64, b: i64| a.wrapping_add(b)),
        (_, true) => run!(i64, 1, |a: i64, b: i64| a.wrapping_mul(b)),
    }
    // Rows have `dim` moved last; move it back.
    let nd = x.ndim() as i64;
    let mut perm: Vec<i64> = (0..nd).filter(|&d| d != dim as i64).collect();
    perm.push(dim as i64);
    let mut inv = vec![0i64; perm.len()];
    for (i, &d) in perm.iter().enumerate() {
        inv[d as usize] = i as i64;
    }
    let mut shape: Vec<i64> = perm.iter().map(|&d| x.shape()[d as usize] as i64).collect();
    if shape.is_empty() {
        shape.push(1);
    }
    Ok(out
        .reshape(&shape)?
        .permute(&inv)?
        .contiguous_copy()
        .to_dtype_raw(out_dt))
}

impl Tensor {
    pub fn cumsum(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim("cumsum", dim, self.ndim())?;
        let out = scan(self, d, false)?;
        Ok(record(
            "CumsumBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let di = d as i64;
                Ok(vec![Some(g.flip(&[di])?.cumsum(di)?.flip(&[di])?)])
            },
        ))
    }

    /// `cumprod`; the gradient divides by the input, so it assumes no zeros in the input.
    pub fn cumprod(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim("cumprod", dim, self.ndim())?;
        let out = scan(self, d, true)?;
        Ok(record(
            "CumprodBackward0",
            out,
            &[self],
            &[self],
            true,
            move |g, s| {
                let (x, y) = (
                    &s[0],
                    if crate::autograd::is_grad_enabled() {
                        s[0].cumprod(d as i64)?
                    } else {
                        s[1].clone()
                    },
                );
                let di = d as i64;
                let acc = g.mul(&y)?.flip(&[di])?.cumsum(di)?.flip(&[di])?;
                Ok(vec![Some(acc.div(x)?)])
            },
        ))
    }
}

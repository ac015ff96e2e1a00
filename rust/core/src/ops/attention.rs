//! Fused scaled-dot-product attention, softmax(Q K^T * scale [+ causal mask]) V, as one
//! graph node: no [L, S] score or probability tensor is kept between forward and backward
//! (each row's log-sum-exp is, and the backward recomputes the tiles), so memory stays
//! linear in the length. The kernels are in `attention_kernels.rs`.

use super::attention_kernels::{self as kernels, AttnFloat, Geometry, Operand, Saved};
use crate::autograd::{is_grad_enabled, record};
use crate::error::fmt_shape;
use crate::{bail, DType, Device, Result, Scalar, Tensor};

/// The geometry of a call, after checking that the fused kernels take it.
fn geometry(q: &Tensor, k: &Tensor, v: &Tensor, scale: f64, causal: bool) -> Result<Geometry> {
    let nd = q.ndim();
    let fits = nd >= 2
        && k.ndim() == nd
        && v.ndim() == nd
        && q.shape()[..nd - 2] == k.shape()[..nd - 2]
        && k.shape()[..nd - 2] == v.shape()[..nd - 2]
        && k.shape()[nd - 1] == q.shape()[nd - 1]
        && k.shape()[nd - 2] == v.shape()[nd - 2];
    if !fits {
        bail!(
            Runtime,
            "scaled_dot_product_attention: the fused kernel takes query [*, L, E], key [*, S, E] and value [*, S, Ev] with equal batch dims, but got query{}, key{} and value{}",
            fmt_shape(q.shape()),
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    let dt = q.dtype();
    if !matches!(dt, DType::F32 | DType::F64) || k.dtype() != dt || v.dtype() != dt {
        bail!(
            Runtime,
            "scaled_dot_product_attention: the fused kernel takes float32 or float64 operands of one dtype, but got {}, {} and {}",
            dt.name(),
            k.dtype().name(),
            v.dtype().name()
        );
    }
    if [q, k, v].iter().any(|t| t.device() != Device::Cpu) {
        bail!(
            Runtime,
            "scaled_dot_product_attention: the fused kernel runs on the CPU"
        );
    }
    let heads = q.shape()[..nd - 2].iter().product();
    let (l, e) = (q.shape()[nd - 2], q.shape()[nd - 1]);
    let (s, ev) = (k.shape()[nd - 2], v.shape()[nd - 1]);
    if heads * l * s * e * ev == 0 {
        bail!(
            Runtime,
            "scaled_dot_product_attention: the fused kernel takes no zero-size operand, but got query{}, key{} and value{}",
            fmt_shape(q.shape()),
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    Ok(Geometry {
        heads,
        l,
        s,
        e,
        ev,
        scale,
        causal,
    })
}

fn out_shape(q: &Tensor, last: usize) -> Vec<usize> {
    let mut shape = q.shape().to_vec();
    *shape.last_mut().expect("2 dims") = last;
    shape
}

/// The output [*, L, Ev] and the rows' log-sum-exps [*, L], outside autograd.
fn forward_raw<T: AttnFloat>(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    g: &Geometry,
) -> Result<(Tensor, Tensor)> {
    let out = Tensor::uninit(&out_shape(q, g.ev), q.dtype())?;
    let lse = Tensor::uninit(&q.shape()[..q.ndim() - 1], q.dtype())?;
    let (oq, ok, ov) = (Operand::<T>::of(q), Operand::of(k), Operand::of(v));
    // SAFETY: the operands view tensors of the checked shapes; out and lse are fresh.
    unsafe {
        let o = out.contiguous_slice_mut::<T>().as_mut_ptr();
        let m = lse.contiguous_slice_mut::<T>().as_mut_ptr();
        kernels::forward(g, &oq, &ok, &ov, o, m);
    }
    Ok((out, lse))
}

/// The gradients of Q, K and V from the kernels, for a first-order backward.
fn backward_raw<T: AttnFloat>(
    [q, k, v]: [&Tensor; 3],
    out: &Tensor,
    lse: &Tensor,
    dout: &Tensor,
    g: &Geometry,
) -> Result<Vec<Option<Tensor>>> {
    let dout = dout.to_dtype(q.dtype())?.contiguous()?;
    let grads = [
        Tensor::uninit(q.shape(), q.dtype())?,
        Tensor::uninit(k.shape(), q.dtype())?,
        Tensor::uninit(v.shape(), q.dtype())?,
    ];
    let (oq, ok, ov) = (Operand::<T>::of(q), Operand::of(k), Operand::of(v));
    let saved = Saved {
        out: out.contiguous_slice::<T>(),
        dout: dout.contiguous_slice::<T>(),
        lse: lse.contiguous_slice::<T>(),
    };
    // SAFETY: as in the forward; the gradients are fresh and contiguous.
    unsafe {
        let ptrs = grads
            .each_ref()
            .map(|t| t.contiguous_slice_mut::<T>().as_mut_ptr());
        kernels::backward(g, &oq, &ok, &ov, &saved, ptrs);
    }
    Ok(grads.into_iter().map(Some).collect())
}

/// [L, S] additive mask: 0 where key j <= query i, -inf after.
fn causal_mask(l: usize, s: usize, dtype: DType) -> Result<Tensor> {
    let mask: Vec<f64> = (0..l * s)
        .map(|ij| {
            if ij % s > ij / s {
                f64::NEG_INFINITY
            } else {
                0.0
            }
        })
        .collect();
    Tensor::from_vec(mask, &[l, s])?.to_dtype(dtype)
}

/// The backward in differentiable tensor ops, for a graph of the gradient (create_graph).
fn backward_composed(
    [q, k, v]: [&Tensor; 3],
    dout: &Tensor,
    g: &Geometry,
) -> Result<Vec<Option<Tensor>>> {
    let scale = Scalar::Float(g.scale);
    let mut scores = q.matmul(&k.transpose(-2, -1)?)?.mul_scalar(scale)?;
    if g.causal {
        scores = scores.add(&causal_mask(g.l, g.s, q.dtype())?)?;
    }
    let p = scores.softmax(-1)?;
    let dv = p.transpose(-2, -1)?.matmul(dout)?;
    let dp = dout.matmul(&v.transpose(-2, -1)?)?;
    let row = dp.mul(&p)?.sum_dims(&[-1], true)?;
    let ds = p.mul(&dp.sub(&row)?)?.mul_scalar(scale)?;
    let dq = ds.matmul(k)?;
    let dk = ds.transpose(-2, -1)?.matmul(q)?;
    Ok(vec![Some(dq), Some(dk), Some(dv)])
}

impl Tensor {
    /// `softmax(q k^T * scale) v` over the last two dims (keys after each query masked when
    /// `causal`, top-left aligned as in PyTorch), fused: float32/float64 CPU operands with
    /// equal batch dims and no zero-size dim. The gradient flows to all three operands.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferrotorch::Tensor;
    /// let q = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[2, 2])?;
    /// let v = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let y = Tensor::fused_attention(&q, &q, &v, 1.0, true)?.to_vec::<f32>();
    /// assert_eq!(&y[..2], &[1.0, 2.0]); // the first query sees only the first key
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn fused_attention(
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        scale: f64,
        causal: bool,
    ) -> Result<Tensor> {
        let g = geometry(q, k, v, scale, causal)?;
        let (out, lse) = match q.dtype() {
            DType::F64 => forward_raw::<f64>(q, k, v, &g)?,
            _ => forward_raw::<f32>(q, k, v, &g)?,
        };
        Ok(record(
            "ScaledDotProductFlashAttentionForCpuBackward0",
            out,
            &[q, k, v],
            &[q, k, v, &lse],
            true,
            move |dout, s| {
                let qkv = [&s[0], &s[1], &s[2]];
                if is_grad_enabled() {
                    return backward_composed(qkv, dout, &g);
                }
                match s[0].dtype() {
                    DType::F64 => backward_raw::<f64>(qkv, &s[4], &s[3], dout, &g),
                    _ => backward_raw::<f32>(qkv, &s[4], &s[3], dout, &g),
                }
            },
        ))
    }
}

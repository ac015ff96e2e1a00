//! Fused scaled-dot-product attention, softmax(Q K^T * scale [+ mask]) V, as one graph
//! node: no [L, S] score or probability tensor is kept between forward and backward (each
//! row's log-sum-exp is, and the backward recomputes the tiles), so memory stays linear in
//! the length. The kernels are in `attention_kernels.rs`.

use super::attention_kernels::{self as kernels, AttnFloat, Geometry, Inputs, Operand, Saved};
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

/// The additive mask as a view of [*, L, S] (broadcast dims at stride 0), checked.
fn expanded_mask(m: &Tensor, q: &Tensor, g: &Geometry) -> Result<Tensor> {
    let mut shape = q.shape()[..q.ndim() - 2].to_vec();
    shape.extend([g.l, g.s]);
    let fits = crate::layout::broadcast_shapes("scaled_dot_product_attention", m.shape(), &shape)
        .is_ok_and(|b| b == shape);
    if !fits || m.dtype() != q.dtype() || g.causal || m.device() != Device::Cpu {
        bail!(
            Runtime,
            "scaled_dot_product_attention: the fused kernel takes an additive mask of the query's dtype broadcastable to {} (and none with is_causal), but got {} {}",
            fmt_shape(&shape),
            m.dtype().name(),
            fmt_shape(m.shape())
        );
    }
    let to: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    m.detach().expand(&to)
}

/// The kernels' view of the operands.
struct Views<T> {
    q: Operand<T>,
    k: Operand<T>,
    v: Operand<T>,
    mask: Option<Operand<T>>,
}

impl<T: AttnFloat> Views<T> {
    fn of([q, k, v]: [&Tensor; 3], mask: Option<&Tensor>) -> Views<T> {
        Views {
            q: Operand::of(q),
            k: Operand::of(k),
            v: Operand::of(v),
            mask: mask.map(Operand::of),
        }
    }

    fn inputs(&self) -> Inputs<'_, T> {
        Inputs {
            q: &self.q,
            k: &self.k,
            v: &self.v,
            mask: self.mask.as_ref(),
        }
    }
}

/// The output [*, L, Ev] and the rows' log-sum-exps [*, L], outside autograd.
fn forward_raw<T: AttnFloat>(
    qkv: [&Tensor; 3],
    mask: Option<&Tensor>,
    g: &Geometry,
) -> Result<(Tensor, Tensor)> {
    let q = qkv[0];
    let out = Tensor::uninit(&out_shape(q, g.ev), q.dtype())?;
    let lse = Tensor::uninit(&q.shape()[..q.ndim() - 1], q.dtype())?;
    let views = Views::<T>::of(qkv, mask);
    // SAFETY: the operands view tensors of the checked shapes; out and lse are fresh.
    unsafe {
        let o = out.contiguous_slice_mut::<T>().as_mut_ptr();
        let m = lse.contiguous_slice_mut::<T>().as_mut_ptr();
        kernels::forward(g, &views.inputs(), o, m);
    }
    Ok((out, lse))
}

/// The saved state of the node: the operands, the mask, the output and the log-sum-exps.
struct State<'a> {
    qkv: [&'a Tensor; 3],
    mask: Option<&'a Tensor>,
    out: &'a Tensor,
    lse: &'a Tensor,
}

/// The gradients of Q, K and V from the kernels, for a first-order backward.
fn backward_raw<T: AttnFloat>(
    st: &State<'_>,
    dout: &Tensor,
    g: &Geometry,
) -> Result<Vec<Option<Tensor>>> {
    let [q, k, v] = st.qkv;
    let dout = dout.to_dtype(q.dtype())?.contiguous()?;
    let grads = [
        Tensor::uninit(q.shape(), q.dtype())?,
        Tensor::uninit(k.shape(), q.dtype())?,
        Tensor::uninit(v.shape(), q.dtype())?,
    ];
    let views = Views::<T>::of(st.qkv, st.mask);
    let saved = Saved {
        out: st.out.contiguous_slice::<T>(),
        dout: dout.contiguous_slice::<T>(),
        lse: st.lse.contiguous_slice::<T>(),
    };
    // SAFETY: as in the forward; the gradients are fresh and contiguous.
    unsafe {
        let ptrs = grads
            .each_ref()
            .map(|t| t.contiguous_slice_mut::<T>().as_mut_ptr());
        kernels::backward(g, &views.inputs(), &saved, ptrs);
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
fn backward_composed(st: &State<'_>, dout: &Tensor, g: &Geometry) -> Result<Vec<Option<Tensor>>> {
    let [q, k, v] = st.qkv;
    let scale = Scalar::Float(g.scale);
    let mut scores = q.matmul(&k.transpose(-2, -1)?)?.mul_scalar(scale)?;
    if g.causal {
        scores = scores.add(&causal_mask(g.l, g.s, q.dtype())?)?;
    }
    if let Some(m) = st.mask {
        scores = scores.add(m)?;
    }
    // A wholly masked row (its saved lse -inf) is 0, kept finite through the softmax so that
    // its gradient stays free of NaN.
    let dead = st
        .lse
        .unsqueeze(-1)?
        .binary_scalar(crate::ops::BinaryOp::Eq, Scalar::Float(f64::NEG_INFINITY))?;
    let zero = Tensor::zeros(&[], q.dtype())?;
    let p = dead.where_(&zero, &scores)?.softmax(-1)?;
    let p = dead.where_(&zero, &p)?;
    let dv = p.transpose(-2, -1)?.matmul(dout)?;
    let dp = dout.matmul(&v.transpose(-2, -1)?)?;
    let row = dp.mul(&p)?.sum_dims(&[-1], true)?;
    let ds = p.mul(&dp.sub(&row)?)?.mul_scalar(scale)?;
    let dq = ds.matmul(k)?;
    let dk = ds.transpose(-2, -1)?.matmul(q)?;
    Ok(vec![Some(dq), Some(dk), Some(dv)])
}

impl Tensor {
    /// `softmax(q k^T * scale + mask) v` over the last two dims, fused: float32/float64 CPU
    /// operands with equal batch dims and no zero-size dim. `mask` is additive (-inf blocks
    /// a key), of q's dtype, broadcastable to [*, L, S]; a row it wholly blocks gives zeros.
    /// `causal` masks the keys after each query (top-left aligned, as in PyTorch) and takes
    /// no `mask`. The gradient flows to q, k and v (not to the mask).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferrotorch::Tensor;
    /// let q = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[2, 2])?;
    /// let v = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let y = Tensor::fused_attention(&q, &q, &v, None, 1.0, true)?.to_vec::<f32>();
    /// assert_eq!(&y[..2], &[1.0, 2.0]); // the first query sees only the first key
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn fused_attention(
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
        scale: f64,
        causal: bool,
    ) -> Result<Tensor> {
        let g = geometry(q, k, v, scale, causal)?;
        let mask = mask.map(|m| expanded_mask(m, q, &g)).transpose()?;
        let (out, lse) = match q.dtype() {
            DType::F64 => forward_raw::<f64>([q, k, v], mask.as_ref(), &g)?,
            _ => forward_raw::<f32>([q, k, v], mask.as_ref(), &g)?,
        };
        let mut saved = vec![q, k, v, &lse];
        saved.extend(mask.as_ref());
        Ok(record(
            "ScaledDotProductFlashAttentionForCpuBackward0",
            out,
            &[q, k, v],
            &saved,
            true,
            move |dout, s| {
                let st = State {
                    qkv: [&s[0], &s[1], &s[2]],
                    mask: (s.len() == 6).then(|| &s[4]),
                    out: s.last().expect("the output"),
                    lse: &s[3],
                };
                if is_grad_enabled() {
                    return backward_composed(&st, dout, &g);
                }
                match s[0].dtype() {
                    DType::F64 => backward_raw::<f64>(&st, dout, &g),
                    _ => backward_raw::<f32>(&st, dout, &g),
                }
            },
        ))
    }
}

//! Statistics and norms composed from reductions: var, std, norm; and sort/topk.

use crate::layout::wrap_dim;
use crate::ops::reduce::{reduce_dims, to_rows};
use crate::ops::UnaryOp;
use crate::{bail, with_dtype, DType, Element, Result, Scalar, Tensor};

impl Tensor {
    /// `var(dims, correction, keepdim)`: sum((x - mean)^2) / (N - correction).
    pub fn var_dims(&self, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return self.complex_var(dims, correction, keepdim);
        }
        self.var_in_f64(dims, correction, keepdim)?
            .to_dtype(self.dtype())
    }

    /// The variance computed in float64, as PyTorch accumulates it on the CPU: squares of
    /// values near the float32 range do not overflow (the std of [3e38, -3e38] is finite).
    fn var_in_f64(&self, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "var: std and var only support floating point and complex dtypes (got {})",
                self.dtype().name()
            );
        }
        let rd = reduce_dims("var", dims, self.ndim())?;
        let n: usize = rd.iter().map(|&d| self.shape()[d]).product();
        let x = self.to_dtype(DType::F64)?;
        let mu = x.mean_dims(dims, true)?;
        // PyTorch's CPU var takes a plain two-pass route when the result is one float32/64
        // value (its mean may overflow to inf there) and Welford's otherwise.
        let one_output = mu.numel() == 1 && matches!(self.dtype(), DType::F32 | DType::F64);
        // (Checked on the host only: on a GPU it would cost a sync per call.)
        let overflowed = x.device() == crate::Device::Cpu
            && x.numel() > 0
            && mu.to_vec::<f64>().iter().any(|m| m.is_infinite());
        if one_output || !overflowed {
            let d = x.sub(&mu)?;
            let ss = d.mul(&d)?.sum_dims(dims, keepdim)?;
            return ss.div_scalar(Scalar::Float((n as f64 - correction).max(0.0)));
        }
        // A sum near the float64 range overflowed: take the moments of x / max|x| and scale
        // back, so finite values keep a finite mean (PyTorch's Welford pass: the var of
        // [1e308, 1e308] is 0, not inf - inf).
        let s = x.detach().abs()?.amax_dims(dims, true, true)?;
        let one = Tensor::ones(&[], DType::F64)?;
        let s = s.gt_scalar(Scalar::Float(0.0))?.where_(&s, &one)?;
        let s = s.isfinite()?.where_(&s, &one)?;
        let xs = x.div(&s)?;
        let d = xs.sub(&xs.mean_dims(dims, true)?)?;
        let ss = d.mul(&d)?.sum_dims(dims, keepdim)?;
        // Scaled back by s twice: s * s alone may overflow where the variance does not.
        let s = if keepdim { s } else { s.sum_dims(dims, false)? };
        ss.div_scalar(Scalar::Float((n as f64 - correction).max(0.0)))?
            .mul(&s)?
            .mul(&s)
    }

    pub fn std_dims(&self, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
        // sqrt'(0) is infinite; PyTorch gives a zero gradient where the std is zero.
        if self.dtype().is_complex() {
            return self.var_dims(dims, correction, keepdim)?.sqrt_safe();
        }
        self.var_in_f64(dims, correction, keepdim)?
            .sqrt_safe()?
            .to_dtype(self.dtype())
    }

    /// `norm(p, dims, keepdim)` for p = 2, 1, inf, -inf, 0 or any positive float.
    pub fn norm_p(&self, p: f64, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if self.dtype().is_complex() {
            // Every vector norm of complex values is that norm of their moduli.
            return self.abs()?.norm_p(p, dims, keepdim);
        }
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().name()
            );
        }
        let rd = reduce_dims("norm", dims, self.ndim())?;
        if p.is_infinite() && rd.iter().any(|&d| self.shape()[d] == 0) {
            // max / min of nothing has no identity (PyTorch: RuntimeError, not IndexError).
            bail!(
                Runtime,
                "linalg.vector_norm cannot compute the {} norm on an empty tensor because the operation does not have an identity (shape {:?})",
                if p > 0.0 { "inf" } else { "-inf" },
                self.shape()
            );
        }
        let a = self.unary(UnaryOp::Abs)?;
        if p != 0.0 && rd.iter().map(|&d| self.shape()[d]).product::<usize>() == 1 {
            // The norm of one element is its magnitude, computed without a power that could
            // overflow (PyTorch: the norm of [3e38] is 3e38, of [3e38, 0] inf).
            return a.sum_dims(dims, keepdim);
        }
        if p == f64::INFINITY {
            return a.amax_dims(dims, keepdim, true);
        }
        if p == f64::NEG_INFINITY {
            return a.amax_dims(dims, keepdim, false);
        }
        if p == 0.0 {
            return a
                .binary_scalar(crate::ops::BinaryOp::Ne, Scalar::Float(0.0))?
                .to_dtype(self.dtype())?
                .sum_dims(dims, keepdim);
        }
        if p == 1.0 {
            return a.sum_dims(dims, keepdim);
        }
        if p == 2.0 {
            // sqrt(sum(x^2)), with a subgradient of 0 at x = 0 (as PyTorch).
            let s = self.mul(self)?.sum_dims(dims, keepdim)?;
            return s.sqrt_safe();
        }
        a.pow_scalar(Scalar::Float(p))?
            .sum_dims(dims, keepdim)?
            .root_safe(p)
    }

    /// sqrt whose gradient is 0 (not inf/nan) where the input is 0.
    fn sqrt_safe(&self) -> Result<Tensor> {
        self.root_safe(2.0)
    }

    /// `self^(1/p)` whose gradient is 0 (not inf/nan) where the input is 0: the root is taken
    /// of 1 there, so no infinite factor enters the backward (or double backward).
    fn root_safe(&self, p: f64) -> Result<Tensor> {
        let zero = self.binary_scalar(crate::ops::BinaryOp::Eq, Scalar::Float(0.0))?;
        let safe = zero.where_(&Tensor::ones(&[], self.dtype())?, self)?;
        let r = if p == 2.0 {
            safe.sqrt()?
        } else {
            safe.pow_scalar(Scalar::Float(1.0 / p))?
        };
        zero.where_(&Tensor::zeros(&[], self.dtype())?, &r)
    }

    /// `sort(dim, descending, stable)` -> (values, int64 indices); stable for equal keys.
    pub fn sort(&self, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim("sort", dim, self.ndim())?;
        self.refuse_complex_order("Sort does not support complex dtypes on CPU")?;
        if self.ndim() == 0 {
            return Ok((
                self.clone(),
                Tensor::full_on(&[], Scalar::Int(0), DType::I64, self.device())?,
            ));
        }
        if self.device() != crate::Device::Cpu {
            // No device sort kernel yet: the order is found on a host copy (one round trip),
            // the values are gathered on the device, so the gradient stays there.
            let host = self.detach().to_device(crate::Device::Cpu)?;
            let idx = host.sort(dim, descending)?.1.to_device(self.device())?;
            return Ok((self.gather(d as i64, &idx)?, idx));
        }
        let rows = to_rows(&self.detach(), &[d])?;
        let n = rows.inner;
        let mut idx: Vec<i64> = crate::alloc_size::try_vec(rows.outer * n)?;
        with_dtype!(self.dtype(), T => {
            let data = rows.data.contiguous_slice::<T>();
            for r in 0..rows.outer {
                let row = &data[r * n..(r + 1) * n];
                let mut order: Vec<usize> = (0..n).collect();
                // NaN sorts as the largest value, like PyTorch.
                order.sort_by(|&a, &b| {
                    let (x, y) = (row[a], row[b]);
                    #[allow(clippy::eq_op)]
                    let (xn, yn) = (x != x, y != y);
                    let ord = match (xn, yn) {
                        (true, true) => std::cmp::Ordering::Equal,
                        (true, false) => std::cmp::Ordering::Greater,
                        (false, true) => std::cmp::Ordering::Less,
                        _ => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
                    };
                    if descending { ord.reverse() } else { ord }
                });
                idx.extend(order.iter().map(|&i| i as i64));
            }
        });
        // Indices are computed with `dim` last; move it back and gather the values.
        let nd = self.ndim();
        let mut perm: Vec<i64> = (0..nd as i64).filter(|&k| k != d as i64).collect();
        perm.push(d as i64);
        let pshape: Vec<usize> = perm.iter().map(|&k| self.shape()[k as usize]).collect();
        let mut inv = vec![0i64; nd];
        for (i, &k) in perm.iter().enumerate() {
            inv[k as usize] = i as i64;
        }
        let idx = Tensor::from_vec(idx, &pshape)?
            .permute(&inv)?
            .contiguous_raw()?;
        let vals = self.gather(d as i64, &idx)?;
        Ok((vals, idx))
    }

    /// `topk(k, dim, largest, sorted)` -> (values, indices).
    pub fn topk(&self, k: usize, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim("topk", dim, self.ndim())?;
        // PyTorch checks k against the dim before the dtype.
        let size = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if k > size {
            bail!(
                Runtime,
                "topk: selected index k out of range (k = {k}, size of dim {d} = {size})"
            );
        }
        self.refuse_complex_order("topk does not support complex dtypes on CPU")?;
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "topk does not support bool dtypes on CPU");
        }
        let (_, idx) = self.sort(d as i64, largest)?;
        if self.ndim() == 0 {
            return Ok((self.clone(), idx));
        }
        let idx = idx.narrow(d as i64, 0, k as i64)?.contiguous_copy()?;
        let vals = self.gather(d as i64, &idx)?;
        Ok((vals, idx))
    }

    /// True for dtypes that the element type `T` represents (used by kernels' checks).
    pub fn dtype_is<T: Element>(&self) -> bool {
        self.dtype() == T::DTYPE
    }
}

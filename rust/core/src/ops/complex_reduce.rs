//! Reductions and scans of complex tensors: linear ones run on the real view (the real and
//! imaginary parts reduce independently, and the views carry the gradient); `prod` multiplies
//! (re, im) pairs row by row.

use crate::autograd::record;
use crate::ops::complex_copy::{complex_slice, complex_slice_mut};
use crate::ops::complex_math::Part;
use crate::ops::reduce::{to_rows, Rows};
use crate::{DType, Result, Scalar, Tensor};
use rustfft::num_complex::Complex;

/// The product of each row of `rows` into `out`, in the order the row is stored.
fn prod_rows<F: Part>(rows: &Rows, out: &Tensor) {
    let src = complex_slice::<F>(&rows.data);
    let o = unsafe { complex_slice_mut::<F>(out) };
    for (k, v) in o.iter_mut().enumerate() {
        let row = &src[k * rows.inner..(k + 1) * rows.inner];
        *v = row
            .iter()
            .fold(Complex::new(F::one(), F::zero()), |a, &b| a * b);
    }
}

impl Tensor {
    /// `sum` over `dims` (already resolved; empty only for a 0-d tensor).
    pub(crate) fn complex_sum(&self, dims: &[usize], keepdim: bool) -> Result<Tensor> {
        if dims.is_empty() {
            return self.clone_tensor();
        }
        let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        self.view_as_real()?
            .sum_dims(&dims, keepdim)?
            .contiguous()?
            .view_as_complex()
    }

    /// `var`: the mean squared modulus of the deviations (a real result), i.e. the
    /// variances of the real and imaginary parts added.
    pub(crate) fn complex_var(
        &self,
        dims: &[i64],
        correction: f64,
        keepdim: bool,
    ) -> Result<Tensor> {
        // var(z) = var(re z) + var(im z): each part keeps the real path's overflow handling
        // (a mean of values near the range stays finite), so an overflowing part gives inf
        // as PyTorch does, not inf - inf.
        let re = self.real()?.var_dims(dims, correction, keepdim)?;
        re.add(&self.imag()?.var_dims(dims, correction, keepdim)?)
    }

    /// `logsumexp`: log(sum(exp(z))), shifted by the largest real part for stability.
    pub(crate) fn complex_logsumexp(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let rd = crate::ops::reduce::reduce_dims("logsumexp", dims, self.ndim())?;
        if rd.is_empty() || self.numel() == 0 {
            return self.exp()?.sum_dims(dims, keepdim)?.log();
        }
        let rd: Vec<i64> = rd.iter().map(|&d| d as i64).collect();
        let m = self.real()?.detach().amax_dims(&rd, true, true)?;
        // A shift of inf (or nan) would turn every term into nan.
        let finite = m.isfinite()?;
        let m = finite.where_(&m, &Tensor::zeros(&[], m.dtype())?)?;
        let s = self.sub(&m)?.exp()?.sum_dims(&rd, keepdim)?.log()?;
        let m = if keepdim { m } else { m.squeeze(Some(&rd))? };
        s.add(&m)
    }

    /// `prod` over `dims` (already resolved). The gradient of each element is g times the
    /// conjugate of the product of the others (computed without dividing by a zero).
    pub(crate) fn complex_prod(&self, dims: &[usize], keepdim: bool) -> Result<Tensor> {
        crate::ops::complex_copy::host_only("prod", self)?;
        let out = self.complex_prod_values(dims, keepdim)?;
        let rd: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        Ok(record(
            "ProdBackward1",
            out,
            &[self],
            &[self],
            false,
            move |g, s| {
                let x = s[0].detach();
                let zero = x.eq_scalar(Scalar::Float(0.0))?;
                let one = Tensor::ones(&[], x.dtype())?;
                let safe = zero.where_(&one, &x)?;
                let rdu: Vec<usize> = rd.iter().map(|&d| d as usize).collect();
                let nonzero_prod = safe.complex_prod_values(&rdu, true)?;
                let zeros = zero.to_dtype(DType::I64)?.sum_dims(&rd, true)?;
                let nothing = Tensor::zeros(&[], x.dtype())?;
                // No zero in the row: prod / x; one zero: the others' product at the zero, 0 elsewhere.
                let no_zero = zeros.eq_scalar(Scalar::Int(0))?;
                let one_zero = zeros.eq_scalar(Scalar::Int(1))?;
                let at_zero = one_zero.where_(&nonzero_prod, &nothing)?;
                let elsewhere = no_zero.where_(&nonzero_prod.div(&safe)?, &nothing)?;
                let others = zero.where_(&at_zero, &elsewhere)?;
                let g = if keepdim {
                    g.clone()
                } else {
                    unsqueeze_dims(g, &rdu)?
                };
                Ok(vec![Some(g.mul(&others.conj()?)?)])
            },
        ))
    }

    /// The forward of `complex_prod`, outside autograd.
    fn complex_prod_values(&self, dims: &[usize], keepdim: bool) -> Result<Tensor> {
        let rows = to_rows(self, dims)?;
        let shape = if keepdim {
            &rows.keep_shape
        } else {
            &rows.drop_shape
        };
        let out = Tensor::uninit(shape, self.dtype())?;
        match self.dtype() {
            DType::C64 => prod_rows::<f32>(&rows, &out),
            _ => prod_rows::<f64>(&rows, &out),
        }
        Ok(out)
    }

    /// `cumsum` along `dim` (already wrapped).
    pub(crate) fn complex_cumsum(&self, dim: usize) -> Result<Tensor> {
        // Nothing to add up (an empty result's strides would not view as complex).
        if self.ndim() == 0 || self.numel() == 0 {
            return self.clone_tensor();
        }
        self.view_as_real()?
            .cumsum(dim as i64)?
            .contiguous()?
            .view_as_complex()
    }
}

impl Tensor {
    /// Complex `cumprod`: one product per position along `dim`, in order (PyTorch's
    /// sequential kernel, so the same rounding), in differentiable ops; complex64 runs in
    /// complex128 as PyTorch's accumulate type does (1e30 * 1e30 * 1e-30 stays finite).
    pub(crate) fn complex_cumprod(&self, dim: usize) -> Result<Tensor> {
        if self.ndim() == 0 || self.shape()[dim] == 0 {
            return self.clone_tensor();
        }
        if self.dtype() == DType::C64 {
            return self
                .to_dtype(DType::C128)?
                .complex_cumprod(dim)?
                .to_dtype(DType::C64);
        }
        let d = dim as i64;
        // The running product starts from 1, as PyTorch's kernel does: 1 * (inf + 2i) is
        // inf + NaN i under complex multiplication.
        let one = Tensor::full(&[], Scalar::Complex(1.0, 0.0), self.dtype())?;
        let mut acc = one.mul(&self.select(d, 0)?)?;
        let mut parts = vec![acc.clone()];
        for k in 1..self.shape()[dim] as i64 {
            acc = acc.mul(&self.select(d, k)?)?;
            parts.push(acc.clone());
        }
        Tensor::stack(&parts, d)
    }
}

/// `g` with the reduced `dims` (ascending) put back as size-1 dims.
fn unsqueeze_dims(g: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let mut g = g.clone();
    for &d in dims {
        g = g.unsqueeze(d as i64)?;
    }
    Ok(g)
}

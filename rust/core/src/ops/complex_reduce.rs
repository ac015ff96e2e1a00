//! Linear reductions and scans of complex tensors: the real and imaginary parts reduce
//! independently, so they run on the real view (whose views carry the gradient).

use crate::{Result, Scalar, Tensor};

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
        let rd = crate::ops::reduce::reduce_dims("var", dims, self.ndim())?;
        let n: usize = rd.iter().map(|&d| self.shape()[d]).product();
        let dev = self.sub(&self.mean_dims(dims, true)?)?.view_as_real()?;
        let sq = dev.mul(&dev)?.sum_dims(&[-1], false)?;
        let rd: Vec<i64> = rd.iter().map(|&d| d as i64).collect();
        let ss = if rd.is_empty() {
            sq
        } else {
            sq.sum_dims(&rd, keepdim)?
        };
        ss.div_scalar(Scalar::Float((n as f64 - correction).max(0.0)))
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

    /// `cumsum` along `dim` (already wrapped).
    pub(crate) fn complex_cumsum(&self, dim: usize) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.clone_tensor();
        }
        self.view_as_real()?
            .cumsum(dim as i64)?
            .contiguous()?
            .view_as_complex()
    }
}

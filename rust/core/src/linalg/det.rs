//! `linalg.det`, `linalg.slogdet` and `logdet` from an LU factorization, and their backward.

use super::check::square_float;
use super::lu::factor_all;
use super::matrices::{batch_dims, read, with_real, write_scalars, Real};
use super::triangle::mt;
use crate::autograd::{is_grad_enabled, record};
use crate::{Result, Scalar, Tensor};

/// det of one factored matrix: the product of U's diagonal, negated per row swap.
fn lu_det<T: Real>(f: &super::lu::Lu<T>) -> (T, T, T) {
    let mut sign = T::one();
    let mut log_abs = T::zero();
    let mut det = T::one();
    for (j, &p) in f.piv.iter().enumerate() {
        let u = f.lu[(j, j)];
        det *= u;
        if p != j {
            det = -det;
            sign = -sign;
        }
        if u < T::zero() {
            sign = -sign;
        }
        log_abs += u.magnitude().natural_log();
    }
    if f.info != 0 {
        sign = T::zero();
    }
    (det, sign, log_abs)
}

/// det, sign and log|det| of each matrix.
fn forward<T: Real>(a: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let parts: Vec<(T, T, T)> = factor_all(read::<T>(a)?).iter().map(lu_det).collect();
    let batch = batch_dims(a);
    let dev = a.device();
    Ok((
        write_scalars(batch, parts.iter().map(|p| p.0).collect(), dev)?,
        write_scalars(batch, parts.iter().map(|p| p.1).collect(), dev)?,
        write_scalars(batch, parts.iter().map(|p| p.2).collect(), dev)?,
    ))
}

/// g (one value per matrix) times A^-T; for a singular A the inverse holds infinities (as
/// PyTorch's does), and with `zero_if_singular` the product is 0 there instead (det's
/// gradient there is det (= 0) times it, which PyTorch reports as 0).
fn times_inverse_t(g: &Tensor, a: &Tensor, zero_if_singular: bool) -> Result<Tensor> {
    let (inv, info) = a.linalg_inv_ex(false)?;
    let out = g.unsqueeze(-1)?.unsqueeze(-1)?.mul(&mt(&inv)?)?;
    if !zero_if_singular {
        return Ok(out);
    }
    let invertible = info
        .eq_scalar(Scalar::Int(0))?
        .unsqueeze(-1)?
        .unsqueeze(-1)?;
    invertible.where_(&out, &Tensor::scalar(Scalar::Float(0.0), out.dtype()))
}

impl Tensor {
    /// `linalg.det(A)`: the determinant of each matrix (an exact zero for singular ones).
    pub fn linalg_det(&self) -> Result<Tensor> {
        square_float("linalg.det", self)?;
        let det = with_real!(self.dtype(), T => forward::<T>(self)?.0);
        Ok(record(
            "LinalgDetBackward0",
            det,
            &[self],
            &[self],
            true,
            |g, s| {
                let a = &s[0];
                let det = if is_grad_enabled() {
                    a.linalg_det()?
                } else {
                    s[1].clone()
                };
                // d det = det tr(A^-1 dA): gA = g det A^-T.
                Ok(vec![Some(times_inverse_t(&g.mul(&det)?, a, true)?)])
            },
        ))
    }

    /// `linalg.slogdet(A)`: (sign, log|det|); sign is 0 and log|det| -inf for singular A.
    pub fn linalg_slogdet(&self) -> Result<(Tensor, Tensor)> {
        self.slogdet_named("linalg.slogdet")
    }

    fn slogdet_named(&self, op: &str) -> Result<(Tensor, Tensor)> {
        square_float(op, self)?;
        let (_, sign, logabs) = with_real!(self.dtype(), T => forward::<T>(self)?);
        let logabs = record(
            "LinalgSlogdetBackward0",
            logabs,
            &[self],
            &[self],
            false,
            |g, s| Ok(vec![Some(times_inverse_t(g, &s[0], false)?)]),
        );
        Ok((sign, logabs))
    }

    /// `torch.logdet(A)`: log det, NaN where det < 0 and -inf where it is 0.
    pub fn logdet(&self) -> Result<Tensor> {
        let (sign, logabs) = self.slogdet_named("logdet")?;
        logabs.add(&sign.log()?)
    }
}

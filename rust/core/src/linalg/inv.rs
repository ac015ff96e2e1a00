//! `linalg.inv` / `inv_ex` through an LU factorization, and their backward.

use super::check::{batch_prefix, first_failure, square_float};
use super::lu::factor_all;
use super::matrices::{batch_dims, matrix_dims, read, with_real, write, write_scalars, Real};
use super::solve::lu_solve_in_place;
use super::triangle::mt;
use crate::autograd::{is_grad_enabled, record};
use crate::{Error, Result, Tensor};
use faer::Mat;

impl Tensor {
    /// `linalg.inv(A)`: the inverse of each matrix; a singular one raises LinAlgError.
    pub fn linalg_inv(&self) -> Result<Tensor> {
        Ok(self.inv_named("linalg.inv", true)?.0)
    }

    /// `linalg.inv_ex(A, *, check_errors=False)`: (inverse, info), info (int32) the first
    /// zero pivot of each LU factorization (0 when invertible).
    pub fn linalg_inv_ex(&self, check_errors: bool) -> Result<(Tensor, Tensor)> {
        self.inv_named("linalg.inv_ex", check_errors)
    }

    /// `name` is the op named in the error for a singular matrix.
    fn inv_named(&self, name: &str, check_errors: bool) -> Result<(Tensor, Tensor)> {
        square_float("linalg.inv", self)?;
        let (inv, info, codes) = with_real!(self.dtype(), T => forward::<T>(self)?);
        if check_errors {
            if let Some((b, i)) = first_failure(&codes) {
                return Err(Error::LinAlg(format!(
                    "{name}: {}The diagonal element {i} is zero, the inversion could not be completed because the input matrix is singular.",
                    batch_prefix(self.ndim(), b)
                )));
            }
        }
        let inv = record(
            "LinalgInvExBackward0",
            inv,
            &[self],
            &[self],
            true,
            |g, s| {
                let y = if is_grad_enabled() {
                    s[0].linalg_inv_ex(false)?.0
                } else {
                    s[1].clone()
                };
                // d(A^-1) = -A^-1 dA A^-1, so gA = -Y^T g Y^T.
                let yt = mt(&y)?;
                Ok(vec![Some(yt.matmul(g)?.matmul(&yt)?.neg()?)])
            },
        );
        Ok((inv, info))
    }
}

fn forward<T: Real>(a: &Tensor) -> Result<(Tensor, Tensor, Vec<i32>)> {
    let (n, _) = matrix_dims(a);
    let factors = factor_all(read::<T>(a)?);
    let codes: Vec<i32> = factors.iter().map(|f| f.info as i32).collect();
    let inverses: Vec<Mat<T>> = factors
        .iter()
        .map(|f| {
            let mut x = Mat::<T>::identity(n, n);
            lu_solve_in_place(f, x.as_mut());
            x
        })
        .collect();
    let batch = batch_dims(a);
    let inv = write(batch, n, n, &inverses, a.device())?;
    let info = write_scalars(batch, codes.clone(), a.device())?;
    Ok((inv, info, codes))
}

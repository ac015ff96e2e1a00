//! `linalg.cholesky` / `cholesky_ex` and their backward, plus `cholesky_solve` and
//! `cholesky_inverse`, which are two triangular solves on the factor.

use super::check::{
    at_least_2d, batch_prefix, first_failure, kernel_dtype, scalar_type_name, square, square_float,
};
use super::matrices::{
    batch_dims, matrix_dims, read, with_matrix, with_real, write, write_scalars, Real,
};
use super::triangle::{diag_embed, diagonal, eye_like, mt, scalar_like, tril};
use crate::autograd::{is_grad_enabled, record};
use crate::layout::broadcast_shapes;
use crate::{bail, Error, Result, Tensor};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::{Mat, Par};

/// L with A = L L^T from A's lower triangle; info is the order of the first leading minor
/// that is not positive definite (LAPACK's potrf), 0 on success.
fn factor<T: Real>(a: &Mat<T>) -> (Mat<T>, usize) {
    let n = a.nrows();
    let mut l = Mat::from_fn(n, n, |i, j| if i >= j { a[(i, j)] } else { T::zero() });
    let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(
        n,
        Par::Seq,
        Default::default(),
    ));
    let info = match cholesky_in_place(
        l.as_mut(),
        Default::default(),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    ) {
        Ok(_) => 0,
        Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => index + 1,
    };
    for j in 0..n {
        for i in 0..j {
            l[(i, j)] = T::zero();
        }
    }
    (l, info)
}

fn forward<T: Real>(a: &Tensor, upper: bool) -> Result<(Tensor, Tensor, Vec<i32>)> {
    let (n, _) = matrix_dims(a);
    // The upper triangle of A is the lower triangle of A^T; its factor is returned as U = L^T.
    let src = if upper { mt(a)? } else { a.clone() };
    let mats = read::<T>(&src)?;
    let results = super::matrices::map_batches(mats, n * n * n / 3, |_, m| factor(&m));
    let codes: Vec<i32> = results.iter().map(|r| r.1 as i32).collect();
    let factors: Vec<Mat<T>> = results
        .into_iter()
        .map(|(l, _)| if upper { l.transpose().to_owned() } else { l })
        .collect();
    let batch = batch_dims(a);
    let l = write(batch, n, n, &factors, a.device())?;
    let info = write_scalars(batch, codes.clone(), a.device())?;
    Ok((l, info, codes))
}

impl Tensor {
    /// `linalg.cholesky(A, *, upper=False)`: L (or U = L^T) with A = L L^T, from A's lower
    /// (upper) triangle; a matrix that is not positive definite raises LinAlgError.
    pub fn linalg_cholesky(&self, upper: bool) -> Result<Tensor> {
        Ok(self.cholesky_named("linalg.cholesky", upper, true)?.0)
    }

    /// `linalg.cholesky_ex(A, *, upper=False, check_errors=False)`: (L, info).
    pub fn linalg_cholesky_ex(&self, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
        self.cholesky_named("linalg.cholesky_ex", upper, check_errors)
    }

    /// `name` is the op named in the error for a matrix that is not positive definite.
    fn cholesky_named(
        &self,
        name: &str,
        upper: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor)> {
        square_float("linalg.cholesky", self)?;
        let (l, info, codes) = with_real!(self.dtype(), T => forward::<T>(self, upper)?);
        if check_errors {
            if let Some((b, i)) = first_failure(&codes) {
                return Err(Error::LinAlg(format!(
                    "{name}: {}The factorization could not be completed because the input is not positive-definite (the leading minor of order {i} is not positive-definite).",
                    batch_prefix(self.ndim(), b)
                )));
            }
        }
        let l = record(
            "LinalgCholeskyExBackward0",
            l,
            &[self],
            &[self],
            true,
            move |g, s| {
                let l = if is_grad_enabled() {
                    s[0].linalg_cholesky_ex(upper, false)?.0
                } else {
                    s[1].clone()
                };
                Ok(vec![Some(cholesky_backward(g, &l, upper)?)])
            },
        );
        Ok((l, info))
    }
}

/// gA for A = L L^T: with P = tril(L^T gL) (diagonal halved), S = L^-T P L^-1, gA is the
/// symmetric part of S (A is symmetric, so its gradient is taken to be as well).
fn cholesky_backward(g: &Tensor, l: &Tensor, upper: bool) -> Result<Tensor> {
    let (l, gl) = if upper {
        (mt(l)?, mt(g)?)
    } else {
        (l.clone(), g.clone())
    };
    let x = mt(&l)?.matmul(&gl)?;
    let half = scalar_like(&x, 0.5);
    let p = tril(&x, 0)?.sub(&diag_embed(&diagonal(&x)?)?.mul(&half)?)?;
    let s = mt(&l)?.linalg_solve_triangular(&p, true, true, false)?;
    let s = l.linalg_solve_triangular(&s, false, false, false)?;
    s.add(&mt(&s)?)?.mul(&half)
}

/// The checks of `cholesky_solve(B, L)`, in PyTorch's words.
fn check_cholesky_solve(b: &Tensor, l: &Tensor) -> Result<()> {
    if b.ndim() < 2 {
        bail!(
            Runtime,
            "b should have at least 2 dimensions, but has {} dimensions instead",
            b.ndim()
        );
    }
    if l.ndim() < 2 {
        bail!(
            Runtime,
            "u should have at least 2 dimensions, but has {} dimensions instead",
            l.ndim()
        );
    }
    if b.dtype() != l.dtype() {
        bail!(
            Runtime,
            "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
            scalar_type_name(b.dtype()),
            scalar_type_name(l.dtype())
        );
    }
    let ((lm, ln), (bm, bn)) = (matrix_dims(l), matrix_dims(b));
    if lm != ln {
        bail!(
            Runtime,
            "A must be batches of square matrices, but they are {lm} by {ln} matrices"
        );
    }
    if ln != bm {
        bail!(
            Runtime,
            "Incompatible matrix sizes for cholesky_solve: each A matrix is {lm} by {ln} but each b matrix is {bm} by {bn}"
        );
    }
    kernel_dtype("cholesky_solve_cpu", b)?;
    Ok(())
}

impl Tensor {
    /// `torch.cholesky_solve(B, L, upper=False)`: X with (L L^T) X = B (or (U^T U) X = B).
    pub fn cholesky_solve(&self, l: &Tensor, upper: bool) -> Result<Tensor> {
        let b = self;
        check_cholesky_solve(b, l)?;
        let batch = broadcast_shapes("cholesky_solve", batch_dims(b), batch_dims(l))?;
        let (n, k) = matrix_dims(b);
        let b = b.broadcast_to(&with_matrix(&batch, n, k))?;
        let l = l.broadcast_to(&with_matrix(&batch, n, n))?;
        if upper {
            let y = mt(&l)?.linalg_solve_triangular(&b, false, true, false)?;
            l.linalg_solve_triangular(&y, true, true, false)
        } else {
            let y = l.linalg_solve_triangular(&b, false, true, false)?;
            mt(&l)?.linalg_solve_triangular(&y, true, true, false)
        }
    }

    /// `torch.cholesky_inverse(L, upper=False)`: (L L^T)^-1 (or (U^T U)^-1) from the factor.
    pub fn cholesky_inverse(&self, upper: bool) -> Result<Tensor> {
        let op = "cholesky_inverse";
        at_least_2d(op, self, "A")?;
        square(op, self, "A")?;
        kernel_dtype("cholesky_inverse_out_cpu", self)?;
        // A zero on the diagonal of the factor makes the product singular (potri's info).
        let diag = diagonal(self)?.contiguous()?.try_to_vec::<f64>()?;
        let (n, _) = matrix_dims(self);
        if let Some(k) = diag.iter().position(|&d| d == 0.0) {
            return Err(Error::LinAlg(format!(
                "{op}: {}The diagonal element {} is zero, the inversion could not be completed because the input matrix is singular.",
                batch_prefix(self.ndim(), k / n.max(1)),
                k % n.max(1) + 1
            )));
        }
        let eye = eye_like(self, n)?;
        eye.cholesky_solve(self, upper)
    }
}

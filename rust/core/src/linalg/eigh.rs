//! `linalg.eigh` / `eigvalsh` of symmetric matrices (one triangle read), and their backward.

use super::check::{all_finite, at_least_2d, kernel_dtype, square};
use super::matrices::{
    batch_dims, map_batches, matrix_dims, read, with_real, write, write_vectors, Real,
};
use super::multi_output::record_outputs;
use super::triangle::{diag_embed, diagonal, eye_like, mt};
use crate::autograd::{is_grad_enabled, record};
use crate::{bail, Error, Result, Tensor};
use faer::linalg::solvers::SelfAdjointEigen;
use faer::{Mat, Side};

/// PyTorch's UPLO argument: which triangle holds the matrix.
pub fn parse_uplo(uplo: &str) -> Result<bool> {
    match uplo {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        other => bail!(
            Runtime,
            "Expected UPLO argument to be 'L' or 'U', but got {other}"
        ),
    }
}

/// The symmetric matrix held by one triangle of `a`.
fn symmetric<T: Real>(a: &Mat<T>, upper: bool) -> Mat<T> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| {
        let (r, c) = if (i >= j) != upper { (i, j) } else { (j, i) };
        a[(r, c)]
    })
}

fn not_converged() -> Error {
    Error::LinAlg("linalg.eigh: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues.".into())
}

/// The checks of eigh and eigvalsh (both name linalg.eigh); NaN or inf never converges.
fn check(a: &Tensor) -> Result<()> {
    let op = "linalg.eigh";
    at_least_2d(op, a, "A")?;
    square(op, a, "A")?;
    kernel_dtype("linalg_eigh_cpu", a)?;
    if !all_finite(a)? {
        return Err(not_converged());
    }
    Ok(())
}

/// Eigenvalues (ascending) and eigenvectors (columns) of each matrix.
fn forward<T: Real>(a: &Tensor, upper: bool, vectors: bool) -> Result<(Tensor, Option<Tensor>)> {
    let (n, _) = matrix_dims(a);
    let results = map_batches(read::<T>(a)?, n * n * n, |_, x| {
        let s = symmetric(&x, upper);
        if vectors {
            SelfAdjointEigen::new(s.as_ref(), Side::Lower).map(|e| {
                let vals: Vec<T> = (0..n).map(|i| e.S()[i]).collect();
                (vals, Some(e.U().to_owned()))
            })
        } else {
            s.self_adjoint_eigenvalues(Side::Lower).map(|v| (v, None))
        }
    });
    let mut vals = Vec::with_capacity(results.len());
    let mut vecs = Vec::with_capacity(results.len());
    for r in results {
        let (l, v) = r.map_err(|_| not_converged())?;
        vals.push(l);
        vecs.extend(v);
    }
    let batch = batch_dims(a);
    let l = write_vectors(batch, n, &vals, a.device())?;
    let v = if vectors {
        Some(write(batch, n, n, &vecs, a.device())?)
    } else {
        None
    };
    Ok((l, v))
}

/// Whether every element of `t` is zero (an output whose gradient was never asked for).
pub(crate) fn all_zero(t: &Tensor) -> Result<bool> {
    Ok(t.numel() == 0 || t.abs()?.try_to_vec::<f64>()?.iter().all(|&x| x == 0.0))
}

impl Tensor {
    /// `linalg.eigh(A, UPLO='L')`: ascending eigenvalues and orthonormal eigenvectors
    /// (columns) of the symmetric matrix held in A's lower (or upper) triangle.
    pub fn linalg_eigh(&self, upper: bool) -> Result<(Tensor, Tensor)> {
        check(self)?;
        let (l, v) = with_real!(self.dtype(), T => forward::<T>(self, upper, true)?);
        let outs = record_outputs(
            "LinalgEighBackward0",
            vec![l, v.expect("eigenvectors")],
            &[self],
            &[self],
            Box::new(move |g, s| {
                let (l, v) = if is_grad_enabled() {
                    s[0].linalg_eigh(upper)?
                } else {
                    let (l, v) = with_real!(s[0].dtype(), T => forward::<T>(&s[0], upper, true)?);
                    (l, v.expect("eigenvectors"))
                };
                Ok(vec![Some(eigh_backward(&g[0], &g[1], &l, &v)?)])
            }),
        )?;
        Ok((outs[0].clone(), outs[1].clone()))
    }

    /// `linalg.eigvalsh(A, UPLO='L')`: the ascending eigenvalues only.
    pub fn linalg_eigvalsh(&self, upper: bool) -> Result<Tensor> {
        check(self)?;
        let (l, _) = with_real!(self.dtype(), T => forward::<T>(self, upper, false)?);
        Ok(record(
            "LinalgEighBackward0",
            l,
            &[self],
            &[self],
            false,
            move |g, s| {
                let (_, v) = s[0].linalg_eigh(upper)?;
                Ok(vec![Some(v.matmul(&diag_embed(g)?)?.matmul(&mt(&v)?)?)])
            },
        ))
    }
}

/// gA = V (diag(gL) + sym(V^T gV) / (l_j - l_i)) V^T, the skew part of V^T gV is taken (V
/// stays orthogonal), which makes gA symmetric; with no gradient for V, V diag(gL) V^T.
fn eigh_backward(gl: &Tensor, gv: &Tensor, l: &Tensor, v: &Tensor) -> Result<Tensor> {
    let vt = mt(v)?;
    let inner = if all_zero(gv)? {
        diag_embed(gl)?
    } else {
        let n = l.shape()[l.ndim() - 1];
        let vtgv = vt.matmul(gv)?;
        let half = super::triangle::scalar_like(&vtgv, 0.5);
        let skew = vtgv.sub(&mt(&vtgv)?)?.mul(&half)?;
        // E_ij = l_j - l_i, with ones on the diagonal where the quotient is replaced by gL.
        let e = l
            .unsqueeze(-2)?
            .sub(&l.unsqueeze(-1)?)?
            .add(&eye_like(l, n)?)?;
        let q = skew.div(&e)?;
        q.sub(&diag_embed(&diagonal(&q)?)?)?.add(&diag_embed(gl)?)?
    };
    v.matmul(&inner)?.matmul(&vt)
}

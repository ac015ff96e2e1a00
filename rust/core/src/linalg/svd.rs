//! `linalg.svd` (full or reduced) and `svdvals`, and their backward.

use super::check::{all_finite, at_least_2d, float_dtype};
use super::eigh::all_zero;
use super::matrices::{
    batch_dims, map_batches, matrix_dims, read, with_real, write, write_vectors, Real,
};
use super::multi_output::record_outputs;
use super::triangle::{diag_embed, diagonal, eye_like, mt};
use crate::autograd::{is_grad_enabled, record};
use crate::{Error, Result, Tensor};
use faer::linalg::solvers::Svd;
use faer::Mat;

fn not_converged(op: &str) -> Error {
    Error::LinAlg(format!("{op}: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values."))
}

/// The checks of svd and svdvals (both name linalg.svd).
fn check(a: &Tensor) -> Result<()> {
    let op = "linalg.svd";
    at_least_2d(op, a, "A")?;
    float_dtype(op, a)?;
    if !all_finite(a)? {
        return Err(Error::LinAlg(format!("{op}: The algorithm failed to converge because the input matrix contained non-finite values.")));
    }
    Ok(())
}

/// U, S (descending) and Vh of each matrix; only S when `vectors` is false.
fn forward<T: Real>(a: &Tensor, full: bool, vectors: bool, op: &str) -> Result<Vec<Tensor>> {
    let (m, n) = matrix_dims(a);
    let k = m.min(n);
    let results = map_batches(read::<T>(a)?, m * n * k, |_, x| {
        if !vectors {
            return x.singular_values().map(|s| (s, None));
        }
        let svd = if full {
            Svd::new(x.as_ref())
        } else {
            Svd::new_thin(x.as_ref())
        };
        svd.map(|d| {
            let s: Vec<T> = (0..k).map(|i| d.S()[i]).collect();
            (s, Some((d.U().to_owned(), d.V().transpose().to_owned())))
        })
    });
    let mut ss: Vec<Vec<T>> = Vec::new();
    let (mut us, mut vhs): (Vec<Mat<T>>, Vec<Mat<T>>) = (Vec::new(), Vec::new());
    for r in results {
        let (s, uv) = r.map_err(|_| not_converged(op))?;
        ss.push(s);
        if let Some((u, vh)) = uv {
            us.push(u);
            vhs.push(vh);
        }
    }
    let (batch, dev) = (batch_dims(a), a.device());
    let s = write_vectors(batch, k, &ss, dev)?;
    if !vectors {
        return Ok(vec![s]);
    }
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    Ok(vec![
        write(batch, m, uc, &us, dev)?,
        s,
        write(batch, vr, n, &vhs, dev)?,
    ])
}

impl Tensor {
    /// `linalg.svd(A, full_matrices=True)`: (U, S, Vh) with A = U diag(S) Vh, S descending.
    pub fn linalg_svd(&self, full_matrices: bool) -> Result<(Tensor, Tensor, Tensor)> {
        let op = "linalg.svd";
        check(self)?;
        let outs = with_real!(self.dtype(), T => forward::<T>(self, full_matrices, true, op)?);
        let outs = record_outputs(
            "LinalgSvdBackward0",
            outs,
            &[self],
            &[self],
            Box::new(move |g, s| {
                let a = &s[0];
                let f = if is_grad_enabled() {
                    let (u, s, vh) = a.linalg_svd(full_matrices)?;
                    vec![u, s, vh]
                } else {
                    with_real!(a.dtype(), T => forward::<T>(a, full_matrices, true, "linalg.svd")?)
                };
                Ok(vec![Some(svd_backward(g, &f, full_matrices)?)])
            }),
        )?;
        Ok((outs[0].clone(), outs[1].clone(), outs[2].clone()))
    }

    /// `linalg.svdvals(A)`: the singular values, descending.
    pub fn linalg_svdvals(&self) -> Result<Tensor> {
        let op = "linalg.svd";
        check(self)?;
        let s = with_real!(self.dtype(), T => forward::<T>(self, false, false, op)?).remove(0);
        Ok(record(
            "LinalgSvdBackward0",
            s,
            &[self],
            &[self],
            false,
            |g, s| {
                let (u, _, vh) = s[0].linalg_svd(false)?;
                Ok(vec![Some(u.matmul(&diag_embed(g)?)?.matmul(&vh)?)])
            },
        ))
    }
}

/// gA for A = U S Vh (the first k = min(m, n) singular vectors; extra columns of a full
/// U or Vh carry no gradient, as in PyTorch).
fn svd_backward(g: &[Tensor], f: &[Tensor], full: bool) -> Result<Tensor> {
    let (s, gs) = (&f[1], &g[1]);
    let k = s.shape()[s.ndim() - 1] as i64;
    let narrow = |t: &Tensor, dim: i64| -> Result<Tensor> {
        if full {
            t.narrow(dim, 0, k)
        } else {
            Ok(t.clone())
        }
    };
    let (u, vh) = (narrow(&f[0], -1)?, narrow(&f[2], -2)?);
    let (gu, gvh) = (narrow(&g[0], -1)?, narrow(&g[2], -2)?);
    if all_zero(&gu)? && all_zero(&gvh)? {
        return u.matmul(&diag_embed(gs)?)?.matmul(&vh);
    }
    let (m, n) = (u.shape()[u.ndim() - 2], vh.shape()[vh.ndim() - 1]);
    let ut_gu = mt(&u)?.matmul(&gu)?;
    let vt_gv = vh.matmul(&mt(&gvh)?)?;
    let j = ut_gu.sub(&mt(&ut_gu)?)?;
    let kk = vt_gv.sub(&mt(&vt_gv)?)?;
    let (s_row, s_col) = (s.unsqueeze(-2)?, s.unsqueeze(-1)?);
    // E_ij = s_j^2 - s_i^2, with ones on the diagonal where gS goes instead.
    let s2 = s.mul(s)?;
    let e = s2
        .unsqueeze(-2)?
        .sub(&s2.unsqueeze(-1)?)?
        .add(&eye_like(s, k as usize)?)?;
    let q = j.mul(&s_row)?.add(&s_col.mul(&kk)?)?.div(&e)?;
    let inner = q.sub(&diag_embed(&diagonal(&q)?)?)?.add(&diag_embed(gs)?)?;
    let mut ga = u.matmul(&inner)?.matmul(&vh)?;
    if m > k as usize {
        // (I - U U^T) gU S^-1 Vh
        let proj = gu.sub(&u.matmul(&ut_gu)?)?;
        ga = ga.add(&proj.div(&s_row)?.matmul(&vh)?)?;
    }
    if n > k as usize {
        // U S^-1 gVh (I - V V^T)
        let proj = gvh.sub(&gvh.matmul(&mt(&vh)?)?.matmul(&vh)?)?;
        ga = ga.add(&u.matmul(&proj.div(&s_col)?)?)?;
    }
    Ok(ga)
}

//! `linalg.qr` (modes reduced, complete, r) by Householder reflections, and its backward.

use super::check::{at_least_2d, float_dtype, kernel_dtype};
use super::matrices::{batch_dims, map_batches, matrix_dims, read, with_real, write, Real};
use super::multi_output::record_outputs;
use super::triangle::{diag_embed, diagonal, mt, tril};
use crate::autograd::is_grad_enabled;
use crate::{bail, Result, Tensor};
use faer::linalg::solvers::Qr;
use faer::Mat;

/// Which factors `linalg.qr` returns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QrMode {
    /// Q m x k and R k x n (k = min(m, n)).
    Reduced,
    /// Q m x m and R m x n.
    Complete,
    /// R only (k x n); Q is empty.
    R,
}

impl QrMode {
    /// PyTorch's mode string.
    pub fn parse(mode: &str) -> Result<QrMode> {
        match mode {
            "reduced" => Ok(QrMode::Reduced),
            "complete" => Ok(QrMode::Complete),
            "r" => Ok(QrMode::R),
            other => bail!(
                Runtime,
                "qr received unrecognized mode '{other}' but expected one of 'reduced' (default), 'r', or 'complete'"
            ),
        }
    }
}

fn factor<T: Real>(a: &Mat<T>, mode: QrMode) -> (Mat<T>, Mat<T>) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let qr = Qr::new(a.as_ref());
    let thin_r = qr.thin_R();
    match mode {
        QrMode::Reduced => (qr.compute_thin_Q(), thin_r.to_owned()),
        QrMode::Complete => {
            let r = Mat::from_fn(m, n, |i, j| if i < k { thin_r[(i, j)] } else { T::zero() });
            (qr.compute_Q(), r)
        }
        QrMode::R => (Mat::zeros(0, 0), thin_r.to_owned()),
    }
}

fn forward<T: Real>(a: &Tensor, mode: QrMode) -> Result<(Tensor, Tensor)> {
    let (m, n) = matrix_dims(a);
    let k = m.min(n);
    let results = map_batches(read::<T>(a)?, m * n * k, |_, x| factor(&x, mode));
    let (qs, rs): (Vec<Mat<T>>, Vec<Mat<T>>) = results.into_iter().unzip();
    let batch = batch_dims(a);
    let (q_cols, r_rows) = match mode {
        QrMode::Reduced => (k, k),
        QrMode::Complete => (m, m),
        QrMode::R => (0, k),
    };
    let q = if mode == QrMode::R {
        Tensor::zeros(&[0], a.dtype())?
    } else {
        write(batch, m, q_cols, &qs, a.device())?
    };
    Ok((q, write(batch, r_rows, n, &rs, a.device())?))
}

impl Tensor {
    /// `linalg.qr(A, mode='reduced')`: (Q, R) with A = QR, Q orthonormal columns, R upper
    /// triangular (trapezoidal), batched; R's diagonal signs are those of Householder's.
    pub fn linalg_qr(&self, mode: QrMode) -> Result<(Tensor, Tensor)> {
        let op = "linalg.qr";
        at_least_2d(op, self, "A")?;
        if matches!(self.dtype(), crate::DType::F16 | crate::DType::BF16) {
            kernel_dtype("geqrf_cpu", self)?;
        }
        float_dtype(op, self)?;
        let (q, r) = with_real!(self.dtype(), T => forward::<T>(self, mode)?);
        let outs = record_outputs(
            "LinalgQrBackward0",
            vec![q, r],
            &[self],
            &[self],
            Box::new(move |g, s| {
                let a = &s[0];
                let (q, r) = if is_grad_enabled() {
                    a.linalg_qr(mode)?
                } else {
                    with_real!(a.dtype(), T => forward::<T>(a, mode)?)
                };
                Ok(vec![Some(qr_backward(a, &g[0], &g[1], &q, &r, mode)?)])
            }),
        )?;
        Ok((outs[0].clone(), outs[1].clone()))
    }
}

/// M's lower triangle mirrored above the diagonal.
fn copy_lower_to_upper(m: &Tensor) -> Result<Tensor> {
    let strict = tril(m, -1)?;
    strict.add(&mt(&strict)?)?.add(&diag_embed(&diagonal(m)?)?)
}

/// gA for A = QR with R square: (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q.
fn square_backward(gq: &Tensor, gr: &Tensor, q: &Tensor, r: &Tensor) -> Result<Tensor> {
    let m = r.matmul(&mt(gr)?)?.sub(&mt(gq)?.matmul(q)?)?;
    let b = gq.add(&q.matmul(&copy_lower_to_upper(&m)?)?)?;
    mt(r)?.linalg_solve_triangular(&b, false, false, false)
}

fn qr_backward(
    a: &Tensor,
    gq: &Tensor,
    gr: &Tensor,
    q: &Tensor,
    r: &Tensor,
    mode: QrMode,
) -> Result<Tensor> {
    let (m, n) = matrix_dims(a);
    if mode == QrMode::R {
        bail!(Runtime, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    }
    if mode == QrMode::Complete && m > n {
        bail!(
            Runtime,
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        );
    }
    if m >= n {
        return square_backward(gq, gr, q, r);
    }
    // A wide A = [X | Y] = Q [U | V]: X = QU is square, and Y = QV adds Y gV^T to gQ.
    let (mi, ni) = (m as i64, n as i64);
    let (u, gu) = (r.narrow(-1, 0, mi)?, gr.narrow(-1, 0, mi)?);
    let gv = gr.narrow(-1, mi, ni - mi)?;
    let y = a.narrow(-1, mi, ni - mi)?;
    let gx = square_backward(&gq.add(&y.matmul(&mt(&gv)?)?)?, &gu, q, &u)?;
    Tensor::cat(&[gx, q.matmul(&gv)?], -1)
}

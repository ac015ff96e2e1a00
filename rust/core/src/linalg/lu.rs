//! LU factorization with partial pivoting (`linalg.lu_factor`, `lu_factor_ex`) and its
//! backward. The kernel follows LAPACK's getrf: row swaps recorded as 1-based pivots, a zero
//! pivot reported as info and its column left unscaled, so singular matrices factor to finite
//! numbers (and det to an exact zero), as PyTorch's do.

use super::check::{batch_prefix, first_failure};
use super::matrices::{
    batch_dims, map_batches, matrix_dims, read, with_real, write, write_vectors, Real,
};
use super::triangle::{mt, tril, triu};
use crate::autograd::{is_grad_enabled, record};
use crate::{bail, Result, Tensor};
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_unit_lower_triangular_in_place;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, Mat, MatMut, Par};

/// Columns factored one at a time below this width; wider panels split in two.
const UNBLOCKED_WIDTH: usize = 16;

fn swap_rows<T: Real>(mut a: MatMut<'_, T>, i: usize, j: usize) {
    if i != j {
        for c in 0..a.ncols() {
            let t = a[(i, c)];
            a[(i, c)] = a[(j, c)];
            a[(j, c)] = t;
        }
    }
}

/// Applies the row swaps `piv` (0-based, in order) to `a`.
fn apply_swaps<T: Real>(mut a: MatMut<'_, T>, piv: &[usize]) {
    for (j, &p) in piv.iter().enumerate() {
        swap_rows(a.rb_mut(), j, p);
    }
}

/// getf2: one column at a time on an m x n panel with n <= m. Returns the first zero pivot
/// (1-based) or 0.
fn factor_unblocked<T: Real>(mut a: MatMut<'_, T>, piv: &mut [usize]) -> usize {
    let (m, n) = (a.nrows(), a.ncols());
    let mut info = 0;
    for j in 0..n {
        let mut p = j;
        let mut best = a[(j, j)].magnitude();
        for i in j + 1..m {
            let v = a[(i, j)].magnitude();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv[j] = p;
        if a[(p, j)] != T::zero() {
            swap_rows(a.rb_mut(), j, p);
            let inv = T::one() / a[(j, j)];
            for i in j + 1..m {
                a[(i, j)] *= inv;
            }
        } else if info == 0 {
            info = j + 1;
        }
        for c in j + 1..n {
            let u = a[(j, c)];
            for i in j + 1..m {
                let l = a[(i, j)];
                a[(i, c)] -= l * u;
            }
        }
    }
    info
}

/// Recursive getrf2 on an m x n panel with n <= m: factor the left half, update the right
/// half (a triangular solve and one matrix product), factor its lower part, swap back.
fn factor_panel<T: Real>(mut a: MatMut<'_, T>, piv: &mut [usize]) -> usize {
    let (m, n) = (a.nrows(), a.ncols());
    if n <= UNBLOCKED_WIDTH {
        return factor_unblocked(a, piv);
    }
    let n1 = n / 2;
    let (piv1, piv2) = piv.split_at_mut(n1);
    let info1 = factor_panel(a.rb_mut().subcols_mut(0, n1), piv1);
    apply_swaps(a.rb_mut().subcols_mut(n1, n - n1), piv1);
    let (l00, mut a01, a10, mut a11) = a.rb_mut().split_at_mut(n1, n1);
    solve_unit_lower_triangular_in_place(l00.rb(), a01.rb_mut(), Par::Seq);
    matmul(
        a11.rb_mut(),
        Accum::Add,
        a10.rb(),
        a01.rb(),
        -T::one(),
        Par::Seq,
    );
    let info2 = factor_panel(a11, piv2);
    apply_swaps(a.rb_mut().subrows_mut(n1, m - n1).subcols_mut(0, n1), piv2);
    for p in piv2.iter_mut() {
        *p += n1;
    }
    if info1 != 0 {
        info1
    } else if info2 != 0 {
        info2 + n1
    } else {
        0
    }
}

/// getrf in place on any m x n matrix: `piv` (length min(m, n)) gets the 0-based row swaps;
/// returns LAPACK's info (the first zero pivot of U, 1-based, or 0).
pub(crate) fn lu_in_place<T: Real>(mut a: MatMut<'_, T>, piv: &mut [usize]) -> usize {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let (mut left, mut right) = a.rb_mut().split_at_col_mut(k);
    let info = factor_panel(left.rb_mut(), piv);
    if n > k {
        // A wide matrix (k == m): its extra columns get the swaps and L^-1.
        apply_swaps(right.rb_mut(), piv);
        solve_unit_lower_triangular_in_place(left.rb(), right, Par::Seq);
    }
    info
}

/// One factored matrix: the packed L\U, its 0-based swaps and LAPACK's info.
pub(crate) struct Lu<T: faer::traits::ComplexField> {
    pub lu: Mat<T>,
    pub piv: Vec<usize>,
    pub info: usize,
}

/// Factors every matrix of a batch.
pub(crate) fn factor_all<T: Real>(mats: Vec<Mat<T>>) -> Vec<Lu<T>> {
    let work = mats
        .first()
        .map_or(0, |a| a.nrows() * a.ncols() * a.ncols().min(a.nrows()));
    map_batches(mats, work, |_, mut lu| {
        let mut piv = vec![0; lu.nrows().min(lu.ncols())];
        let info = lu_in_place(lu.as_mut(), &mut piv);
        Lu { lu, piv, info }
    })
}

/// The permutation that LAPACK's swaps `piv` apply: row i of P^T A is row `perm[i]` of A.
pub(crate) fn swaps_to_permutation(piv: &[usize], m: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..m).collect();
    for (j, &p) in piv.iter().enumerate() {
        perm.swap(j, p);
    }
    perm
}

/// The rows of the matrices `x` (`[..., m, n]`) permuted, differentiably: P^T x (row i is row
/// `perm[i]` of x), or with `inverse` P x (row `perm[i]` is row i of x).
pub(crate) fn permute_rows(x: &Tensor, perms: &[Vec<usize>], inverse: bool) -> Result<Tensor> {
    let (m, n) = matrix_dims(x);
    let mut idx = Vec::with_capacity(perms.len() * m * n);
    for perm in perms {
        let mut src = perm.clone();
        if inverse {
            for (i, &p) in perm.iter().enumerate() {
                src[p] = i;
            }
        }
        for &s in &src {
            idx.extend(std::iter::repeat_n(s as i64, n));
        }
    }
    let index = super::matrices::on(Tensor::from_vec(idx, x.shape())?, x.device())?;
    x.gather(-2, &index)
}

impl Tensor {
    /// `linalg.lu_factor_ex(A, pivot=True, check_errors=False)`: LU (unit L below the
    /// diagonal, U on and above), int32 1-based pivots and int32 info per matrix.
    pub fn linalg_lu_factor_ex(
        &self,
        pivot: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        self.lu_factor_named(
            "torch.lu_factor",
            "torch.linalg.lu_factor_ex",
            pivot,
            check_errors,
        )
    }

    /// `linalg.lu_factor(A, pivot=True)`: (LU, pivots); a zero pivot is an error.
    pub fn linalg_lu_factor(&self, pivot: bool) -> Result<(Tensor, Tensor)> {
        let (lu, piv, _) =
            self.lu_factor_named("torch.lu_factor", "torch.linalg.lu_factor", pivot, true)?;
        Ok((lu, piv))
    }

    /// `linalg.lu`'s factorization: (LU, pivots, info) as `lu_factor_ex`, under its name.
    pub fn linalg_lu_packed(&self, pivot: bool) -> Result<(Tensor, Tensor, Tensor)> {
        self.lu_factor_named("linalg.lu", "linalg.lu", pivot, false)
    }

    /// `op` names the op in the shape error, `name` in the error for a zero pivot.
    fn lu_factor_named(
        &self,
        op: &str,
        name: &str,
        pivot: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        if self.ndim() < 2 {
            bail!(
                Runtime,
                "{op}: Expected tensor with 2 or more dimensions. Got size: {} instead",
                crate::error::fmt_shape(self.shape())
            );
        }
        super::check::kernel_dtype("lu_cpu", self)?;
        if !pivot {
            bail!(
                Runtime,
                "linalg.lu_factor: LU without pivoting is not implemented on the CPU"
            );
        }
        let (lu, pivots, info, codes) =
            with_real!(self.dtype(), T => lu_factor_forward::<T>(self)?);
        if check_errors {
            if let Some((b, i)) = first_failure(&codes) {
                bail!(
                    Runtime,
                    "{name}: {}U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                    batch_prefix(self.ndim(), b)
                );
            }
        }
        let saved_pivots = pivots.clone();
        let lu = record(
            "LinalgLuFactorExBackward0",
            lu,
            &[self],
            &[self, &saved_pivots],
            true,
            move |g, s| {
                let (a, pivots) = (&s[0], &s[1]);
                // With a graph to build, L and U are recomputed from A so that they carry it.
                let lu = if is_grad_enabled() {
                    a.linalg_lu_factor_ex(true, false)?.0
                } else {
                    s[2].clone()
                };
                Ok(vec![Some(lu_factor_backward(g, &lu, pivots)?)])
            },
        );
        Ok((lu, pivots, info))
    }
}

/// The raw factorization: (LU, pivots, info) tensors and the info codes.
fn lu_factor_forward<T: Real>(a: &Tensor) -> Result<(Tensor, Tensor, Tensor, Vec<i32>)> {
    let (m, n) = matrix_dims(a);
    let batch = batch_dims(a);
    let dev = a.device();
    let lus = factor_all(read::<T>(a)?);
    let codes: Vec<i32> = lus.iter().map(|f| f.info as i32).collect();
    let pivots: Vec<Vec<i32>> = lus
        .iter()
        .map(|f| f.piv.iter().map(|&p| p as i32 + 1).collect())
        .collect();
    let mats: Vec<Mat<T>> = lus.into_iter().map(|f| f.lu).collect();
    let lu = write(batch, m, n, &mats, dev)?;
    let piv = write_vectors(batch, m.min(n), &pivots, dev)?;
    let info = super::matrices::write_scalars(batch, codes.clone(), dev)?;
    Ok((lu, piv, info, codes))
}

/// The 0-based swaps of int32 1-based pivots (`[..., k]`), one list per matrix.
pub(crate) fn pivots_to_swaps(pivots: &Tensor) -> Result<Vec<Vec<usize>>> {
    let nd = pivots.ndim();
    let count: usize = pivots.shape()[..nd - 1].iter().product();
    let k = pivots.shape()[nd - 1];
    let host = pivots.try_to_vec::<i32>()?;
    Ok((0..count)
        .map(|b| {
            host[b * k..(b + 1) * k]
                .iter()
                .map(|&p| (p - 1) as usize)
                .collect()
        })
        .collect())
}

/// dA from dLU for A = P L U (m x n, k = min(m, n)): with M built from the triangles of
/// L^T gL and gU U^T, dA = P [L^-T M U^-T, plus the extra rows or columns of a tall or
/// wide A].
fn lu_factor_backward(g: &Tensor, lu: &Tensor, pivots: &Tensor) -> Result<Tensor> {
    let (m, n) = matrix_dims(lu);
    let k = m.min(n) as i64;
    let (mi, ni) = (m as i64, n as i64);
    let l_full = tril(lu, -1)?.narrow(-1, 0, k)?;
    let u_full = triu(lu, 0)?.narrow(-2, 0, k)?;
    let gl = tril(g, -1)?.narrow(-1, 0, k)?;
    let gu = triu(g, 0)?.narrow(-2, 0, k)?;
    let eye = super::triangle::eye_like(lu, k as usize)?;
    // Square blocks: L1 (k x k, unit lower) and U1 (k x k, upper).
    let l1 = l_full.narrow(-2, 0, k)?.add(&eye)?;
    let u1 = u_full.narrow(-1, 0, k)?;
    let gl1 = gl.narrow(-2, 0, k)?;
    let gu1 = gu.narrow(-1, 0, k)?;
    let mut lower = mt(&l1)?.matmul(&gl1)?;
    let mut upper = gu1.matmul(&mt(&u1)?)?;
    if m > n {
        let (l2, gl2) = (l_full.narrow(-2, k, mi - k)?, gl.narrow(-2, k, mi - k)?);
        upper = upper.sub(&mt(&l2)?.matmul(&gl2)?)?;
    } else if n > m {
        let (u2, gu2) = (u_full.narrow(-1, k, ni - k)?, gu.narrow(-1, k, ni - k)?);
        lower = lower.sub(&gu2.matmul(&mt(&u2)?)?)?;
    }
    let phi = tril(&lower, -1)?.add(&triu(&upper, 0)?)?;
    // L1^-T phi U1^-T by two triangular solves.
    let x = mt(&l1)?.linalg_solve_triangular(&phi, true, true, true)?;
    let top = mt(&u1)?.linalg_solve_triangular(&x, false, false, false)?;
    let ga = if m > n {
        let gl2 = gl.narrow(-2, k, mi - k)?;
        let bottom = mt(&u1)?.linalg_solve_triangular(&gl2, false, false, false)?;
        Tensor::cat(&[top, bottom], -2)?
    } else if n > m {
        let gu2 = gu.narrow(-1, k, ni - k)?;
        let right = mt(&l1)?.linalg_solve_triangular(&gu2, true, true, true)?;
        Tensor::cat(&[top, right], -1)?
    } else {
        top
    };
    let perms: Vec<Vec<usize>> = pivots_to_swaps(pivots)?
        .iter()
        .map(|s| swaps_to_permutation(s, m))
        .collect();
    permute_rows(&ga, &perms, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P L U for a factored m x n matrix, as a dense matrix.
    fn reconstruct(lu: &Mat<f64>, piv: &[usize]) -> Mat<f64> {
        let (m, n) = (lu.nrows(), lu.ncols());
        let k = m.min(n);
        let l = Mat::from_fn(m, k, |i, j| match i.cmp(&j) {
            std::cmp::Ordering::Greater => lu[(i, j)],
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Less => 0.0,
        });
        let u = Mat::from_fn(k, n, |i, j| if i <= j { lu[(i, j)] } else { 0.0 });
        let mut a = &l * &u;
        // Undo the swaps in reverse order: A = P (L U).
        for (j, &p) in piv.iter().enumerate().rev() {
            swap_rows(a.as_mut(), j, p);
        }
        a
    }

    fn sample(m: usize, n: usize) -> Mat<f64> {
        Mat::from_fn(m, n, |i, j| {
            (((i * 7 + j * 13) % 17) as f64 - 8.0) / 3.0 + (i == j) as u8 as f64
        })
    }

    #[test]
    fn factors_reconstruct_square_tall_and_wide_matrices() {
        for (m, n) in [(1, 1), (5, 5), (37, 37), (40, 23), (23, 40), (70, 70)] {
            let a = sample(m, n);
            let mut lu = a.clone();
            let mut piv = vec![0; m.min(n)];
            assert_eq!(lu_in_place(lu.as_mut(), &mut piv), 0, "{m}x{n}");
            let back = reconstruct(&lu, &piv);
            for i in 0..m {
                for j in 0..n {
                    assert!(
                        (back[(i, j)] - a[(i, j)]).abs() < 1e-10,
                        "{m}x{n} at ({i}, {j})"
                    );
                }
            }
        }
    }

    #[test]
    fn pivots_follow_lapack() {
        let mut a = Mat::from_fn(2, 2, |i, j| [[1.0, 2.0], [3.0, 4.0]][i][j]);
        let mut piv = vec![0; 2];
        assert_eq!(lu_in_place(a.as_mut(), &mut piv), 0);
        assert_eq!(piv, vec![1, 1]);
        assert_eq!((a[(0, 0)], a[(0, 1)]), (3.0, 4.0));
        assert!((a[(1, 0)] - 1.0f64 / 3.0).abs() < 1e-15);
        assert!((a[(1, 1)] - 2.0f64 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn zero_pivots_are_reported_and_left_finite() {
        let mut z = Mat::<f64>::zeros(20, 20);
        let mut piv = vec![0; 20];
        assert_eq!(lu_in_place(z.as_mut(), &mut piv), 1);
        assert!(piv.iter().enumerate().all(|(j, &p)| p == j));
        assert!(z.col_iter().all(|c| c.iter().all(|&x| x == 0.0)));
        // A zero column in the middle: the first zero pivot is its (1-based) index.
        let mut a = sample(6, 6);
        for i in 0..6 {
            a[(i, 3)] = 0.0;
        }
        let mut piv = vec![0; 6];
        assert_eq!(lu_in_place(a.as_mut(), &mut piv), 4);
        assert!(a.col_iter().all(|c| c.iter().all(|x| x.is_finite())));
    }
}

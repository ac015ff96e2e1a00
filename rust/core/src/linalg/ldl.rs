//! `linalg.ldl_factor` / `ldl_factor_ex`: A = P L D L^T P^T of a symmetric (possibly
//! indefinite) matrix by Bunch-Kaufman diagonal pivoting on its lower triangle, with D made
//! of 1x1 and 2x2 blocks. The pivot rule is LAPACK's sytf2, so LD and the pivots (1-based,
//! negative for a 2x2 block) are those PyTorch returns. PyTorch has no derivative for it.

use super::check::{at_least_2d, batch_prefix, first_failure, scalar_type_name, square};
use super::matrices::{
    batch_dims, map_batches, matrix_dims, read, with_real, write, write_scalars, write_vectors,
    Real,
};
use crate::autograd::record;
use crate::{bail, DType, Element, Error, Result, Tensor};
use faer::{Mat, MatMut};

/// The first index of the largest magnitude in `x` (BLAS's i?amax: ties go to the first).
fn first_max<T: Real>(x: impl Iterator<Item = T>) -> (usize, T) {
    let mut best = (0, T::zero());
    for (i, v) in x.enumerate() {
        let m = v.magnitude();
        if i == 0 || m > best.1 {
            best = (i, m);
        }
    }
    best
}

/// Swaps rows and columns `kk` and `kp` (kk < kp) of the trailing lower triangle from
/// column `k` on, as sytf2 does before eliminating.
fn interchange<T: Real>(a: &mut MatMut<'_, T>, k: usize, kk: usize, kp: usize, two: bool) {
    let n = a.nrows();
    for i in kp + 1..n {
        let t = a[(i, kk)];
        a[(i, kk)] = a[(i, kp)];
        a[(i, kp)] = t;
    }
    for j in kk + 1..kp {
        let t = a[(j, kk)];
        a[(j, kk)] = a[(kp, j)];
        a[(kp, j)] = t;
    }
    let t = a[(kk, kk)];
    a[(kk, kk)] = a[(kp, kp)];
    a[(kp, kp)] = t;
    if two {
        let t = a[(k + 1, k)];
        a[(k + 1, k)] = a[(kp, k)];
        a[(kp, k)] = t;
    }
}

/// sytf2 with uplo = 'L' in place on the lower triangle of `a`: `piv` gets LAPACK's 1-based
/// pivots (a 2x2 block at k, k+1 stores -p in both); returns info, the first zero diagonal
/// block (1-based) or 0. Columns that are zero (or NaN on the diagonal) are left as they are.
pub(crate) fn bunch_kaufman_in_place<T: Real>(mut a: MatMut<'_, T>, piv: &mut [i32]) -> i32 {
    let n = a.nrows();
    let alpha = <T as Element>::from_f64((1.0 + 17f64.sqrt()) / 8.0);
    let zero = T::zero();
    let mut info = 0;
    let mut k = 0;
    while k < n {
        let mut two = false;
        let absakk = a[(k, k)].magnitude();
        let (imax, colmax) = if k + 1 < n {
            let (i, m) = first_max((k + 1..n).map(|i| a[(i, k)]));
            (k + 1 + i, m)
        } else {
            (k, zero)
        };
        let mut kp = k;
        // A zero column (or a NaN pivot) is skipped and reported, as sytf2 does.
        if (absakk == zero && colmax == zero) || absakk.to_f64().is_nan() {
            if info == 0 {
                info = k as i32 + 1;
            }
        } else {
            if absakk < alpha * colmax {
                // The largest off-diagonal magnitude in row (and column) imax.
                let (_, mut rowmax) = first_max((k..imax).map(|j| a[(imax, j)]));
                if imax + 1 < n {
                    let (_, below) = first_max((imax + 1..n).map(|i| a[(i, imax)]));
                    if below > rowmax {
                        rowmax = below;
                    }
                }
                if absakk >= alpha * colmax * (colmax / rowmax) {
                    kp = k;
                } else if a[(imax, imax)].magnitude() >= alpha * rowmax {
                    kp = imax;
                } else {
                    kp = imax;
                    two = true;
                }
            }
            let kk = if two { k + 1 } else { k };
            if kp != kk {
                interchange(&mut a, k, kk, kp, two);
            }
            if !two {
                eliminate_one(&mut a, k);
            } else {
                eliminate_two(&mut a, k);
            }
        }
        if two {
            piv[k] = -(kp as i32 + 1);
            piv[k + 1] = -(kp as i32 + 1);
            k += 2;
        } else {
            piv[k] = kp as i32 + 1;
            k += 1;
        }
    }
    info
}

/// A 1x1 pivot at k: the rank-1 update of the trailing lower triangle, then L's column.
fn eliminate_one<T: Real>(a: &mut MatMut<'_, T>, k: usize) {
    let n = a.nrows();
    if k + 1 >= n {
        return;
    }
    let d11 = T::one() / a[(k, k)];
    for j in k + 1..n {
        let x = a[(j, k)];
        if x != T::zero() {
            let t = -d11 * x;
            for i in j..n {
                let l = a[(i, k)];
                a[(i, j)] += l * t;
            }
        }
    }
    for i in k + 1..n {
        a[(i, k)] *= d11;
    }
}

/// A 2x2 pivot at k, k+1: the rank-2 update with the inverse of the block, in sytf2's form.
fn eliminate_two<T: Real>(a: &mut MatMut<'_, T>, k: usize) {
    let n = a.nrows();
    if k + 2 >= n {
        return;
    }
    let one = T::one();
    let d21 = a[(k + 1, k)];
    let d11 = a[(k + 1, k + 1)] / d21;
    let d22 = a[(k, k)] / d21;
    let t = one / (d11 * d22 - one);
    let d21 = t / d21;
    for j in k + 2..n {
        let wk = d21 * (d11 * a[(j, k)] - a[(j, k + 1)]);
        let wkp1 = d21 * (d22 * a[(j, k + 1)] - a[(j, k)]);
        for i in j..n {
            let v = a[(i, j)] - a[(i, k)] * wk - a[(i, k + 1)] * wkp1;
            a[(i, j)] = v;
        }
        a[(j, k)] = wk;
        a[(j, k + 1)] = wkp1;
    }
}

/// PyTorch's dtype checks for the LDL ops: integers are not factored, half types have no
/// CPU kernel, complex input is not supported here yet.
pub(crate) fn check_dtype(op: &str, kernel: &str, t: &Tensor) -> Result<()> {
    match t.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        dt if dt.is_complex() => Err(Error::complex_unsupported(kernel, dt)),
        dt @ (DType::F16 | DType::BF16) => Err(Error::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            scalar_type_name(dt)
        ))),
        dt => Err(Error::NotImplemented(format!(
            "{op}: Expected a floating point or complex tensor as input. Got {}",
            scalar_type_name(dt)
        ))),
    }
}

/// (LD, pivots, info) tensors and the info codes of every matrix of `a`.
fn factor_forward<T: Real>(a: &Tensor) -> Result<(Tensor, Tensor, Tensor, Vec<i32>)> {
    let (n, _) = matrix_dims(a);
    let batch = batch_dims(a);
    let dev = a.device();
    let results = map_batches(read::<T>(a)?, n * n * n / 3, |_, mut m: Mat<T>| {
        let mut piv = vec![0i32; n];
        let info = bunch_kaufman_in_place(m.as_mut(), &mut piv);
        // Only the lower triangle holds the factors; PyTorch zeroes the rest.
        for j in 1..n {
            for i in 0..j {
                m[(i, j)] = T::zero();
            }
        }
        (m, piv, info)
    });
    let codes: Vec<i32> = results.iter().map(|r| r.2).collect();
    let pivots: Vec<Vec<i32>> = results.iter().map(|r| r.1.clone()).collect();
    let mats: Vec<Mat<T>> = results.into_iter().map(|r| r.0).collect();
    let ld = write(batch, n, n, &mats, dev)?;
    let piv = write_vectors(batch, n, &pivots, dev)?;
    let info = write_scalars(batch, codes.clone(), dev)?;
    Ok((ld, piv, info, codes))
}

impl Tensor {
    /// `linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False)`: (LD, pivots, info)
    /// from A's lower triangle; info is the first zero diagonal block of D (1-based), or 0.
    pub fn linalg_ldl_factor_ex(
        &self,
        hermitian: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        self.ldl_factor_named("torch.linalg.ldl_factor_ex", hermitian, check_errors)
    }

    /// `linalg.ldl_factor(A, *, hermitian=False)`: (LD, pivots); a singular D is an error.
    pub fn linalg_ldl_factor(&self, hermitian: bool) -> Result<(Tensor, Tensor)> {
        let (ld, piv, _) = self.ldl_factor_named("torch.linalg.ldl_factor", hermitian, true)?;
        Ok((ld, piv))
    }

    /// `name` is the op named when `check_errors` finds a singular matrix.
    fn ldl_factor_named(
        &self,
        name: &str,
        _hermitian: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        // Real input: the symmetric and Hermitian factorizations are one and the same.
        let op = "torch.linalg.ldl_factor_ex";
        at_least_2d(op, self, "A")?;
        square(op, self, "A")?;
        check_dtype(op, "ldl_factor_kernel_cpu", self)?;
        let (ld, pivots, info, codes) = with_real!(self.dtype(), T => factor_forward::<T>(self)?);
        if check_errors {
            if let Some((b, i)) = first_failure(&codes) {
                bail!(
                    Runtime,
                    "{name}: {}The factorization could not be completed because the input is singular: the diagonal block D[{i},{i}] is zero.",
                    batch_prefix(self.ndim(), b)
                );
            }
        }
        let ld = record("NotImplemented", ld, &[self], &[], false, |_, _| {
            bail!(
                Runtime,
                "derivative for aten::linalg_ldl_factor_ex is not implemented"
            )
        });
        Ok((ld, pivots, info))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P L D L^T P^T rebuilt from the packed factors, by undoing sytf2's steps.
    fn reconstruct(ld: &Mat<f64>, piv: &[i32]) -> Mat<f64> {
        let n = ld.nrows();
        // Build A column block by column block from the last block back (sytf2 in reverse).
        let mut a = Mat::<f64>::zeros(n, n);
        let mut blocks = Vec::new();
        let mut k = 0;
        while k < n {
            let s = if piv[k] < 0 { 2 } else { 1 };
            blocks.push((k, s));
            k += s;
        }
        for &(k, s) in blocks.iter().rev() {
            // Trailing part so far is a[k+s.., k+s..]; add the block's contribution.
            let mut d = Mat::<f64>::zeros(s, s);
            for i in 0..s {
                for j in 0..=i {
                    d[(i, j)] = ld[(k + i, k + j)];
                    d[(j, i)] = ld[(k + i, k + j)];
                }
            }
            let l = Mat::from_fn(n - k, s, |i, j| {
                if i < s {
                    (i == j) as u8 as f64
                } else {
                    ld[(k + i, k + j)]
                }
            });
            let update = &l * &d * l.transpose();
            for i in k..n {
                for j in k..n {
                    a[(i, j)] += update[(i - k, j - k)];
                }
            }
            // Undo this step's interchange of rows/columns kk and kp.
            let kk = k + s - 1;
            let kp = (piv[k].unsigned_abs() - 1) as usize;
            if kp != kk {
                for c in 0..n {
                    let t = a[(kk, c)];
                    a[(kk, c)] = a[(kp, c)];
                    a[(kp, c)] = t;
                }
                for r in 0..n {
                    let t = a[(r, kk)];
                    a[(r, kk)] = a[(r, kp)];
                    a[(r, kp)] = t;
                }
            }
        }
        a
    }

    fn symmetric(n: usize, seed: usize) -> Mat<f64> {
        let f = |i: usize, j: usize| (((i * 7 + j * 13 + seed) % 17) as f64 - 8.0) / 3.0;
        Mat::from_fn(n, n, |i, j| f(i.max(j), i.min(j)))
    }

    #[test]
    fn factors_reconstruct_indefinite_matrices() {
        for (n, seed) in [(1, 0), (2, 1), (5, 2), (9, 3), (30, 4)] {
            let a = symmetric(n, seed);
            let mut ld = a.clone();
            let mut piv = vec![0; n];
            assert_eq!(bunch_kaufman_in_place(ld.as_mut(), &mut piv), 0, "{n}");
            let back = reconstruct(&ld, &piv);
            for i in 0..n {
                for j in 0..n {
                    assert!((back[(i, j)] - a[(i, j)]).abs() < 1e-9, "{n} at ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn a_zero_diagonal_takes_a_two_by_two_pivot() {
        let mut a = Mat::from_fn(2, 2, |i, j| if i == j { 0.0 } else { 1.0 });
        let mut piv = vec![0; 2];
        assert_eq!(bunch_kaufman_in_place(a.as_mut(), &mut piv), 0);
        assert_eq!(piv, vec![-2, -2]);
    }

    #[test]
    fn singular_columns_report_info_and_stay_finite() {
        let mut z = Mat::<f64>::zeros(4, 4);
        let mut piv = vec![0; 4];
        assert_eq!(bunch_kaufman_in_place(z.as_mut(), &mut piv), 1);
        assert_eq!(piv, vec![1, 2, 3, 4]);
        let mut a = Mat::from_fn(2, 2, |i, j| [[1.0, 2.0], [2.0, 4.0]][i][j]);
        let mut piv = vec![0; 2];
        assert_eq!(bunch_kaufman_in_place(a.as_mut(), &mut piv), 2);
        assert_eq!(piv, vec![2, 2]);
        assert_eq!((a[(0, 0)], a[(1, 0)], a[(1, 1)]), (4.0, 0.5, 0.0));
    }
}

//! `linalg.ldl_solve`: A X = B from the packed Bunch-Kaufman factors of `ldl_factor`, by
//! LAPACK's sytrs steps (interchanges, L, the 1x1 and 2x2 blocks of D, L^T). PyTorch has no
//! derivative for it.

use super::check::{at_least_2d, scalar_type_name, square};
use super::ldl::check_dtype;
use super::matrices::{batch_dims, broadcast_index, matrix_dims, read, with_matrix, with_real};
use super::matrices::{map_batches, write, Real};
use crate::autograd::record;
use crate::dtype::Category;
use crate::layout::{broadcast_shapes, wrap_dim};
use crate::{bail, Result, Tensor};
use faer::{Mat, MatMut};

/// Swaps rows `i` and `j` of `b`.
fn swap_rows<T: Real>(b: &mut MatMut<'_, T>, i: usize, j: usize) {
    if i != j {
        for c in 0..b.ncols() {
            let t = b[(i, c)];
            b[(i, c)] = b[(j, c)];
            b[(j, c)] = t;
        }
    }
}

/// The diagonal blocks of D as (first row, size) from the pivots (a negative pivot opens a
/// 2x2 block).
fn blocks(piv: &[i64]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < piv.len() {
        let size = if piv[k] < 0 { 2 } else { 1 };
        out.push((k, size));
        k += size;
    }
    out
}

/// sytrs with uplo = 'L': overwrites `b` with the solution for the factors `ld` and the
/// 1-based `piv` (already checked to lie in 1..=n, with 2x2 blocks inside the matrix).
fn solve_in_place<T: Real>(ld: &Mat<T>, piv: &[i64], mut b: MatMut<'_, T>) {
    let (n, nrhs) = (ld.nrows(), b.ncols());
    let blocks = blocks(piv);
    // L D Y = P^T B, forward over the blocks.
    for &(k, size) in &blocks {
        let last = k + size - 1;
        swap_rows(&mut b, last, piv[k].unsigned_abs() as usize - 1);
        for c in 0..nrhs {
            for j in k..=last {
                let x = b[(j, c)];
                for i in last + 1..n {
                    b[(i, c)] -= ld[(i, j)] * x;
                }
            }
        }
        if size == 1 {
            let inv = T::one() / ld[(k, k)];
            for c in 0..nrhs {
                b[(k, c)] *= inv;
            }
        } else {
            let akm1k = ld[(k + 1, k)];
            let akm1 = ld[(k, k)] / akm1k;
            let ak = ld[(k + 1, k + 1)] / akm1k;
            let denom = akm1 * ak - T::one();
            for c in 0..nrhs {
                let bkm1 = b[(k, c)] / akm1k;
                let bk = b[(k + 1, c)] / akm1k;
                b[(k, c)] = (ak * bkm1 - bk) / denom;
                b[(k + 1, c)] = (akm1 * bk - bkm1) / denom;
            }
        }
    }
    // L^T P^T X = Y, backward over the blocks.
    for &(k, size) in blocks.iter().rev() {
        let last = k + size - 1;
        for j in (k..=last).rev() {
            for c in 0..nrhs {
                // gemv's order: the dot product first, then one subtraction.
                let mut dot = T::zero();
                for i in last + 1..n {
                    dot += ld[(i, j)] * b[(i, c)];
                }
                b[(j, c)] -= dot;
            }
        }
        swap_rows(&mut b, last, piv[k].unsigned_abs() as usize - 1);
    }
}

/// The pivots of every matrix as i64, checked as PyTorch does (1 <= |p| <= n) and, since
/// a malformed list would make sytrs read outside the matrix, each 2x2 block complete.
fn read_pivots(pivots: &Tensor, n: usize) -> Result<Vec<Vec<i64>>> {
    let host = pivots.try_to_vec::<i64>()?;
    if host.iter().any(|&p| p.unsigned_abs() > n as u64) {
        bail!(Runtime, "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you properly pass the result of ldl_factor?");
    }
    if host.contains(&0) {
        bail!(Runtime, "Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the result of ldl_factor?");
    }
    let count: usize = pivots.shape()[..pivots.ndim() - 1].iter().product();
    let lists: Vec<Vec<i64>> = (0..count)
        .map(|b| host[b * n..(b + 1) * n].to_vec())
        .collect();
    for list in &lists {
        let mut k = 0;
        while k < list.len() {
            if list[k] < 0 {
                if k + 1 == list.len() {
                    bail!(Runtime, "Pivots given to ldl_solve must pair up the 2x2 blocks of D (a negative pivot is followed by another). Did you properly pass the result of ldl_factor?");
                }
                k += 2;
            } else {
                k += 1;
            }
        }
    }
    Ok(lists)
}

fn solve_forward<T: Real>(ld: &Tensor, pivots: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (n, nrhs) = matrix_dims(b);
    let batch = broadcast_shapes("torch.linalg.ldl_solve", batch_dims(b), batch_dims(ld))?;
    let factors = read::<T>(ld)?;
    let pivots = read_pivots(pivots, n)?;
    let rhs = read::<T>(&b.broadcast_to(&with_matrix(&batch, n, nrhs))?)?;
    let which = broadcast_index(batch_dims(ld), &batch);
    let solved = map_batches(rhs, n * n * nrhs.max(1), |i, mut x: Mat<T>| {
        solve_in_place(&factors[which[i]], &pivots[which[i]], x.as_mut());
        x
    });
    write(&batch, n, nrhs, &solved, b.device())
}

impl Tensor {
    /// `linalg.ldl_solve(LD, pivots, B, *, hermitian=False)`: X with A X = B for A factored
    /// by `ldl_factor` into (LD, pivots). The batch dims of LD and B broadcast; pivots may be
    /// of any integer dtype.
    pub fn linalg_ldl_solve(
        &self,
        pivots: &Tensor,
        b: &Tensor,
        _hermitian: bool,
    ) -> Result<Tensor> {
        let op = "torch.linalg.ldl_solve";
        let ld = self;
        at_least_2d(op, ld, "A")?;
        square(op, ld, "A")?;
        check_dtype(op, "ldl_solve_kernel_cpu", ld)?;
        if b.dtype() != ld.dtype() {
            bail!(
                Runtime,
                "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
                scalar_type_name(b.dtype()),
                scalar_type_name(ld.dtype())
            );
        }
        let rows = b.shape()[wrap_dim(op, -2, b.ndim())?];
        let n = ld.shape()[ld.ndim() - 1];
        if rows != n {
            bail!(
                Runtime,
                "Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix is {rows} by {}",
                b.shape()[b.ndim() - 1]
            );
        }
        if pivots.shape() != &ld.shape()[..ld.ndim() - 1] {
            bail!(
                Runtime,
                "{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape {} instead",
                crate::error::fmt_shape(pivots.shape())
            );
        }
        if pivots.dtype().category() != Category::Int {
            bail!(
                Runtime,
                "{op}: Expected pivots to be integers. Got {}",
                scalar_type_name(pivots.dtype())
            );
        }
        let x = with_real!(ld.dtype(), T => solve_forward::<T>(ld, pivots, b)?);
        Ok(record("NotImplemented", x, &[ld, b], &[], false, |_, _| {
            bail!(
                Runtime,
                "derivative for aten::linalg_ldl_solve is not implemented"
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::ldl::bunch_kaufman_in_place;
    use super::*;

    #[test]
    fn solves_indefinite_systems() {
        for n in [1, 2, 3, 6, 11, 25] {
            let a = Mat::from_fn(n, n, |i, j| {
                let (i, j) = (i.max(j), i.min(j));
                (((i * 5 + j * 11) % 13) as f64 - 6.0) / 2.0
            });
            let b = Mat::from_fn(n, 2, |i, j| (i + 3 * j) as f64 - 1.5);
            let mut ld = a.clone();
            let mut piv = vec![0; n];
            assert_eq!(bunch_kaufman_in_place(ld.as_mut(), &mut piv), 0);
            let piv: Vec<i64> = piv.iter().map(|&p| p as i64).collect();
            let mut x = b.clone();
            solve_in_place(&ld, &piv, x.as_mut());
            let r = &a * &x - &b;
            assert!(
                r.col_iter().all(|c| c.iter().all(|v| v.abs() < 1e-8)),
                "{n}"
            );
        }
    }
}

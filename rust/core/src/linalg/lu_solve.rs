//! `linalg.lu_solve`: a row permutation and two triangular solves on the factors of
//! `lu_factor`, all differentiable, so gradients reach both LU and B.

use super::check::{at_least_2d, square};
use super::lu::{permute_rows, pivots_to_swaps, swaps_to_permutation};
use super::matrices::{batch_dims, broadcast_index, matrix_dims, with_matrix};
use super::triangle::mt;
use super::triangular::check_solvable;
use crate::layout::broadcast_shapes;
use crate::{bail, DType, Result, Tensor};

impl Tensor {
    /// `linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False)`: X with AX = B (XA = B
    /// when not `left`; A^T in place of A when `adjoint`) for A = P L U given as LU, pivots.
    pub fn linalg_lu_solve(
        &self,
        pivots: &Tensor,
        b: &Tensor,
        left: bool,
        adjoint: bool,
    ) -> Result<Tensor> {
        let op = "linalg.lu_solve";
        let lu = self;
        at_least_2d(op, lu, "LU")?;
        at_least_2d(op, b, "B")?;
        square("torch.linalg.lu_solve", lu, "A")?;
        check_pivots(op, lu, pivots)?;
        check_solvable(op, lu, b, left)?;
        super::check::same_dtype(op, lu, b)?;
        super::check::float_dtype(op, lu)?;
        if left {
            solve_left(lu, pivots, b, adjoint)
        } else {
            // XA = B is A^T X^T = B^T (and X A^T = B is A X^T = B^T).
            mt(&solve_left(lu, pivots, &mt(b)?, !adjoint)?)
        }
    }
}

fn check_pivots(op: &str, lu: &Tensor, pivots: &Tensor) -> Result<()> {
    if pivots.dtype() != DType::I32 {
        bail!(
            Runtime,
            "{op}: pivots should be a Tensor of scalar type torch.int32"
        );
    }
    let expected = &lu.shape()[..lu.ndim() - 1];
    if pivots.ndim() >= 1 && pivots.shape()[pivots.ndim() - 1] != expected[expected.len() - 1] {
        bail!(
            Runtime,
            "{op}: Number of pivots per batch should be same as the dimension of the matrix"
        );
    }
    if pivots.shape() != expected {
        bail!(
            Runtime,
            "{op}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape {} instead",
            crate::error::fmt_shape(pivots.shape())
        );
    }
    let n = expected[expected.len() - 1] as i32;
    let host = pivots.try_to_vec::<i32>()?;
    if host.iter().any(|&p| p > n) {
        bail!(Runtime, "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the result of lu_factor?");
    }
    if host.iter().any(|&p| p < 1) {
        bail!(Runtime, "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of lu_factor?");
    }
    Ok(())
}

/// AX = B (or A^T X = B) with B expanded to the common batch.
fn solve_left(lu: &Tensor, pivots: &Tensor, b: &Tensor, adjoint: bool) -> Result<Tensor> {
    let batch = broadcast_shapes("linalg.lu_solve", batch_dims(lu), batch_dims(b))?;
    let (n, k) = matrix_dims(b);
    let b = b.broadcast_to(&with_matrix(&batch, n, k))?;
    let swaps = pivots_to_swaps(pivots)?;
    let perms: Vec<Vec<usize>> = broadcast_index(batch_dims(lu), &batch)
        .into_iter()
        .map(|i| swaps_to_permutation(&swaps[i], n))
        .collect();
    if adjoint {
        // A^T = U^T L^T P^T: X = P L^-T U^-T B.
        let y = mt(lu)?.linalg_solve_triangular(&b, false, true, false)?;
        let y = mt(lu)?.linalg_solve_triangular(&y, true, true, true)?;
        permute_rows(&y, &perms, true)
    } else {
        // A = P L U: X = U^-1 L^-1 P^T B.
        let y = permute_rows(&b, &perms, false)?;
        let y = lu.linalg_solve_triangular(&y, false, true, true)?;
        lu.linalg_solve_triangular(&y, true, true, false)
    }
}

//! `linalg.solve` / `solve_ex` through an LU factorization of A, and their backward.

use super::check::{at_least_2d, batch_prefix, first_failure, float_dtype, same_dtype, square};
use super::lu::{factor_all, Lu};
use super::matrices::{
    batch_dims, broadcast_index, matrix_dims, read, with_matrix, with_real, write, write_scalars,
    Real,
};
use super::triangle::mt;
use super::triangular::check_solvable;
use crate::autograd::{is_grad_enabled, record};
use crate::layout::broadcast_shapes;
use crate::{bail, Error, Result, Tensor};
use faer::linalg::triangular_solve as tri;
use faer::reborrow::ReborrowMut;
use faer::{MatMut, Par};

fn swap_rows<T: Real>(b: &mut MatMut<'_, T>, i: usize, j: usize) {
    for c in 0..b.ncols() {
        let t = b[(i, c)];
        b[(i, c)] = b[(j, c)];
        b[(j, c)] = t;
    }
}

/// X = A^-1 B in place for one factored A = P L U.
pub(crate) fn lu_solve_in_place<T: Real>(f: &Lu<T>, mut b: MatMut<'_, T>) {
    for (j, &p) in f.piv.iter().enumerate() {
        swap_rows(&mut b, j, p);
    }
    tri::solve_unit_lower_triangular_in_place(f.lu.as_ref(), b.rb_mut(), Par::Seq);
    tri::solve_upper_triangular_in_place(f.lu.as_ref(), b, Par::Seq);
}

/// X = A^-T B in place (A^T = U^T L^T P^T): the transposed factors read as triangles.
fn lu_solve_transposed_in_place<T: Real>(f: &Lu<T>, mut b: MatMut<'_, T>) {
    let lut = f.lu.as_ref().transpose();
    tri::solve_lower_triangular_in_place(lut, b.rb_mut(), Par::Seq);
    tri::solve_unit_upper_triangular_in_place(lut, b.rb_mut(), Par::Seq);
    for (j, &p) in f.piv.iter().enumerate().rev() {
        swap_rows(&mut b, j, p);
    }
}

/// Whether B is a (batch of) vector(s) for A, by PyTorch's rule.
fn is_vector_rhs(a: &Tensor, b: &Tensor) -> bool {
    b.ndim() == 1 || (a.ndim() == b.ndim() + 1 && b.shape() == &a.shape()[..a.ndim() - 1])
}

impl Tensor {
    /// `linalg.solve(A, B, *, left=True)`: X with AX = B (or XA = B). B may be a vector or a
    /// batch of vectors; batch dims broadcast. A singular A raises LinAlgError.
    pub fn linalg_solve(&self, b: &Tensor, left: bool) -> Result<Tensor> {
        Ok(self.solve_named("torch.linalg.solve", b, left, true)?.0)
    }

    /// `linalg.solve_ex(A, B, *, left=True, check_errors=False)`: (result, info), info
    /// (int32, A's batch shape) the first zero pivot of A's LU factorization.
    pub fn linalg_solve_ex(
        &self,
        b: &Tensor,
        left: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor)> {
        self.solve_named("torch.linalg.solve_ex", b, left, check_errors)
    }

    /// `name` is the op named in the error for a singular A.
    fn solve_named(
        &self,
        name: &'static str,
        b: &Tensor,
        left: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor)> {
        let op = "linalg.solve";
        let a = self;
        at_least_2d(op, a, "A")?;
        if b.ndim() == 0 {
            bail!(
                Runtime,
                "{op}: The input tensor B must have at least 2 dimensions."
            );
        }
        same_dtype(op, a, b)?;
        float_dtype(op, a)?;
        square(op, a, "A")?;
        let vector = is_vector_rhs(a, b);
        let b2 = if vector { b.unsqueeze(-1)? } else { b.clone() };
        check_solvable(op, a, &b2, left)?;
        let (x, info) = if left {
            solve_matrix(a, &b2, false, check_errors.then_some(name))?
        } else {
            // XA = B is A^T X^T = B^T, solved with the factors of A (so info is A's).
            let (xt, info) = solve_matrix(a, &mt(&b2)?, true, check_errors.then_some(name))?;
            (mt(&xt)?, info)
        };
        let x = if vector { x.squeeze(Some(&[-1]))? } else { x };
        Ok((x, info))
    }
}

/// AX = B (A^T X = B when `transposed`) for matrices B: B expanded to the common batch, A
/// kept as it is (one LU each). A singular A is an error naming `check_errors` when given.
fn solve_matrix(
    a: &Tensor,
    b: &Tensor,
    transposed: bool,
    check_errors: Option<&str>,
) -> Result<(Tensor, Tensor)> {
    // B's batch first, as PyTorch broadcasts them (its sizes are "tensor a" in the message).
    let batch = broadcast_shapes("linalg.solve", batch_dims(b), batch_dims(a))?;
    let (n, k) = matrix_dims(b);
    let b = b.broadcast_to(&with_matrix(&batch, n, k))?;
    let (x, info, codes) = with_real!(a.dtype(), T => forward::<T>(a, &b, transposed)?);
    if let Some(name) = check_errors {
        if let Some((i, _)) = first_failure(&codes) {
            return Err(Error::LinAlg(format!(
                "{name}: {}The solver failed because the input matrix is singular.",
                batch_prefix(a.ndim(), i)
            )));
        }
    }
    Ok((solve_record(a, &b, x, transposed), info))
}

/// Attaches the backward of X = A^-1 B or A^-T B (B already expanded to the full batch).
fn solve_record(a: &Tensor, b: &Tensor, x: Tensor, transposed: bool) -> Tensor {
    record(
        "LinalgSolveExBackward0",
        x,
        &[a, b],
        &[a, b],
        true,
        move |g, s| {
            let (a, b) = (&s[0], &s[1]);
            let x = if is_grad_enabled() {
                solve_matrix(a, b, transposed, None)?.0
            } else {
                s[2].clone()
            };
            // X = A^-1 B: gB = A^-T g, gA = -gB X^T; X = A^-T B: gB = A^-1 g, gA = -X gB^T.
            // gA is summed over the batch dims A was broadcast along.
            let gb = solve_matrix(a, g, !transposed, None)?.0;
            let ga = if !a.requires_grad() {
                None
            } else if transposed {
                Some(x.matmul(&mt(&gb)?)?.neg()?.sum_to(a.shape())?)
            } else {
                Some(gb.matmul(&mt(&x)?)?.neg()?.sum_to(a.shape())?)
            };
            Ok(vec![ga, b.requires_grad().then_some(gb)])
        },
    )
}

fn forward<T: Real>(
    a: &Tensor,
    b: &Tensor,
    transposed: bool,
) -> Result<(Tensor, Tensor, Vec<i32>)> {
    let factors = factor_all(read::<T>(a)?);
    let codes: Vec<i32> = factors.iter().map(|f| f.info as i32).collect();
    let which = broadcast_index(batch_dims(a), batch_dims(b));
    let mut mats = read::<T>(b)?;
    for (m, &i) in mats.iter_mut().zip(&which) {
        if transposed {
            lu_solve_transposed_in_place(&factors[i], m.as_mut());
        } else {
            lu_solve_in_place(&factors[i], m.as_mut());
        }
    }
    let (n, k) = matrix_dims(b);
    let x = write(batch_dims(b), n, k, &mats, b.device())?;
    let info = write_scalars(batch_dims(a), codes.clone(), a.device())?;
    Ok((x, info, codes))
}

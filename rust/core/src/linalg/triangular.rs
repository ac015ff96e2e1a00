//! `linalg.solve_triangular` and its backward.

use super::check::{at_least_2d, square};
use super::matrices::{batch_dims, matrix_dims, read, with_matrix, with_real, write, Real};
use super::triangle::{mt, tril, triu};
use crate::autograd::{is_grad_enabled, record};
use crate::layout::broadcast_shapes;
use crate::{bail, Result, Tensor};
use faer::linalg::triangular_solve as tri;
use faer::Par;

/// Which triangle of A a solve reads.
#[derive(Clone, Copy)]
struct Triangle {
    upper: bool,
    unit: bool,
}

impl Triangle {
    /// The gradient masked to the entries the solve read.
    fn mask(self, g: &Tensor) -> Result<Tensor> {
        let skip = i64::from(self.unit);
        if self.upper {
            triu(g, skip)
        } else {
            tril(g, -skip)
        }
    }
}

impl Tensor {
    /// `linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)`: the solution
    /// of AX = B (or XA = B) reading only one triangle of A (and not its diagonal when
    /// `unitriangular`). Batch dims broadcast; the result has A's dtype.
    pub fn linalg_solve_triangular(
        &self,
        b: &Tensor,
        upper: bool,
        left: bool,
        unitriangular: bool,
    ) -> Result<Tensor> {
        let op = "linalg.solve_triangular";
        let a = self;
        at_least_2d(op, a, "A")?;
        at_least_2d(op, b, "B")?;
        square(op, a, "A")?;
        super::check::kernel_dtype("triangular_solve_cpu", a)?;
        check_solvable(op, a, b, left)?;
        let b = b.to_dtype(a.dtype())?;
        let tri = Triangle {
            upper,
            unit: unitriangular,
        };
        if left {
            solve_broadcast(a, &b, tri)
        } else {
            // XA = B is A^T X^T = B^T, with the other triangle of A^T.
            let flipped = Triangle {
                upper: !upper,
                ..tri
            };
            mt(&solve_broadcast(&mt(a)?, &mt(&b)?, flipped)?)
        }
    }
}

/// PyTorch's shape check of the solvers: A's size against B's for AX = B or XA = B.
pub(crate) fn check_solvable(op: &str, a: &Tensor, b: &Tensor, left: bool) -> Result<()> {
    let ((am, an), (bm, bn)) = (matrix_dims(a), matrix_dims(b));
    if (left && an != bm) || (!left && am != bn) {
        let eq = if left { "AX = B" } else { "XA = B" };
        bail!(
            Runtime,
            "{op}: Incompatible shapes of A and B for the equation {eq} ({am}x{an} and {bm}x{bn})"
        );
    }
    Ok(())
}

/// Both operands expanded to their common batch (differentiably), then solved.
fn solve_broadcast(a: &Tensor, b: &Tensor, tri: Triangle) -> Result<Tensor> {
    let batch = broadcast_shapes("linalg.solve_triangular", batch_dims(b), batch_dims(a))?;
    let (n, k) = matrix_dims(b);
    let a = a.broadcast_to(&with_matrix(&batch, n, n))?;
    let b = b.broadcast_to(&with_matrix(&batch, n, k))?;
    solve_same_batch(&a, &b, tri)
}

/// The primitive: AX = B for A and B of one batch shape, with its backward.
fn solve_same_batch(a: &Tensor, b: &Tensor, tri: Triangle) -> Result<Tensor> {
    let x = with_real!(a.dtype(), T => forward::<T>(a, b, tri)?);
    Ok(record(
        "LinalgSolveTriangularBackward0",
        x,
        &[a, b],
        &[a, b],
        true,
        move |g, s| {
            let (a, b) = (&s[0], &s[1]);
            let x = if is_grad_enabled() {
                solve_same_batch(a, b, tri)?
            } else {
                s[2].clone()
            };
            // X = A^-1 B: gB = A^-T g, gA = -gB X^T on the triangle that was read.
            let flipped = Triangle {
                upper: !tri.upper,
                ..tri
            };
            let gb = solve_same_batch(&mt(a)?, g, flipped)?;
            let ga = if a.requires_grad() {
                Some(tri.mask(&gb.matmul(&mt(&x)?)?.neg()?)?)
            } else {
                None
            };
            Ok(vec![ga, b.requires_grad().then_some(gb)])
        },
    ))
}

fn forward<T: Real>(a: &Tensor, b: &Tensor, tri: Triangle) -> Result<Tensor> {
    let (n, k) = matrix_dims(b);
    let a_mats = read::<T>(a)?;
    let mut b_mats = read::<T>(b)?;
    for (a, b) in a_mats.iter().zip(b_mats.iter_mut()) {
        let (a, b) = (a.as_ref(), b.as_mut());
        match (tri.upper, tri.unit) {
            (false, false) => tri::solve_lower_triangular_in_place(a, b, Par::Seq),
            (false, true) => tri::solve_unit_lower_triangular_in_place(a, b, Par::Seq),
            (true, false) => tri::solve_upper_triangular_in_place(a, b, Par::Seq),
            (true, true) => tri::solve_unit_upper_triangular_in_place(a, b, Par::Seq),
        }
    }
    write(batch_dims(b), n, k, &b_mats, b.device())
}

"""Linear solvers: ``solve``, ``solve_ex``, ``solve_triangular``, ``lu_solve`` and
``cholesky_solve``. Each is one Rust op with its own backward."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from . import _return_types as rt


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` when not ``left``).

    B may be a vector or a batch of vectors; batch dims broadcast. A singular A raises
    ``torch.linalg.LinAlgError``.

    >>> import ferrotorch as torch
    >>> torch.linalg.solve(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    return _core._linalg_solve(A, B, left)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> tuple:
    """``solve`` that returns ``(result, info)`` instead of raising for singular A; ``info``
    (int32, A's batch shape) is the first zero pivot of A's LU factorization (0: invertible)."""
    return rt.linalg_solve_ex(*_core._linalg_solve_ex(A, B, left, check_errors))


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` when not ``left``) for a triangular A: only
    its upper (or lower) triangle is read, and not its diagonal when ``unitriangular``.

    >>> import ferrotorch as torch
    >>> A = torch.tensor([[2.0, 1.0], [0.0, 1.0]])
    >>> torch.linalg.solve_triangular(A, torch.tensor([[3.0], [1.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    return _core._linalg_solve_triangular(A, B, upper, left, unitriangular)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """The solution of ``A X = B`` given ``LU, pivots = lu_factor(A)`` (``X A = B`` when not
    ``left``; A's transpose in place of A when ``adjoint``). Differentiable in LU and B."""
    return _core._linalg_lu_solve(LU, pivots, B, left, adjoint)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """The solution of ``A X = B`` for ``A = L L^T`` (``U^T U`` when ``upper``) given the
    Cholesky factor. ``torch.cholesky_solve``."""
    return _core._cholesky_solve(B, L, upper)

"""Factorizations: ``cholesky``, ``cholesky_ex``, ``lu_factor``, ``lu_factor_ex``, ``lu`` and
``lu_unpack``."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from . import _return_types as rt


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The lower factor L of ``A = L L^T`` (or the upper ``U = L^T`` when ``upper``), read
    from A's lower (upper) triangle. A matrix that is not positive definite raises
    ``LinAlgError``.

    >>> import ferrotorch as torch
    >>> torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    return _core._linalg_cholesky(A, upper)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> tuple:
    """``(L, info)``: ``info`` (int32) is the order of the first leading minor that is not
    positive definite (0 on success), instead of an error."""
    return rt.linalg_cholesky_ex(*_core._linalg_cholesky_ex(A, upper, check_errors))


def lu_factor(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(LU, pivots)``: L (unit diagonal, below it) and U packed in one matrix, and LAPACK's
    1-based row swaps (int32). A zero pivot raises RuntimeError (see ``lu_factor_ex``)."""
    return rt.linalg_lu_factor(*_core._linalg_lu_factor(A, pivot))


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> tuple:
    """``(LU, pivots, info)``: ``info`` (int32) is the first zero pivot of U, 1-based."""
    return rt.linalg_lu_factor_ex(*_core._linalg_lu_factor_ex(A, pivot, check_errors))


def _permutation_matrices(pivots: Tensor, m: int, dtype: object) -> Tensor:
    """P with A = P L U from LAPACK's row swaps (``[..., k]``): column i of P is e_perm[i]."""
    flat = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else [[] for _ in range(int(_prod(pivots.shape[:-1])))]
    perms = []
    for swaps in flat:
        perm = list(range(m))
        for j, p in enumerate(swaps):
            perm[j], perm[p - 1] = perm[p - 1], perm[j]
        perms.append(perm)
    eye = _core.eye(m, dtype=dtype)
    index = _core.tensor(perms, dtype=_core.int64).reshape(*pivots.shape[:-1], m)
    return eye[index].transpose(-2, -1)


def _prod(shape: tuple) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> tuple:
    """``(P, L, U)`` from the packed output of ``lu_factor``; L and U are differentiable."""
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead")
    if LU_pivots.dtype != _core.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = LU_data.new_empty(0)
    if unpack_data:
        eye = _core.eye(m, k, dtype=LU_data.dtype)
        L = LU_data[..., :, :k].tril(-1) + eye
        U = LU_data[..., :k, :].triu()
    else:
        L = U = empty
    P = _permutation_matrices(LU_pivots, m, LU_data.dtype) if unpack_pivots else empty
    return rt.lu_unpack(P, L, U)


def lu(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(P, L, U)`` with ``A = P L U``: P a permutation, L unit lower trapezoidal, U upper."""
    LU, pivots, _ = _core._linalg_lu_packed(A, pivot)
    return rt.linalg_lu(*lu_unpack(LU, pivots))

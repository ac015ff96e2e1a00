"""``tensorinv`` and ``tensorsolve``: inverses and solves of tensors read as matrices (the
leading dims as rows, the rest as columns)."""

from __future__ import annotations

from typing import Optional, Sequence

from .._core import Tensor
from ._inverses import inv
from ._solvers import solve


def _prod(shape: Sequence[int]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The tensor X with ``tensordot(A, X, ind)`` the identity: A read as a
    ``prod(shape[:ind]) x prod(shape[ind:])`` matrix, inverted, and shaped
    ``shape[ind:] + shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if _prod(cols) != _prod(rows):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {_prod(cols)} != {_prod(rows)}")
    return inv(A.reshape(_prod(rows), _prod(cols))).reshape(cols + rows)


def tensorsolve(A: Tensor, B: Tensor, dims: Optional[Sequence[int]] = None) -> Tensor:
    """The X with ``tensordot(A, X, X.ndim) = B``: ``dims`` of A are moved last, A is read as
    a ``B.numel() x rest`` matrix and solved against B flattened."""
    if dims is not None:
        dims = list(dims)
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    rest = tuple(A.shape[B.ndim :])
    if _prod(rest) != B.numel():
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got {_prod(rest)} != {B.numel()}")
    return solve(A.reshape(B.numel(), _prod(rest)), B.reshape(-1)).reshape(rest)

"""The LDL factorization of symmetric indefinite matrices: ``ldl_factor``, ``ldl_factor_ex``
and ``ldl_solve``. Bunch-Kaufman pivoting as LAPACK's sytrf, so LD and pivots are PyTorch's;
as in PyTorch, none of them has a derivative."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from . import _return_types as rt


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> tuple:
    """``(LD, pivots, info)`` with ``A = P L D L^T P^T`` read from A's lower triangle: L (unit
    diagonal) below the diagonal of LD, the 1x1 and 2x2 blocks of D on and next to it. The
    pivots (int32) are LAPACK's: 1-based row interchanges, negative for both rows of a 2x2
    block. ``info`` (int32) is the first zero diagonal block of D (1-based), 0 if none.

    >>> import ferrotorch as torch
    >>> torch.linalg.ldl_factor_ex(torch.tensor([[0.0, 1.0], [1.0, 0.0]])).pivots
    tensor([-2, -2], dtype=torch.int32)
    """
    return rt.linalg_ldl_factor_ex(*_core._linalg_ldl_factor_ex(A, hermitian, check_errors))


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> tuple:
    """``(LD, pivots)`` as ``ldl_factor_ex``; a singular D raises RuntimeError.

    >>> import ferrotorch as torch
    >>> torch.linalg.ldl_factor(torch.tensor([[4.0, 2.0], [2.0, 3.0]])).LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    """
    return rt.linalg_ldl_factor(*_core._linalg_ldl_factor(A, hermitian))


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """The solution X of ``A X = B`` given ``LD, pivots = ldl_factor(A)``. The batch dims of
    LD and B broadcast; pivots may be of any integer dtype.

    >>> import ferrotorch as torch
    >>> LD, pivots = torch.linalg.ldl_factor(torch.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> torch.linalg.ldl_solve(LD, pivots, torch.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    return _core._linalg_ldl_solve(LD, pivots, B, hermitian)

"""Inverses and determinants: ``inv``, ``inv_ex``, ``det``, ``slogdet``, ``logdet`` and
``cholesky_inverse``."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from . import _return_types as rt


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix of A; a singular one raises ``LinAlgError``.

    >>> import ferrotorch as torch
    >>> torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _core._linalg_inv(A)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple:
    """``(inverse, info)``: ``info`` (int32) is the first zero pivot of each LU factorization
    (0 for invertible matrices), instead of an error."""
    return rt.linalg_inv_ex(*_core._linalg_inv_ex(A, check_errors))


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix of A (an exact zero for singular ones)."""
    return _core._linalg_det(A)


def slogdet(A: Tensor) -> tuple:
    """``(sign, logabsdet)`` of the determinant: ``sign`` is -1, 0 or 1, and ``logabsdet`` is
    ``log|det A|`` without overflow (``-inf`` for singular A)."""
    return rt.linalg_slogdet(*_core._linalg_slogdet(A))


def torch_slogdet(input: Tensor) -> tuple:
    """``torch.slogdet``: ``linalg.slogdet`` under its older name."""
    return rt.slogdet(*_core._linalg_slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """``torch.logdet``: log det, NaN where det < 0 and -inf where it is 0."""
    return _core._logdet(input)


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """The inverse of ``A = L L^T`` (``U^T U`` when ``upper``) given its Cholesky factor."""
    return _core._cholesky_inverse(L, upper)

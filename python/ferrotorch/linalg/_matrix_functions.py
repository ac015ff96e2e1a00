"""Functions of a matrix built from its spectrum: ``polar`` (from the SVD) and
``matrix_sqrth`` (from eigh, with a backward that solves X dX + dX X = dA in the
eigenbasis, so repeated eigenvalues are fine)."""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad
from ..autograd import Function
from . import _return_types as rt
from ._norms import _check_float
from ._spectral import eigh, svd

linalg_polar = rt._make("linalg_polar", ["U", "H"])


def polar(A: Tensor) -> tuple:
    """The polar decomposition ``A = U H`` of ``[..., m, n]`` matrices with ``m >= n``: U with
    orthonormal columns (the closest such matrix to A), H symmetric positive-semidefinite.

    >>> import ferrotorch as torch
    >>> U, H = torch.linalg.polar(torch.tensor([[2.0, 0.0], [0.0, -3.0]]))
    >>> H
    tensor([[2., 0.],
            [0., 3.]])
    """
    op = "linalg.polar"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _check_float(op, A)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{op}: input must have at least as many rows as columns, but got {m} by {n} matrices")
    W, S, Vh = svd(A, full_matrices=False)
    U = W @ Vh
    H = (Vh.mH * S.unsqueeze(-2).to(Vh.dtype)) @ Vh
    return linalg_polar(U, H)


class _SqrtH(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        X, s, V = _sqrth_values(A.detach())
        ctx.save_for_backward(s, V)
        return X

    @staticmethod
    def backward(ctx: Any, gX: Tensor) -> Tensor:
        s, V = ctx.saved_tensors
        # X = V diag(s) V^H, so dX solves X dX + dX X = dA: in the eigenbasis divide by s_i + s_j.
        denom = s.unsqueeze(-1) + s.unsqueeze(-2)
        inner = (V.mH @ gX @ V) / denom.to(V.dtype)
        gA = V @ inner @ V.mH
        return (gA + gA.mH) * 0.5


def matrix_sqrth(A: Tensor) -> Tensor:
    """The principal square root of symmetric (Hermitian) positive-definite matrices: the
    positive-definite X with ``X @ X == A``. Only the lower triangle of A is read; negative
    eigenvalues (A not positive-semidefinite) are taken as zero.

    >>> import ferrotorch as torch
    >>> torch.linalg.matrix_sqrth(torch.tensor([[4.0, 0.0], [0.0, 9.0]]))
    tensor([[2., 0.],
            [0., 3.]])
    """
    op = "linalg.matrix_sqrth"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    _check_float(op, A)
    if A.requires_grad and _core.is_grad_enabled():
        return _SqrtH.apply(A)
    with no_grad():
        return _sqrth_values(A)[0]


def _sqrth_values(A: Tensor) -> tuple:
    """(X, s, V): the root and the spectrum it was built from."""
    w, V = eigh(A)
    s = w.clamp(min=0).sqrt()
    return (V * s.unsqueeze(-2).to(V.dtype)) @ V.mH, s, V

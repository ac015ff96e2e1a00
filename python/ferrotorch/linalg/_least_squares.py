"""Least squares and pseudo-inverses: ``lstsq``, ``pinv`` and ``matrix_rank``. The
pseudo-inverse is an autograd Function whose backward is the closed form of d(A^+) (no
division by gaps between singular values, so repeated ones are fine)."""

from __future__ import annotations

from typing import Any, Optional, Union

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad
from ..autograd import Function
from . import _return_types as rt
from ._norms import _type_name
from ._solvers import solve_triangular
from ._spectral import eigh, qr, svd, svdvals

Tol = Optional[Union[float, Tensor]]
_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _eps(A: Tensor) -> float:
    return _EPS.get(str(A.dtype).split(".")[-1], _EPS["float32"])


def _cutoff(A: Tensor, s_max: Tensor, atol: Tol, rtol: Tol) -> Tensor:
    """max(atol, rtol * s_max) with PyTorch's defaults: rtol = eps * max(m, n) unless only a
    positive atol is given; broadcast over the batch (and the tolerances' shapes)."""
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        atol_positive = atol is not None and (bool((atol > 0).all()) if isinstance(atol, Tensor) else atol > 0)
        rtol = 0.0 if atol_positive else _eps(A) * max(m, n)
    cutoff = s_max * rtol
    if atol is not None:
        cutoff = _core.Tensor.maximum(cutoff, atol if isinstance(atol, Tensor) else _core.full_like(cutoff, atol))
    return cutoff


def _spectrum(A: Tensor, hermitian: bool) -> tuple:
    """(s, left, right) with A = left diag(s) right, s >= 0 up to the signs kept in ``right``."""
    if hermitian:
        w, V = eigh(A)
        return w.abs(), V, (V * w.sign().unsqueeze(-1)).transpose(-2, -1)
    U, S, Vh = svd(A, full_matrices=False)
    return S, U, Vh


class _PseudoInverse(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor, atol: Tol, rtol: Tol, hermitian: bool) -> Tensor:
        with no_grad():
            s, left, right = _spectrum(A.detach(), hermitian)
            cutoff = _cutoff(A, s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True), atol, rtol)
            keep = s > cutoff
            inv_s = (1.0 / s.masked_fill(~keep, 1.0)).masked_fill(~keep, 0.0)
            P = (right.transpose(-2, -1) * inv_s.unsqueeze(-2)) @ left.transpose(-2, -1)
        ctx.save_for_backward(A.detach(), P)
        return P

    @staticmethod
    def backward(ctx: Any, gP: Tensor) -> tuple:
        A, P = ctx.saved_tensors
        mT = lambda t: t.transpose(-2, -1)  # noqa: E731
        m, n = A.shape[-2], A.shape[-1]
        eye_m = _core.eye(m, dtype=A.dtype)
        eye_n = _core.eye(n, dtype=A.dtype)
        # d(A^+) = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, transposed onto dA.
        gA = -(mT(P) @ gP @ mT(P))
        gA = gA + (eye_m - A @ P) @ mT(gP) @ P @ mT(P)
        gA = gA + mT(P) @ P @ mT(gP) @ (eye_n - P @ A)
        return gA, None, None, None


def pinv(A: Tensor, *, atol: Tol = None, rtol: Tol = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values at or below
    ``max(atol, rtol * s_max)`` count as zero (rtol defaults to eps * max(m, n)).
    With ``hermitian``, A is taken to be symmetric and eigh replaces the SVD.

    >>> import ferrotorch as torch
    >>> torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if A.ndim < 2 or str(A.dtype).split(".")[-1] not in _EPS:
        shape = "[" + ", ".join(str(d) for d in A.shape) + "]"
        raise RuntimeError(f"linalg.pinv({_type_name(A.dtype)}{{{shape}}}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    return _PseudoInverse.apply(A, atol, rtol, hermitian)


def pinverse(input: Tensor, rcond: float = 1e-15, hermitian: bool = False) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with a relative tolerance ``rcond``."""
    return pinv(input, rtol=rcond, hermitian=hermitian)


def matrix_rank(A: Tensor, *, atol: Tol = None, rtol: Tol = None, hermitian: bool = False, tol: Tol = None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * s_max)`` (int64), per matrix.
    ``tol`` is PyTorch's older name for ``atol``."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if str(A.dtype).split(".")[-1] not in _EPS:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol = tol
    with no_grad():
        s = _core.Tensor.abs(eigh(A)[0]) if hermitian else svdvals(A)
        s_max = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
        return (s > _cutoff(A, s_max, atol, rtol)).sum(-1)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: Optional[float] = None, *, driver: Optional[str] = None) -> tuple:
    """The least-squares solution X of ``A X = B`` and, as PyTorch's CPU drivers report them,
    residuals, rank and singular values (empty where the driver computes none; 'gelsy' is the
    default). Full-rank problems are solved through QR (differentiably); rank-deficient ones
    by the minimum-norm solution ``pinv(A) B``."""
    op = "torch.linalg.lstsq"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if str(A.dtype).split(".")[-1] not in _EPS:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but got input's dtype {_type_name(A.dtype)} and other's dtype {_type_name(B.dtype)}")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.ndim == A.ndim - 1
    B2 = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != B2.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    if rcond is None:
        rcond = _eps(A) * max(m, n)
    s = svdvals(A.detach())
    s_max = s.amax(-1, keepdim=True) if k else s.sum(-1, keepdim=True)
    rank = (s > s_max * max(rcond, 0.0)).sum(-1)
    full_rank = k == 0 or bool((rank == k).all())
    if full_rank and m >= n:
        Q, R = qr(A)
        X = solve_triangular(R, Q.transpose(-2, -1) @ B2, upper=True)
    elif full_rank:
        Q, R = qr(A.transpose(-2, -1))
        X = Q @ solve_triangular(R.transpose(-2, -1), B2, upper=False)
    else:
        X = pinv(A, rtol=rcond) @ B2
    empty = A.new_zeros(0)
    residuals = empty
    if driver != "gelsy" and m > n and full_rank:
        residuals = ((A @ X - B2) ** 2).sum(-2)
    if vector:
        X = X.squeeze(-1)
        residuals = residuals.squeeze(-1) if residuals.numel() else residuals
    batch = tuple(X.shape[:-1] if vector else X.shape[:-2])
    ranks = _core.zeros(0, dtype=_core.int64) if driver == "gels" else rank.expand(batch)
    singular_values = s.expand(batch + (k,)) if driver in ("gelsd", "gelss") else empty
    return rt.linalg_lstsq(X, residuals, ranks, singular_values)

"""Randomized low-rank SVD and PCA: ``torch.svd_lowrank`` and ``torch.pca_lowrank``.

The range finder of Halko, Martinsson and Tropp (2009, Algorithm 4.4 with subspace
iterations): Q spans A @ G for a Gaussian G, refined by ``niter`` rounds of A^H / A products
with re-orthonormalisation (``linalg.qr``); then the exact SVD of the small Q^H A. Being
random, results match PyTorch's in singular values and products (U S V^H), not in the
vectors themselves. Everything is composed of differentiable ops."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core

Tensor = _core.Tensor


def _mH(t: Tensor) -> Tensor:
    return t.mH if t.dtype.is_complex else t.transpose(-2, -1)


def _range_basis(a: Tensor, q: int, niter: int, m_shift: Optional[Tensor]) -> Tensor:
    """An orthonormal (*, m, <=q) basis approximately spanning the range of ``a - m_shift``."""
    from . import linalg

    def times(x: Tensor) -> Tensor:
        return a @ x if m_shift is None else a @ x - m_shift @ x

    def times_h(x: Tensor) -> Tensor:
        return _mH(a) @ x if m_shift is None else _mH(a) @ x - _mH(m_shift) @ x

    g = _core.randn(tuple(a.shape[:-2]) + (a.shape[-1], q), dtype=a.dtype, device=a.device)
    basis = linalg.qr(times(g)).Q
    for _ in range(niter):
        basis = linalg.qr(times_h(basis)).Q
        basis = linalg.qr(times(basis)).Q
    return basis


def svd_lowrank(A: Tensor, q: Optional[int] = 6, niter: Optional[int] = 2, M: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """An approximate rank-``q`` SVD ``(U, S, V)`` of ``A - M`` (``(*, m, n)``), with
    ``A - M ~= U diag(S) V^H``; ``niter`` subspace iterations sharpen it."""
    from . import linalg

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {A.dtype} != {_core.get_default_dtype()}")
    m, n = A.shape[-2], A.shape[-1]
    shift = None if M is None else M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall side: the basis then has at most min(m, n) columns
        A = _mH(A)
        shift = None if shift is None else _mH(shift)
    basis = _range_basis(A, q, niter, shift)
    small = _mH(basis) @ A if shift is None else _mH(basis) @ A - _mH(basis) @ shift
    u, s, vh = linalg.svd(small, full_matrices=False)
    u = basis @ u
    v = _mH(vh)
    if wide:
        u, v = v, u
    return u, s, v


def pca_lowrank(A: Tensor, q: Optional[int] = None, center: bool = True, niter: int = 2) -> Tuple[Tensor, Tensor, Tensor]:
    """PCA of the rows of ``A`` (``(*, m, n)``): ``(U, S, V)`` of the (column-centred when
    ``center``) matrix by ``svd_lowrank``; ``q`` defaults to min(6, m, n)."""
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (isinstance(q, int) and 0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (isinstance(niter, int) and niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A, q, niter=niter, M=A.mean(-2, keepdim=True))


__all__: Tuple[str, ...] = ("svd_lowrank", "pca_lowrank")
METHODS: Tuple[Any, ...] = ()

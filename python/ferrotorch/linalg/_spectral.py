"""Orthogonal factorizations and spectra: ``qr``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, and ``eig``/``eigvals`` of general matrices (complex results)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._core import Tensor
from .._matrix_ops import diag_embed
from ..autograd import Function
from . import _return_types as rt


def qr(A: Tensor, mode: str = "reduced") -> tuple:
    """``(Q, R)`` with ``A = Q R``: Q with orthonormal columns, R upper triangular.

    ``mode='reduced'`` gives Q m x k and R k x n (k = min(m, n)), ``'complete'`` Q m x m and
    R m x n, ``'r'`` only R (Q is an empty tensor).

    >>> import ferrotorch as torch
    >>> Q, R = torch.linalg.qr(torch.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> R.abs()
    tensor([[5.0000, 2.2000],
            [0.0000, 0.4000]])
    """
    return rt.linalg_qr(*_core._linalg_qr(A, mode))


def eigh(A: Tensor, UPLO: str = "L") -> tuple:
    """``(eigenvalues, eigenvectors)`` of the symmetric matrices held in A's lower
    (``UPLO='L'``) or upper triangle: eigenvalues ascending, eigenvectors as columns."""
    return rt.linalg_eigh(*_core._linalg_eigh(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The ascending eigenvalues of the symmetric matrices held in one triangle of A."""
    return _core._linalg_eigvalsh(A, UPLO)


def _check_driver(driver: Optional[str]) -> None:
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.")


def svd(A: Tensor, full_matrices: bool = True, *, driver: Optional[str] = None) -> tuple:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` and S descending; U and Vh square when
    ``full_matrices``, else m x k and k x n."""
    _check_driver(driver)
    return rt.linalg_svd(*_core._linalg_svd(A, full_matrices))


def svdvals(A: Tensor, *, driver: Optional[str] = None) -> Tensor:
    """The singular values of A, descending."""
    _check_driver(driver)
    return _core._linalg_svdvals(A)


def torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:
    """``torch.svd``: ``(U, S, V)`` with V (not its transpose); reduced when ``some``. Without
    ``compute_uv``, U and V are zero matrices (m x m and n x n)."""
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    if not compute_uv:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return rt.svd(input.new_zeros(batch + (m, m)), S, input.new_zeros(batch + (n, n)))
    U, S, Vh = _core._linalg_svd(input, not some)
    return rt.svd(U, S, Vh.transpose(-2, -1))


def _complex_solve(M: Tensor, B: Tensor) -> Tensor:
    """X with M X = B for complex M and B, through the real system [[Re, -Im], [Im, Re]]
    (the real solvers are differentiable, so the backward stays differentiable too)."""
    n = M.shape[-1]
    Mr, Mi = M.real, M.imag
    top = _core.cat([Mr, -Mi], -1)
    bottom = _core.cat([Mi, Mr], -1)
    rhs = _core.cat([B.real, B.imag], -2)
    X = _core._linalg_solve_ex(_core.cat([top, bottom], -2), rhs, True, True)[0]
    return _core.complex(X[..., :n, :], X[..., n:, :])


def _eig_backward(A: Tensor, L: Tensor, V: Tensor, gL: Optional[Tensor], gV: Optional[Tensor]) -> Tensor:
    """gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(l_j - l_i)) V^H,
    real part for real A. A loss that depends on the free phase of an eigenvector is refused."""
    Vh = V.mH
    n = L.shape[-1]
    if gV is not None:
        VhgV = Vh @ gV
        im_diag = VhgV.imag.diagonal(0, -2, -1)
        if im_diag.numel() and float(im_diag.abs().max()) > 1e-2:
            raise RuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                "so it is ill-defined."
            )
        re_diag = VhgV.real.diagonal(0, -2, -1)
        inner = VhgV - Vh @ (V * re_diag.unsqueeze(-2).to(V.dtype))
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        eye = _core.eye(n, dtype=E.dtype)
        Econj = (E + eye).conj()
        inner = inner / Econj
        inner = inner - diag_embed(inner.diagonal(0, -2, -1))
        if gL is not None:
            inner = inner + diag_embed(gL)
    else:
        inner = diag_embed(gL)
    gA = _complex_solve(Vh, inner @ Vh)
    return gA if A.dtype.is_complex else gA.real


class _Eig(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        L, V = _core._linalg_eig(A.detach(), True)
        ctx.save_for_backward(A.detach(), L, V)
        return L, V

    @staticmethod
    def backward(ctx: Any, gL: Optional[Tensor], gV: Optional[Tensor]) -> Tensor:
        A, L, V = ctx.saved_tensors
        return _eig_backward(A, L, V, gL, gV)


class _EigVals(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        ctx.save_for_backward(A.detach())
        return _core._linalg_eig(A.detach(), False)[0]

    @staticmethod
    def backward(ctx: Any, gL: Tensor) -> Tensor:
        (A,) = ctx.saved_tensors
        L, V = _core._linalg_eig(A, True)
        return _eig_backward(A, L, V, gL, None)


def eig(A: Tensor) -> tuple:
    """``(eigenvalues, eigenvectors)`` of general square matrices: complex results
    (complex64 for float32/complex64 input, complex128 otherwise), eigenvectors as unit-norm
    columns with their largest component real, in no particular order.

    >>> import ferrotorch as torch
    >>> torch.linalg.eig(torch.tensor([[0.0, -1.0], [1.0, 0.0]])).eigenvalues
    tensor([0.+1.j, 0.-1.j])
    """
    if A.requires_grad and _core.is_grad_enabled():
        return rt.linalg_eig(*_Eig.apply(A))
    return rt.linalg_eig(*_core._linalg_eig(A, True))


def eigvals(A: Tensor) -> Tensor:
    """The complex eigenvalues of general square matrices (as ``eig`` without vectors)."""
    if A.requires_grad and _core.is_grad_enabled():
        return _EigVals.apply(A)
    return _core._linalg_eig(A, False)[0]

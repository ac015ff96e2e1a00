"""Orthogonal factorizations and spectra: ``qr``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, and ``eig``/``eigvals``, which need complex dtypes ferrotorch does not have yet."""

from __future__ import annotations

from typing import Optional

from .. import _core
from .._core import Tensor
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


def _complex_result_error(op: str, A: Tensor) -> RuntimeError:
    """PyTorch's shape errors, else the error for results that would be complex."""
    if A.ndim < 2:
        return RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        return RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    return RuntimeError(
        f"{op}: complex tensors are not supported yet, and the eigenvalues of a general matrix are complex "
        "(PyTorch returns complex64/complex128). For symmetric matrices use torch.linalg.eigh / eigvalsh."
    )


def eig(A: Tensor) -> tuple:
    """Not supported yet: PyTorch returns complex eigenvalues and eigenvectors, and ferrotorch
    has no complex dtypes. Raises RuntimeError (after PyTorch's shape checks)."""
    raise _complex_result_error("linalg.eig", A)


def eigvals(A: Tensor) -> Tensor:
    """Not supported yet (complex results); see ``eig``."""
    raise _complex_result_error("linalg.eigvals", A)

"""The linalg ops under their ``torch.*`` names and as Tensor methods (``torch.inverse``,
``t.det()``, the deprecated ``torch.lu`` and ``torch.triangular_solve`` ...)."""

from __future__ import annotations

import warnings
from typing import Any

from .. import _core
from .._core import Tensor
from . import _return_types as rt
from ._factorizations import lu_unpack
from ._inverses import cholesky_inverse, det, logdet
from ._inverses import inv as inverse
from ._inverses import torch_slogdet as slogdet
from ._least_squares import pinverse
from ._products import chain_matmul, matrix_exp, matrix_power
from ._products import torch_cross as cross
from ._solvers import cholesky_solve
from ._spectral import torch_svd as svd


def _removed(name: str, replacement: str) -> Any:
    """A function PyTorch has removed: calling it raises RuntimeError, as there."""

    def removed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"This function was deprecated since version 1.9 and is now removed. Use `{replacement}` instead of "
            f"`torch.{name}`."
        )

    removed.__name__ = name
    return removed


cholesky = _removed("cholesky", "torch.linalg.cholesky")
qr = _removed("qr", "torch.linalg.qr")
symeig = _removed("symeig", "torch.linalg.eigh")
eig = _removed("eig", "torch.linalg.eig")
lstsq = _removed("lstsq", "torch.linalg.lstsq")
matrix_rank = _removed("matrix_rank", "torch.linalg.matrix_rank")
solve = _removed("solve", "torch.linalg.solve")


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    """``torch.lu``: ``(LU, pivots)`` or, with ``get_infos``, ``(LU, pivots, infos)``."""
    LU, pivots, info = _core._linalg_lu_factor_ex(A, pivot, False)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve`` with b first."""
    return _core._linalg_lu_solve(LU_data, LU_pivots, b, True, False)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False) -> tuple:
    """``torch.triangular_solve`` (deprecated in PyTorch): ``(solution, cloned_coefficient)``
    with the solution of ``A X = b`` (``A^T X = b`` when ``transpose``)."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be removed in a "
        "future PyTorch release.",
        UserWarning,
        stacklevel=2,
    )
    coefficient = A.transpose(-2, -1) if transpose else A
    x = _core._linalg_solve_triangular(coefficient, b, upper != transpose, True, unitriangular)
    return rt.triangular_solve(x, A.clone())


def install() -> None:
    """Adds the linalg Tensor methods."""
    Tensor.inverse = inverse  # type: ignore[attr-defined]
    Tensor.det = det  # type: ignore[attr-defined]
    Tensor.logdet = logdet  # type: ignore[attr-defined]
    Tensor.slogdet = slogdet  # type: ignore[attr-defined]
    Tensor.cholesky = cholesky  # type: ignore[attr-defined]
    Tensor.qr = qr  # type: ignore[attr-defined]
    Tensor.symeig = symeig  # type: ignore[attr-defined]
    Tensor.eig = eig  # type: ignore[attr-defined]
    Tensor.lstsq = lstsq  # type: ignore[attr-defined]
    Tensor.solve = solve  # type: ignore[attr-defined]
    Tensor.cholesky_solve = cholesky_solve  # type: ignore[attr-defined]
    Tensor.cholesky_inverse = cholesky_inverse  # type: ignore[attr-defined]
    Tensor.lu = lu  # type: ignore[attr-defined]
    Tensor.lu_solve = lu_solve  # type: ignore[attr-defined]
    Tensor.triangular_solve = triangular_solve  # type: ignore[attr-defined]
    Tensor.svd = svd  # type: ignore[attr-defined]
    Tensor.pinverse = pinverse  # type: ignore[attr-defined]
    Tensor.matrix_power = matrix_power  # type: ignore[attr-defined]
    Tensor.matrix_exp = matrix_exp  # type: ignore[attr-defined]
    Tensor.cross = cross  # type: ignore[attr-defined]


__all__ = [
    "chain_matmul",
    "cholesky",
    "cross",
    "matrix_exp",
    "matrix_power",
    "pinverse",
    "eig",
    "lstsq",
    "matrix_rank",
    "qr",
    "solve",
    "svd",
    "symeig",
    "cholesky_inverse",
    "cholesky_solve",
    "det",
    "inverse",
    "logdet",
    "lu",
    "lu_solve",
    "lu_unpack",
    "slogdet",
    "triangular_solve",
]

"""The few matrix routines MultivariateNormal needs: Cholesky, triangular solves and
positive-definiteness checks. They use ``torch.linalg`` when the build has it and
otherwise fall back to loops over rows in differentiable tensor ops (matrices in
distributions are small, so n Python steps are cheap)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ferrotorch as torch


def _linalg(name: str) -> Any:
    return getattr(getattr(torch, "linalg", None), name, None)


def cholesky(matrix: torch.Tensor) -> torch.Tensor:
    """Lower Cholesky factor of a batch of symmetric positive-definite matrices."""
    native = _linalg("cholesky")
    if native is not None:
        return native(matrix)
    n = matrix.shape[-1]
    rows_at_or_below = [torch.arange(n) >= j for j in range(n)]
    columns: list = []
    for j in range(n):
        v = matrix[..., :, j]
        if j > 0:
            done = torch.stack(columns, -1)
            v = v - (done @ done[..., j, :].unsqueeze(-1)).squeeze(-1)
        pivot = v[..., j]
        if not bool((pivot > 0).all()):
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {j + 1} is not positive-definite)."
            )
        columns.append(torch.where(rows_at_or_below[j], v / pivot.sqrt().unsqueeze(-1), 0.0))
    return torch.stack(columns, -1)


def solve_triangular(tri: torch.Tensor, rhs: torch.Tensor, *, upper: bool) -> torch.Tensor:
    """Solves ``tri @ X = rhs`` for a batch of triangular matrices (batch dims broadcast)."""
    native = _linalg("solve_triangular")
    if native is not None:
        return native(tri, rhs, upper=upper)
    n = tri.shape[-1]
    order = range(n - 1, -1, -1) if upper else range(n)
    solved: dict = {}
    for i in order:
        row = rhs[..., i, :]
        known = sorted(solved)
        if known:
            coeffs = torch.stack([tri[..., i, k] for k in known], -1).unsqueeze(-2)
            row = row - (coeffs @ torch.stack([solved[k] for k in known], -2)).squeeze(-2)
        solved[i] = row / tri[..., i, i].unsqueeze(-1)
    return torch.stack([solved[i] for i in range(n)], -2)


def cholesky_inverse(tril: torch.Tensor) -> torch.Tensor:
    """``(L @ L.mT)^-1`` from the lower Cholesky factor ``L``."""
    native = getattr(torch, "cholesky_inverse", None)
    if native is not None:
        return native(tril)
    eye = torch.eye(tril.shape[-1], dtype=tril.dtype).expand(tril.shape)
    inv = solve_triangular(tril, eye, upper=False)
    return inv.mT @ inv


def _batch_matrices(value: torch.Tensor) -> np.ndarray:
    arr = np.asarray(value.detach().double().contiguous().numpy())
    return arr.reshape((-1,) + arr.shape[-2:])


def cholesky_succeeds(value: torch.Tensor) -> torch.Tensor:
    """A bool tensor of the batch shape: which matrices have a Cholesky factor."""
    ok = []
    for m in _batch_matrices(value):
        try:
            np.linalg.cholesky(m)
            ok.append(bool(np.isfinite(m).all()))
        except np.linalg.LinAlgError:
            ok.append(False)
    return torch.tensor(ok, dtype=torch.bool).reshape(tuple(value.shape[:-2]))


def smallest_eigenvalue_nonnegative(value: torch.Tensor) -> torch.Tensor:
    """A bool tensor of the batch shape: which symmetric matrices are positive semidefinite."""
    ok = []
    for m in _batch_matrices(value):
        ok.append(bool(np.isfinite(m).all()) and bool(np.linalg.eigvalsh(m).min(initial=0.0) >= 0))
    return torch.tensor(ok, dtype=torch.bool).reshape(tuple(value.shape[:-2]))


def logdet_positive_definite(matrix: torch.Tensor) -> torch.Tensor:
    """``log det`` of symmetric positive-definite matrices via their Cholesky factor."""
    return 2 * cholesky(matrix).diagonal(dim1=-2, dim2=-1).log().sum(-1)


def cholesky_solve(rhs: torch.Tensor, tril: torch.Tensor) -> torch.Tensor:
    """Solves ``(L @ L.mT) X = rhs`` given the lower Cholesky factor ``L``."""
    native = getattr(torch, "cholesky_solve", None)
    if native is not None:
        return native(rhs, tril)
    batch = tuple(torch.broadcast_shapes(tuple(rhs.shape[:-2]), tuple(tril.shape[:-2])))
    n = tril.shape[-1]
    tril = tril.expand(batch + (n, n))
    y = solve_triangular(tril, rhs.expand(batch + tuple(rhs.shape[-2:])), upper=False)
    return solve_triangular(tril.mT, y, upper=True)

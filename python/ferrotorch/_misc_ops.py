"""Everyday helpers built on the core ops: allclose/isclose/equal, diag/trace/diff,
addmm/addcmul/addcdiv, unique/bincount/median, logit."""

from __future__ import annotations

from typing import Any, Optional

from . import _core, return_types

Tensor = _core.Tensor


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (infinities equal when equal)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose: {input.dtype} did not match {other.dtype}")
    a, b = input.double() if input.is_floating_point() else input, other.double() if other.is_floating_point() else other
    close = (a == b) | ((a - b).abs() <= atol + rtol * b.abs())
    if equal_nan and input.is_floating_point():
        close = close | (a.isnan() & b.isnan())
    return close


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element is close (see ``isclose``)."""
    return bool(isclose(input, other.to(input.dtype) if other.dtype != input.dtype else other, rtol, atol, equal_nan).all().item())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when shapes and values are equal."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all().item())


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """1-D input: a matrix with it on a diagonal; 2-D input: that diagonal."""
    if input.ndim == 2:
        return input.diagonal(diagonal)
    if input.ndim != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    n = input.shape[0] + abs(diagonal)
    out = _core.zeros(n, n, dtype=input.dtype)
    r = _core.arange(input.shape[0]) + max(-diagonal, 0)
    c = _core.arange(input.shape[0]) + max(diagonal, 0)
    return out.index_put((r, c), input)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    n = input.shape[-1] + abs(offset)
    eye = _core.eye(n, dtype=input.dtype)
    if offset:
        eye = diag(_core.ones(input.shape[-1], dtype=input.dtype), offset)
    idx = diag(_core.arange(1, input.shape[-1] + 1, dtype=input.dtype), offset)
    picked = (idx - 1).clamp_min(0).long()
    return input.unsqueeze(-2).expand(*input.shape[:-1], n, input.shape[-1]).gather(-1, picked.expand(*input.shape[:-1], n, n)) * eye


def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None, append: Optional[Tensor] = None) -> Tensor:
    """n-th forward difference along ``dim``."""
    x = input
    if prepend is not None or append is not None:
        x = _core.cat([t for t in (prepend, x, append) if t is not None], dim)
    for _ in range(n):
        size = x.shape[dim]
        x = x.narrow(dim, 1, size - 1) - x.narrow(dim, 0, size - 1)
    return x


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    return beta * input + alpha * mat1.mm(mat2)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    return beta * input + alpha * batch1.bmm(batch2)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    return beta * input + alpha * mat.mv(vec)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return input + value * tensor1 * tensor2


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return input + value * tensor1 / tensor2


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    x = input.clamp(eps, 1 - eps) if eps is not None else input
    return (x / (1 - x)).log()


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Any:
    """Unique values (sorted), optionally with inverse indices and counts."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) is not supported yet")
    flat = input.reshape(-1)
    vals = flat.tolist()
    uniq = __import__("builtins").sorted(set(vals))
    pos = {v: i for i, v in enumerate(uniq)}
    out = [_core.tensor(uniq, dtype=input.dtype) if uniq else _core.zeros(0, dtype=input.dtype)]
    if return_inverse:
        out.append(_core.tensor([pos[v] for v in vals], dtype=_core.int64).reshape(input.shape))
    if return_counts:
        counts = [0] * len(uniq)
        for v in vals:
            counts[pos[v]] += 1
        out.append(_core.tensor(counts, dtype=_core.int64))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """Counts of each non-negative integer (weighted sums with ``weights``)."""
    if input.ndim != 1 or input.is_floating_point():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and int(input.min().item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    n = max(minlength, int(input.max().item()) + 1 if input.numel() else 0)
    if weights is None:
        return _core.zeros(n, dtype=_core.int64).index_add(0, input, _core.ones(input.shape[0], dtype=_core.int64))
    w = weights if weights.is_floating_point() else weights.double()
    return _core.zeros(n, dtype=w.dtype if w.dtype == _core.float32 else _core.float64).index_add(0, input, w.to(_core.float64) if w.dtype != _core.float32 else w)


def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The lower median (of all elements, or along ``dim`` with its index)."""
    if dim is None:
        flat = input.reshape(-1)
        k = (flat.numel() - 1) // 2
        return flat.sort().values[k]
    v, i = input.sort(dim)
    k = (input.shape[dim] - 1) // 2
    vals, idx = v.narrow(dim, k, 1), i.narrow(dim, k, 1)
    if not keepdim:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return return_types.max(vals, idx)


def install() -> None:
    """Attaches the method forms to Tensor."""
    for f in (isclose, allclose, equal, diag, trace, diff, addmm, baddbmm, addmv, addcmul, addcdiv, logit, unique, bincount, median, diag_embed):
        setattr(Tensor, f.__name__, f)

    def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
        return self.add_(tensor1 * tensor2, alpha=value)

    def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
        return self.add_(tensor1 / tensor2, alpha=value)

    def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return self.copy_(addmm(self, mat1, mat2, beta=beta, alpha=alpha))

    Tensor.addcmul_ = addcmul_  # type: ignore[attr-defined]
    Tensor.addcdiv_ = addcdiv_  # type: ignore[attr-defined]
    Tensor.addmm_ = addmm_  # type: ignore[attr-defined]
    Tensor.__round__ = lambda self, ndigits=None: self.round() if ndigits is None else self.round(decimals=ndigits)  # type: ignore[attr-defined]
    Tensor.__format__ = lambda self, spec: format(self.item(), spec) if self.ndim == 0 and spec else object.__format__(self, spec) if not spec else repr(self)  # type: ignore[method-assign]

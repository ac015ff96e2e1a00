"""Overloaded reductions with PyTorch's calling conventions: ``max``/``min`` (all, by dim, or
elementwise), ``sort``/``topk`` returning named tuples, ``var_mean``/``std_mean``."""

from __future__ import annotations

from typing import Any, Optional

from . import _core, return_types

Tensor = _core.Tensor


def _extreme(self: Tensor, dim: Any, keepdim: bool, is_max: bool) -> Any:
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor):
        return self.maximum(dim) if is_max else self.minimum(dim)
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        return self.amax() if is_max else self.amin()
    values, indices = self._max_dim(dim, keepdim, is_max)
    return (return_types.max if is_max else return_types.min)(values, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """``max(t)`` -> 0-d tensor; ``max(t, dim)`` -> (values, indices); ``max(a, b)`` -> maximum."""
    return _extreme(input, dim, keepdim, True)


def min(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """``min(t)`` -> 0-d tensor; ``min(t, dim)`` -> (values, indices); ``min(a, b)`` -> minimum."""
    return _extreme(input, dim, keepdim, False)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """Sorted values and their indices along ``dim`` (stable for equal keys)."""
    return return_types.sort(*input._sort(dim, descending))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    return return_types.topk(*input._topk(k, dim, largest))


def var_mean(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *, correction: Optional[float] = None) -> Any:
    """(variance, mean) in one call."""
    return input.var(dim, unbiased, keepdim, correction=correction), input.mean(dim if not isinstance(dim, bool) else None, keepdim)


def std_mean(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *, correction: Optional[float] = None) -> Any:
    """(standard deviation, mean) in one call."""
    return input.std(dim, unbiased, keepdim, correction=correction), input.mean(dim if not isinstance(dim, bool) else None, keepdim)


def install() -> None:
    """Attaches the method forms to Tensor."""
    Tensor.max = lambda self, dim=None, keepdim=False: _extreme(self, dim, keepdim, True)  # type: ignore[attr-defined]
    Tensor.min = lambda self, dim=None, keepdim=False: _extreme(self, dim, keepdim, False)  # type: ignore[attr-defined]
    Tensor.sort = sort  # type: ignore[attr-defined]
    Tensor.topk = topk  # type: ignore[attr-defined]

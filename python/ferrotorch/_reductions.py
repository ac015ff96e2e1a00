"""Overloaded reductions with PyTorch's calling conventions: ``max``/``min`` (all, by dim, or
elementwise), ``sort``/``topk``/``cummax``/``aminmax`` returning named tuples, ``var_mean``/
``std_mean``, ``median``, the NaN-skipping ``nansum``/``nanmean``, and module functions that accept a Python
number as their first argument (``pow(2, t)``, ``remainder(5, t)``, ``xlogy(2, t)``)."""

from __future__ import annotations

from typing import Any, Optional

from . import _core, return_types
from ._type_info import iinfo

Tensor = _core.Tensor


def _extreme(self: Tensor, dim: Any, keepdim: bool, is_max: bool) -> Any:
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor):
        return self.maximum(dim) if is_max else self.minimum(dim)
    if dim is None:
        if self.is_complex():
            kind = "ComplexFloat" if self.dtype.itemsize == 8 else "ComplexDouble"
            raise NotImplementedError(f'"{name}_all" not implemented for \'{kind}\'')
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        return self.amax() if is_max else self.amin()
    values, indices = self._max_dim(dim, keepdim, is_max)
    return (return_types.max if is_max else return_types.min)(values, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, other: Any = None) -> Any:
    """``max(t)`` -> 0-d tensor; ``max(t, dim)`` -> (values, indices); ``max(a, b)`` -> maximum.

    >>> max(tensor([[1, 5], [7, 2]]), 1).indices.tolist()
    [1, 0]
    """
    return _extreme(input, other if other is not None else dim, keepdim, True)


def min(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, other: Any = None) -> Any:
    """``min(t)`` -> 0-d tensor; ``min(t, dim)`` -> (values, indices); ``min(a, b)`` -> minimum."""
    return _extreme(input, other if other is not None else dim, keepdim, False)


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


def cummax(input: Tensor, dim: int) -> Any:
    """Running maximum along ``dim`` and the index it came from (ties take the later index).

    >>> cummax(tensor([1, 3, 2, 3]), 0).indices.tolist()
    [0, 1, 1, 3]
    """
    return return_types.cummax(*input._cum_extreme(dim, True))


def cummin(input: Tensor, dim: int) -> Any:
    """Running minimum along ``dim`` and the index it came from."""
    return return_types.cummin(*input._cum_extreme(dim, False))


def aminmax(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """``(min, max)`` of the whole tensor or along ``dim``, as a named tuple."""
    if input.is_complex():
        kind = "ComplexFloat" if input.dtype.itemsize == 8 else "ComplexDouble"
        raise TypeError(f"aminmax not implemented for {kind}")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        lo, hi = input.amin(), input.amax()
        if keepdim:
            shape = [1] * input.ndim
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        return return_types.aminmax(lo, hi)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    return return_types.aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def _nan_zeroed(input: Tensor) -> Tensor:
    if not input.dtype.is_floating_point:
        return input
    return input.masked_fill(input.isnan(), 0)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum treating NaN as zero.

    >>> nansum(tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """
    # The dims are checked one by one, range then repeat (before the dtype): [0, 0, 3] of a 3-d
    # input is a repeated 0, not an out-of-range 3, as PyTorch's nansum reports.
    n = input.ndim or 1  # this module's max() is torch.max
    seen = set()
    for d in [] if dim is None else ([dim] if isinstance(dim, int) else list(dim)):
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        if d % n in seen:
            raise RuntimeError(f"dim {d % n} appears multiple times in the list of dims")
        seen.add(d % n)
    if input.is_complex():
        raise NotImplementedError("nansum on CPU does not support complex inputs")
    x = _nan_zeroed(input)
    if dim is None and keepdim:
        dim = tuple(range(input.ndim))
    return x.sum(dim, keepdim, dtype=dtype) if dim is not None else x.sum(dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean over the non-NaN elements (NaN where all are NaN)."""
    if not (input.dtype.is_floating_point or input.is_complex()) and dtype is None:
        raise NotImplementedError(f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype}")
    if dim is None and keepdim:
        dim = tuple(range(input.ndim))
    # The count first: its sum checks the dims (all ranges, then repeats) before nansum
    # refuses a complex input, as in PyTorch's nanmean.
    count = (~input.isnan()).sum(dim, keepdim) if dim is not None else (~input.isnan()).sum()
    return nansum(input, dim, keepdim, dtype=dtype) / count


def positive(input: Tensor) -> Tensor:
    """``+t``: the tensor itself (bool tensors are rejected, as in PyTorch)."""
    if input.dtype == _core.bool:
        raise RuntimeError("positive: The `+` operator, on a bool tensor is not supported.")
    return input


def _wrap_scalar_self(value: Any, other: Tensor) -> Tensor:
    # A Python number first operand: a 0-d tensor promotes exactly like a Python scalar.
    return _core.tensor(value, device=other.device)


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``; ``input`` may be a Python number when ``exponent`` is a tensor."""
    if isinstance(input, Tensor):
        return input.pow(exponent)
    return exponent.__rpow__(input)


def remainder(input: Any, other: Any) -> Tensor:
    """Python-style modulus (sign of the divisor); ``input`` may be a Python number."""
    if isinstance(input, Tensor):
        return input.remainder(other)
    return other.__rmod__(input)


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    if isinstance(input, Tensor):
        return input.xlogy(other)
    return _wrap_scalar_self(input, other).xlogy(other)


def _empty_median(dtype: Any) -> Any:
    """PyTorch's median of no elements: NaN converted to the dtype as x86 does it (through a
    32-bit integer, so int64/int32 get their lowest value and narrower types its low bits, 0)."""
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype == _core.bool:
        return True
    return iinfo(dtype).min if dtype in (_core.int64, _core.int32) else 0


def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The lower median: of all elements (0-d), or along ``dim`` with its index. NaN wins, as
    in PyTorch: a slice holding NaN has median NaN at the index of its first NaN."""
    if dim is None and input.numel() == 0:
        return _core.full((), _empty_median(input.dtype), dtype=input.dtype)
    if input.dtype == _core.bool or (input.is_complex() and input.numel()):
        n = input.ndim or 1  # this module's max() is torch.max
        if dim is not None and not -n <= dim < n:
            raise IndexError(f"median(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        if dim is not None and input.ndim and input.shape[dim] == 0:
            # The reduced dim's size is checked before the dtype.
            raise IndexError(f"median(): Expected reduction dim {dim % n} to have non-zero size.")
        kernel = "median_cpu" if dim is None else "median_out"
        kind = "Bool" if input.dtype == _core.bool else ("ComplexFloat" if input.dtype.itemsize == 8 else "ComplexDouble")
        raise NotImplementedError(f"median: \"{kernel}\" not implemented for '{kind}'")
    if dim is None:
        flat = input.reshape(-1)
        nans = int(flat.isnan().sum().item()) if flat.is_floating_point() else 0
        k = flat.numel() - nans if nans else (flat.numel() - 1) // 2
        return flat.sort(stable=True).values[k]
    if input.is_complex() and dim is not None:
        # An empty complex input: the reduced dim's size is checked before the dtype.
        d = dim + input.ndim if dim < 0 else dim
        if input.ndim > 0 and 0 <= d < input.ndim and input.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
        kind = "ComplexFloat" if input.dtype.itemsize == 8 else "ComplexDouble"
        raise NotImplementedError(f"median: \"median_out\" not implemented for '{kind}'")
    if input.ndim == 0:  # dim must be -1 or 0 (sort checks it); the element is its own median
        v, i = input.sort(dim)
        return return_types.median(v, i)
    v, i = input.sort(dim, stable=True)
    n = input.shape[dim]
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    k = _core.full_like(input.narrow(dim, 0, 1), (n - 1) // 2, dtype=_core.int64)
    if input.is_floating_point():
        nans = input.isnan().sum(dim, keepdim=True)
        k = _core._where3(nans > 0, n - nans, k)
    vals, idx = v.gather(dim, k), i.gather(dim, k)
    if not keepdim:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return return_types.median(vals, idx)


def install() -> None:
    """Attaches the method forms to Tensor."""
    Tensor.cummax = cummax  # type: ignore[attr-defined]
    Tensor.cummin = cummin  # type: ignore[attr-defined]
    Tensor.aminmax = aminmax  # type: ignore[attr-defined]
    Tensor.nansum = nansum  # type: ignore[attr-defined]
    Tensor.nanmean = nanmean  # type: ignore[attr-defined]
    Tensor.positive = positive  # type: ignore[attr-defined]
    Tensor.max = lambda self, dim=None, keepdim=False: _extreme(self, dim, keepdim, True)  # type: ignore[attr-defined]
    Tensor.min = lambda self, dim=None, keepdim=False: _extreme(self, dim, keepdim, False)  # type: ignore[attr-defined]
    Tensor.sort = sort  # type: ignore[attr-defined]
    Tensor.topk = topk  # type: ignore[attr-defined]
    Tensor.median = median  # type: ignore[attr-defined]

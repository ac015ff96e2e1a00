"""Distinct values and their counts: ``unique``, ``unique_consecutive``, ``bincount``.

``unique`` sorts (stably), marks where a run of equal values starts and numbers the runs, so
inverse indices and counts come from the same pass; over ``dim`` the slices are sorted
lexicographically, one stable sort per column from the last."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core

Tensor = _core.Tensor


def _run_starts(rows: Tensor) -> Tensor:
    """Bool per row: True where it differs from the row before (the first row always starts)."""
    n = rows.shape[0]
    starts = _core.ones(n, dtype=_core.bool)
    if n > 1:
        differs = rows[1:] != rows[:-1]
        if differs.ndim > 1:
            differs = differs.any(1)
        starts[1:] = differs
    return starts


def _runs(rows: Tensor, order: Optional[Tensor], return_inverse: bool, return_counts: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """(first row of each run, inverse index per original row, run lengths) of grouped rows."""
    n = rows.shape[0]
    starts = _run_starts(rows)
    firsts = rows[starts]
    inverse = counts = _core.zeros(0, dtype=_core.int64)
    if return_inverse:
        group = starts.long().cumsum(0) - 1
        inverse = group if order is None else _core.zeros(n, dtype=_core.int64).index_put((order,), group)
    if return_counts:
        begin = starts.nonzero().reshape(-1)
        counts = _core.cat([begin[1:], _core.tensor([n])]) - begin
    return firsts, inverse, counts


def _as_sortable(t: Tensor) -> Tensor:
    return t.to(_core.uint8) if t.dtype == _core.bool else t


def _lexsort_rows(rows: Tensor) -> Tensor:
    """Permutation that sorts the rows of a 2-D tensor lexicographically (stable)."""
    order = _core.arange(rows.shape[0])
    keys = _as_sortable(rows)
    for col in reversed(range(rows.shape[1])):
        order = order[keys[order, col].sort(stable=True).indices]
    return order


def _pack(values: Tensor, inverse: Tensor, counts: Tensor, return_inverse: bool, return_counts: bool) -> Any:
    out = [values] + ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)


def _rows_along(input: Tensor, dim: int, op: str) -> Tensor:
    if any(s == 0 for i, s in enumerate(input.shape) if i != dim):
        raise RuntimeError(f"{op}: There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    rest = 1
    for i, s in enumerate(input.shape):
        rest *= s if i != dim else 1
    return input.movedim(dim, 0).reshape(input.shape[dim], rest)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Any:
    """The distinct values (or slices along ``dim``) in ascending order, optionally with the
    index of each input element's value in the result and the count of each value.

    >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    if input.is_complex():
        kind = "ComplexFloat" if input.dtype.itemsize == 8 else "ComplexDouble"
        raise NotImplementedError(f'"{"unique" if dim is None else "unique_dim"}" not implemented for \'{kind}\'')
    if dim is None:
        flat = input.reshape(-1)
        sorted_vals, order = _as_sortable(flat).sort(stable=True)
        firsts, inverse, counts = _runs(flat[order], order, return_inverse, return_counts)
        return _pack(firsts, inverse.reshape(input.shape) if return_inverse else inverse, counts, return_inverse, return_counts)
    dim = dim + input.ndim if dim < 0 else dim
    if not 0 <= dim < max(input.ndim, 1):
        raise IndexError(f"unique: Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got {dim})")
    rows = _rows_along(input, dim, "unique")
    order = _lexsort_rows(rows)
    firsts, inverse, counts = _runs(rows[order], order, return_inverse, return_counts)
    rest = [s for i, s in enumerate(input.shape) if i != dim]
    values = firsts.reshape(firsts.shape[0], *rest).movedim(0, dim)
    return _pack(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Any:
    """Collapses each run of consecutive equal values (or slices along ``dim``) to one.

    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
    tensor([1, 2, 1])
    """
    if dim is None:
        firsts, inverse, counts = _runs(input.reshape(-1), None, return_inverse, return_counts)
        return _pack(firsts, inverse.reshape(input.shape) if return_inverse else inverse, counts, return_inverse, return_counts)
    dim = dim + input.ndim if dim < 0 else dim
    rows = _rows_along(input, dim, "unique_consecutive")
    firsts, inverse, counts = _runs(rows, None, return_inverse, return_counts)
    rest = [s for i, s in enumerate(input.shape) if i != dim]
    return _pack(firsts.reshape(firsts.shape[0], *rest).movedim(0, dim), inverse, counts, return_inverse, return_counts)


# PyTorch's C++ names of the dtypes bincount has no kernel for, as its error spells them.
_KERNEL_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """Counts of each non-negative integer (weighted sums with ``weights``)."""
    if input.is_floating_point() or input.is_complex() or input.dtype == _core.bool:
        name = _KERNEL_TYPE_NAMES[str(input.dtype).split(".")[-1]]
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{name}\'')
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    # Any integer dtype counts; index_add takes int64 positions.
    input = input.long()
    if input.numel() and int(input.min().item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    top = int(input.max().item()) if input.numel() else -1
    if top == 2**63 - 1:
        raise RuntimeError(f"bincount(): maximum value of input overflowed, it should be < {top} but got {top}")
    n = max(minlength, top + 1)
    if weights is None:
        return _core.zeros(n, dtype=_core.int64).index_add(0, input, _core.ones(input.shape[0], dtype=_core.int64))
    # float32 weights keep their dtype; every other weight dtype sums in float64, as PyTorch.
    out_dtype = _core.float32 if weights.dtype == _core.float32 else _core.float64
    return _core.zeros(n, dtype=out_dtype).index_add(0, input, weights.to(out_dtype))


METHODS = (unique, unique_consecutive, bincount)

"""``Tensor.dim_order``: the order of the dimensions from outermost to innermost in memory,
worked out from the strides the way PyTorch does (a contiguous or channels-last fast path, else
an insertion sort whose comparison can say "either order"), with its ambiguity checks."""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple, Union

from . import _core

Tensor = _core.Tensor

_CHANNELS_LAST_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def _dense_in_order(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """Whether the dims in ``order`` (innermost first) have packed strides, size-1 dims skipped."""
    expected = 1
    for d in order:
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _is_contiguous_as(t: Tensor, fmt: str) -> bool:
    shape, strides = tuple(t.shape), tuple(t.stride())
    if fmt == "contiguous_format":
        return t.numel() < 2 or _dense_in_order(shape, strides, tuple(reversed(range(len(shape)))))
    if fmt in ("channels_last", "channels_last_3d"):
        n = 4 if fmt == "channels_last" else 5
        return len(shape) == n and _dense_in_order(shape, strides, _CHANNELS_LAST_ORDER[n])
    raise RuntimeError(f"dim_order: unsupported memory format {fmt}")


def _order_between(shape: Sequence[int], strides: Sequence[int], a: int, b: int) -> int:
    """1 if dim ``a`` should move inwards of ``b``, -1 if it stays outward, 0 if either will do."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0

    def at_least(x: int, y: int) -> bool:
        return y == 0 or (x != 0 and (x >= y or x % y == 0))

    if sa == sb:
        return 0 if at_least(shape[b], shape[a]) else 1
    if at_least(sb, sa):
        return -1
    return 1 if at_least(sa, sb) else 0


def _physical_order(t: Tensor) -> Tuple[List[int], bool]:
    """The dims outermost first, and whether the order is not forced by the strides."""
    shape, strides, ndim = tuple(t.shape), tuple(t.stride()), t.dim()
    if ndim == 0:
        return [], False
    if ndim == 1:
        return [0], False
    contiguous = _is_contiguous_as(t, "contiguous_format")
    channels_last = _is_contiguous_as(t, "channels_last")
    if contiguous and not channels_last:
        return list(range(ndim)), False
    if channels_last and not contiguous:
        return [0, *range(2, ndim), 1], False
    # Innermost first: an insertion sort that stops at a definite "stay" and keeps ties.
    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        moving = i
        for j in reversed(range(i)):
            cmp = _order_between(shape, strides, perm[j], perm[moving])
            if cmp > 0:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif cmp < 0:
                break
    ambiguous = any(_order_between(shape, strides, perm[i], perm[i + 1]) != -1 for i in range(ndim - 1))
    return list(reversed(perm)), ambiguous


def dim_order(self: Tensor, *, ambiguity_check: Union[bool, List[Any]] = False) -> Tuple[int, ...]:
    """The dimensions from outermost to innermost in memory. With ``ambiguity_check=True`` a
    tensor whose order is not unique (size-1 dims, equal strides) raises RuntimeError; a list
    of memory formats accepts it when it matches exactly one of them."""
    formats = [str(f).split(".")[-1] for f in ambiguity_check] if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("dim_order(): ambiguity_check must be a bool or a list of memory formats")
    shape, strides = tuple(self.shape), tuple(self.stride())
    several = any(a == b for a, b in zip(strides, strides[1:])) or any(n == 1 for n in shape)
    if check and several and sum(_is_contiguous_as(self, f) for f in formats) != 1:
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
        )
    order, ambiguous = _physical_order(self)
    if ambiguity_check and ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


__all__: Tuple[str, ...] = ()
METHODS: Tuple[Any, ...] = (dim_order,)

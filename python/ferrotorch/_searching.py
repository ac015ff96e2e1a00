"""Searching sorted sequences: ``searchsorted``, ``bucketize``, ``isin``.

The position of a value in a sorted row is the number of row elements before it: for small
problems one broadcast comparison counts them; for large ones the values and the row are
sorted together (stably, so ties fall on the requested side) and the row elements ahead of
each value are counted with a cumulative sum, O((n + m) log(n + m)) instead of O(n * m)."""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from ._op_entry import op_entry
from ._scalar_args import check_scalar_int
from ._statistics_util import kind, write_out

Tensor = _core.Tensor

# Above this many value/boundary pairs, merge by sorting instead of comparing all pairs.
_BROADCAST_LIMIT = 1 << 16


def _count_by_compare(seq: Tensor, values: Tensor, right: bool) -> Tensor:
    """Row elements before each value, from all pairwise comparisons (``seq`` is (..., m),
    ``values`` (..., n) with the same leading dims, or ``seq`` 1-D)."""
    v = values.unsqueeze(-1)
    s = seq if seq.ndim == 1 else seq.unsqueeze(-2)
    # not(s >= v) rather than s < v: a NaN value lands after every element, as PyTorch's bisection.
    before = (s > v).logical_not() if right else (s >= v).logical_not()
    return before.sum(-1)


def _count_by_merge(seq: Tensor, values: Tensor, right: bool) -> Tensor:
    """As ``_count_by_compare``, by one stable sort of each row merged with its values."""
    m = seq.shape[-1]
    shape = tuple(values.shape)
    if seq.ndim == 1:
        v2, s2 = values.reshape(1, -1), seq.reshape(1, m)
    else:
        v2, s2 = values.reshape(-1, shape[-1]), seq.reshape(-1, m)
    rows, n = v2.shape
    is_value = _core.cat([_core.zeros(rows, m, dtype=_core.bool), _core.ones(rows, n, dtype=_core.bool)], -1)
    # Boundaries first on the right side, values first on the left: the stable sort then
    # places a value after (right) or before (left) the boundaries equal to it.
    if right:
        merged = _core.cat([s2, v2], -1)
    else:
        merged = _core.cat([v2, s2], -1)
        is_value = is_value.flip(-1)
    order = merged.sort(-1, stable=True).indices
    flags = is_value.gather(-1, order)
    seen = flags.logical_not().long().cumsum(-1)
    back = _core.zeros(rows, n + m, dtype=_core.int64).scatter(-1, order, seen)
    counts = back[:, m:] if right else back[:, :n]
    if values.is_floating_point():  # NaN sorts last but PyTorch puts it after every element
        counts = counts.masked_fill(v2.isnan(), m)
    return counts.reshape(shape)


def _search(seq: Tensor, values: Tensor, right: bool) -> Tensor:
    if values.numel() * seq.shape[-1] <= _BROADCAST_LIMIT or values.ndim == 0:
        return _count_by_compare(seq, values, right)
    return _count_by_merge(seq, values, right)


# Integer dtypes: (bits, signed), to wrap a Python int into one as a C++ cast does.
_INT_BITS = {"uint8": (8, False), "int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True)}


def _scalar_values(seq: Tensor, value: Any) -> Tensor:
    """A Python number searched for in ``seq``, as the 0-d tensor PyTorch makes of it: a wrapped
    number, so it takes ``seq``'s dtype within the same category (an int into an integer
    ``seq`` is cast with wraparound: -4 is 252 in uint8) and the default dtype's category above."""
    name = str(seq.dtype).split(".")[-1]
    if isinstance(value, int) and not isinstance(value, bool):
        if name in _INT_BITS:
            bits, signed = _INT_BITS[name]
            v = value % (1 << bits)
            if signed and v >= 1 << (bits - 1):
                v -= 1 << bits
            return _core.tensor(v, dtype=seq.dtype, device=seq.device)
        if value >= 2**63 and seq.dtype == _core.bool:
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and UInt64")
    dtype = _core.result_type(seq, value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2**63:
        # Beyond int64 (PyTorch's uint64 number): only a float dtype holds it.
        return _core.tensor(value, dtype=_core.float64, device=seq.device).to(dtype)
    return _core.tensor(value, device=seq.device).to(dtype)


def _common_dtype(a: Tensor, b: Tensor) -> tuple:
    # PyTorch's result_type: a 0-d side counts only from a higher category (an int64 0-d value
    # searched in uint8 boundaries is cast to uint8, wrapping).
    dtype = _core.result_type(a, b)
    return a.to(dtype), b.to(dtype)


@op_entry("searchsorted")
def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False, side: Optional[str] = None, out: Optional[Tensor] = None, sorter: Optional[Tensor] = None) -> Tensor:
    """Indices at which ``input`` would be inserted into the innermost dimension of
    ``sorted_sequence`` to keep it sorted (the first such place, or the last with
    ``right=True`` / ``side="right"``). ``input`` may be a Python number (0-d result).

    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6]))
    tensor([1, 3])
    """
    op = "torch.searchsorted()"
    check_scalar_int(input)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{op}: side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(f"{op}: side and right can't be set to opposites, got side of left while right was True")
        right = side == "right"
    if sorted_sequence.ndim == 0:
        raise RuntimeError(f"{op}: boundaries tensor should have positive dimension, but got 0 dimension")
    scalar = not isinstance(input, Tensor)
    values = _scalar_values(sorted_sequence, input) if scalar else input
    if sorted_sequence.ndim > 1:
        if scalar or values.ndim == 0:
            raise RuntimeError(f"{op}: input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim({sorted_sequence.ndim}) and input value's dim({values.ndim}) numel({values.numel()})")
        if tuple(sorted_sequence.shape[:-1]) != tuple(values.shape[:-1]):
            raise RuntimeError(f"{op}: boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {list(sorted_sequence.shape)} and input value tensor {list(values.shape)}")
    if sorter is not None:
        if sorter.dtype != _core.int64:
            raise RuntimeError(f"{op}: sorter must be a tensor of long dtype but got dtype {kind(sorter.dtype)}")
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError(f"{op}: boundary and sorter must have the same size, but got boundary tensor {list(sorted_sequence.shape)}and got sorter tensor {list(sorter.shape)}")
    seq = sorted_sequence if sorter is None else sorted_sequence.gather(-1, sorter)
    seq, values = _common_dtype(seq.detach(), values.detach())
    # The kernel runs on the common dtype (a bool side with an int side is fine) and not at
    # all for empty input values.
    if (seq.dtype == _core.bool or seq.is_complex()) and values.numel():
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{kind(seq.dtype)}'")
    if values.numel() == 0:
        # No kernel runs, so no comparison of the common dtype (complex has none) is needed.
        result = _core.zeros(tuple(values.shape), dtype=_core.int64, device=values.device)
    else:
        result = _search(seq, values, right)
    if out_int32:
        result = result.to(_core.int32)
    return write_out(result, out, "searchsorted")


@op_entry("bucketize")
def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Optional[Tensor] = None) -> Tensor:
    """The bucket of each element of ``input`` among the sorted 1-D ``boundaries``: with
    ``right=False`` element ``x`` goes to ``i`` where ``boundaries[i-1] < x <= boundaries[i]``.

    >>> torch.bucketize(torch.tensor([3, 6]), torch.tensor([1, 3, 5, 7]))
    tensor([1, 3])
    """
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


@op_entry("isin")
def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False, out: Optional[Tensor] = None) -> Tensor:
    """Bool tensor of ``elements``' shape: True where the element occurs in ``test_elements``
    (or the opposite with ``invert=True``). Either argument may be a Python number.

    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    e_is_t, t_is_t = isinstance(elements, Tensor), isinstance(test_elements, Tensor)
    if not (e_is_t or t_is_t):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, {type(test_elements).__name__}), but expected at least one Tensor")
    like = elements if e_is_t else test_elements
    for v in (elements, test_elements):
        check_scalar_int(v)
    # A Python bool or complex number is refused by its own type, as a bool/complex tensor is.
    for v in (elements, test_elements):
        if isinstance(v, (bool, complex)):
            raise NotImplementedError(f"Unsupported input type encountered for isin(): {'Bool' if isinstance(v, bool) else 'ComplexDouble'}")
    if like.dtype == _core.bool or like.is_complex():
        raise NotImplementedError(f"Unsupported input type encountered for isin(): {kind(like.dtype)}")
    if not (e_is_t and t_is_t):
        # One side a number: compare with it directly (no tensor of it, which a number out of
        # the other's dtype's range could not make).
        tensor, number = (elements, test_elements) if e_is_t else (test_elements, elements)
        found = tensor.detach() == number
        if not e_is_t:
            found = found.any()
        if invert:
            found = found.logical_not()
        return write_out(found, out, "isin")
    dtype = _core.result_type(elements, test_elements) if e_is_t and t_is_t else _core.result_type(like, test_elements if e_is_t else elements)
    e = elements if e_is_t else _core.full((), elements, dtype=dtype, device=like.device)
    t = test_elements if t_is_t else _core.full((), test_elements, dtype=dtype, device=like.device)
    for x in (e, t):
        if x.dtype == _core.bool or x.is_complex():
            raise NotImplementedError(f"Unsupported input type encountered for isin(): {kind(x.dtype)}")
    e, t = e.detach().to(dtype), t.detach().to(dtype).reshape(-1)
    if t.numel() == 0:
        found = _core.zeros(tuple(e.shape), dtype=_core.bool, device=e.device)
    elif e.numel() * t.numel() <= _BROADCAST_LIMIT:
        found = (e.unsqueeze(-1) == t).any(-1)
    else:
        # Look every element up in the sorted test elements; equal there means present.
        st = t.sort().values
        pos = _search(st, e, False).clamp_max(t.numel() - 1)
        found = st[pos.reshape(-1)].reshape(tuple(e.shape)) == e
    if invert:
        found = found.logical_not()
    return write_out(found, out, "isin")


__all__ = ("searchsorted", "bucketize", "isin")
METHODS: tuple = ()

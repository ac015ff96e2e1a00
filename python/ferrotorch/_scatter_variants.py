"""Taking and putting by index: take, put/put_, masked_scatter(_), the ``*_scatter`` ops that
write ``src`` into a view of a copy (diagonal/select/slice), and scatter_reduce/index_reduce
with every reduction. Written over index_select/index_put/scatter_add (which carry autograd);
prod/amax/amin reductions run as one custom autograd node with PyTorch's gradient formulas.

(``scatter``'s own backward is avoided here: its gradient for ``self`` at the last written
position comes out as uninitialized memory in the current core.)"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from . import _core
from ._arranging import write_out
from ._broadcasting import broadcast_tensors
from ._op_entry import op_entry
from ._scalar_args import check_scalar_int
from ._splitting import type_name, wrap_dim

Tensor = _core.Tensor


def _first_bad(flat: Tensor, n: int) -> Optional[int]:
    """The first index (in order) outside [-n, n), or None."""
    if flat.numel() == 0:
        return None
    bad = (flat < -n) | (flat >= n)
    if not bool(bad.any().item()):
        return None
    return int(flat[bad][0].item())


def _wrapped(flat: Tensor, n: int) -> Tensor:
    return _core._where3(flat < 0, flat + n, flat)


def _working_copy(self: Tensor) -> Tensor:
    """What an in-place op computes from: ``self``, or a copy when autograd may save it (the
    result is written back into ``self``, which would invalidate a saved ``self``)."""
    return self.clone() if self.requires_grad else self


def _assign(self: Tensor, result: Tensor) -> Tensor:
    """Writes ``result`` into ``self`` in place (recorded by autograd, version bumped); refused,
    as PyTorch does after its argument checks, where elements of ``self`` share memory."""
    _check_no_internal_overlap(self)
    self[...] = result
    return self


def _check_no_internal_overlap(self: Tensor) -> None:
    """PyTorch's refusal to write into a tensor whose elements share memory (expanded)."""
    # An empty tensor has no element to share memory, expanded or not.
    if self.numel() and any(st == 0 and n > 1 for st, n in zip(self.stride(), self.shape)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
            "Please clone() the tensor before performing the operation."
        )


# ---------------------------------------------------------------------------------------------
# take / put


@op_entry("take")
def take(input: Tensor, index: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The elements of ``input`` read as 1-d (row-major) at ``index`` (negative counts from the
    end); the result has ``index``'s shape."""
    if index.dtype != _core.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {type_name(index)}")
    n = input.numel()
    flat = index.reshape(-1)
    if flat.numel() == 0:
        return write_out(input.reshape(-1)[:0].reshape(index.shape), out)
    if n == 0:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = _first_bad(flat, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return write_out(input.reshape(-1).index_select(0, _wrapped(flat, n)).reshape(index.shape), out)


def _put_checked(input: Tensor, index: Tensor, source: Tensor, inplace: bool = False) -> Tensor:
    """PyTorch's put_ checks in its order: dtypes, element counts, an empty destination, the
    destination's internal overlap (in place only), then the index range (in the kernel)."""
    if index.dtype != _core.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {type_name(index)}")
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = {type_name(input)} "
            f"and source.dtype = {type_name(source)}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    if n == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if inplace:
        _check_no_internal_overlap(input)
    flat = index.reshape(-1)
    bad = _first_bad(flat, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return flat


@op_entry("put")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with the elements at flat ``index`` (row-major) set to ``source``'s
    elements, or incremented by them when ``accumulate``."""
    return _put_values(input, _put_checked(input, index, source), source, accumulate)


def _put_values(input: Tensor, flat: Tensor, source: Tensor, accumulate: bool) -> Tensor:
    """``put`` once its arguments are checked (``flat`` the 1-d index)."""
    if flat.numel() == 0:
        return input.clone()
    n = input.numel()
    written = input.reshape(-1).index_put((_wrapped(flat, n),), source.reshape(-1), accumulate)
    return written.reshape(input.shape)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place ``put``."""
    flat = _put_checked(self, index, source, inplace=True)  # overlap refused before the range
    return _assign(self, _put_values(_working_copy(self), flat, source, accumulate))


# ---------------------------------------------------------------------------------------------
# masked_scatter


@op_entry("masked_scatter")
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` (broadcast with ``mask``) whose elements where ``mask`` is True are
    replaced, in row-major order, by the leading elements of ``source``."""
    if mask.dtype != _core.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {str(mask.dtype).split('.')[-1]}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{type_name(input)} and {type_name(source)}")
    x, m = broadcast_tensors(input, mask)
    flat_mask = m.reshape(-1)
    count = int(flat_mask.sum().item()) if flat_mask.numel() else 0
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count == 0:
        return x.clone()
    # Element i of the result takes source[(number of Trues up to i) - 1] where the mask is True.
    pos = (flat_mask.to(_core.int64).cumsum(0) - 1).clamp(min=0)
    picked = source.reshape(-1).index_select(0, pos).reshape(x.shape)
    return _core._where3(m, picked, x)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In-place ``masked_scatter``; ``mask`` must broadcast to ``self``'s shape."""
    if mask.dtype != _core.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {str(mask.dtype).split('.')[-1]}")
    return _assign(self, masked_scatter(_working_copy(self), mask.expand(list(self.shape)), source))


# ---------------------------------------------------------------------------------------------
# index_fill: PyTorch's argument checks in its order, then the core kernel

# The core's methods, taken before this module's wrappers replace them on Tensor.
_CORE_INDEX_FILL = _core.Tensor.index_fill
_CORE_INDEX_FILL_ = _core.Tensor.index_fill_
_FLOAT32_MAX = 3.4028234663852886e38


def _check_index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> None:
    """PyTorch's order: the number's conversion, a 0-d value tensor, the index dtype, a complex
    value into a non-complex self, the dim, the index rank, then the value's range (the core
    checks the range and the index values; alone, it would check the dim first and cast a
    complex value silently)."""
    check_scalar_int(value)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)."
            )
        complex_value = value.is_complex()
    else:
        complex_value = isinstance(value, complex)
    if index.dtype != _core.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if complex_value and not self.is_complex():
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise RuntimeError(f"index_fill_(): Index has to be a vector/scalar, got shape {list(index.shape)}")
    if self.dtype == _core.complex64 and isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        # The core stores an out-of-range value as inf; PyTorch refuses it.
        parts = (value.real, value.imag) if isinstance(value, complex) else (float(value),)
        if any(abs(p) > _FLOAT32_MAX and abs(p) != float("inf") for p in parts):
            raise RuntimeError("value cannot be converted to type c10::complex<float> without overflow")


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a
    number or a 0-d tensor)."""
    _check_index_fill(input, dim, index, value)
    return _CORE_INDEX_FILL(input, dim, index, value)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In-place ``index_fill``."""
    _check_index_fill(self, dim, index, value)
    return _CORE_INDEX_FILL_(self, dim, index, value)


# ---------------------------------------------------------------------------------------------
# src written into a view of a copy


def _scatter_into_view(input: Tensor, src: Tensor, view: Callable[[Tensor], Tensor]) -> Tensor:
    # The flat positions the view covers: the view applied to a tensor of flat indices.
    pos = view(_core.arange(input.numel()).reshape(input.shape))
    if tuple(src.shape) != tuple(pos.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(pos.shape)}"
        )
    if pos.numel() == 0:
        return input.clone()
    flat = input.reshape(-1).index_put((pos.reshape(-1),), src.to(input.dtype).reshape(-1))
    return flat.reshape(input.shape)


@op_entry("diagonal_scatter")
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    return _scatter_into_view(input, src, lambda t: t.diagonal(offset, dim1, dim2))


@op_entry("select_scatter")
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    return _scatter_into_view(input, src, lambda t: t.select(dim, index))


@op_entry("slice_scatter")
def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None, step: int = 1
) -> Tensor:
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    # PyTorch's order: a 0-d input, the dim, the step.
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into_view(input, src, lambda t: t[key])


# ---------------------------------------------------------------------------------------------
# scatter_reduce / index_reduce

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _flat_targets(shape: List[int], dim: int, index: Tensor) -> Tensor:
    """For each element of ``index``, the row-major flat position in a tensor of ``shape`` that
    it addresses (its own coordinates, with coordinate ``dim`` replaced by its value)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    flat = index * strides[dim]
    for d in range(index.ndim):
        if d != dim and index.shape[d] > 1:
            view = [1] * index.ndim
            view[d] = -1
            flat = flat + _core.arange(index.shape[d]).reshape(view) * strides[d]
    return flat.reshape(-1)


def _combine(reduce: str, dtype: Any) -> Callable[[Tensor, Tensor], Tensor]:
    if dtype == _core.bool:
        return (lambda a, b: a | b) if reduce == "amax" else (lambda a, b: a & b)
    if reduce == "prod":
        return lambda a, b: a * b
    return (lambda a, b: a.maximum(b)) if reduce == "amax" else (lambda a, b: a.minimum(b))


def _segment_reduce(base: Tensor, vals: Tensor, targets: Tensor, reduce: str, include_self: bool) -> Tensor:
    """``base`` (flat) with each position that ``targets`` hits replaced by the reduction of the
    ``vals`` aimed at it (and of its own value when ``include_self``). A stable sort groups the
    values by target; a segmented scan (log-depth doubling) then reduces each group, whose last
    element holds the group's reduction. No gradient is recorded."""
    n = base.numel()
    if include_self:
        vals = _core.cat([base, vals])
        targets = _core.cat([_core.arange(n), targets])
    order = targets.sort(stable=True).indices
    ts, vs = targets.index_select(0, order), vals.index_select(0, order)
    longest = int(_core.zeros(n, dtype=_core.int64).scatter_add(0, targets, _core.ones_like(targets)).max().item())
    op = _combine(reduce, vals.dtype)
    step = 1
    while step < longest:
        same = ts[step:] == ts[:-step]
        vs = _core.cat([vs[:step], _core._where3(same, op(vs[step:], vs[:-step]), vs[step:])])
        step *= 2
    last = _core.cat([ts[1:] != ts[:-1], _core.ones(1, dtype=_core.bool)])
    if include_self:
        return vs[last]
    return base.index_put((ts[last],), vs[last])


def _segment_function() -> Any:
    """The autograd node of scatter_reduce's prod/amax/amin (created on first use: the autograd
    package imports after this module)."""
    global _SEGMENT_FN
    if _SEGMENT_FN is not None:
        return _SEGMENT_FN
    from .autograd.function import Function

    class ScatterReduce(Function):
        @staticmethod
        def forward(ctx: Any, x: Tensor, src: Tensor, index: Tensor, dim: int, reduce: str, include_self: bool) -> Tensor:
            srcn = _narrow_to(src, index.shape)
            targets = _flat_targets(list(x.shape), dim, index)
            vals = srcn.reshape(-1)
            result = _segment_reduce(x.reshape(-1), vals, targets, reduce, include_self)
            ctx.save_for_backward(x, srcn, result)
            ctx.args = (targets, reduce, include_self, tuple(src.shape), tuple(index.shape))
            return result.reshape(x.shape)

        @staticmethod
        def backward(ctx: Any, grad: Tensor) -> Tuple[Any, ...]:
            x, srcn, result = ctx.saved_tensors
            targets, reduce, include_self, src_shape, index_shape = ctx.args
            gx, gs = _reduce_grads(x.reshape(-1), srcn.reshape(-1), result, grad.reshape(-1), targets, reduce, include_self)
            full = _core.zeros(list(src_shape), dtype=grad.dtype)
            if gs.numel():
                full[tuple(slice(0, s) for s in index_shape)] = gs.reshape(list(index_shape))
            return gx.reshape(x.shape), full, None, None, None, None

    _SEGMENT_FN = ScatterReduce
    return ScatterReduce


_SEGMENT_FN: Any = None


def _reduce_grads(
    x: Tensor, vals: Tensor, result: Tensor, g: Tensor, targets: Tensor, reduce: str, include_self: bool
) -> Tuple[Tensor, Tensor]:
    """PyTorch's gradients of a prod/amax/amin scatter reduction, on flat tensors."""
    n = x.numel()
    dtype = g.dtype
    hits = _core.zeros(n, dtype=dtype).scatter_add(0, targets, _core.ones_like(vals, dtype=dtype))
    touched = hits > 0
    if reduce in ("amax", "amin"):
        # The gradient is shared evenly by all the elements equal to the result. As in PyTorch,
        # an input value equal to the result takes a share even with include_self=False (the
        # share it would get is then dropped).
        src_eq = (vals == result.index_select(0, targets)).to(dtype)
        self_eq = (x == result).to(dtype)
        share = g / self_eq.scatter_add(0, targets, src_eq)
        gx = self_eq * share if include_self else g.masked_fill(touched, 0)
        return gx, src_eq * share.index_select(0, targets)
    # prod: the product of the other elements of the group, from the product of the group's
    # nonzero elements and its count of zeros (so that a zero element gets a gradient).
    one = _core.ones((), dtype=x.dtype)
    zeros_at = (vals == 0).to(dtype)
    zero_count = _core.zeros(n, dtype=dtype).scatter_add(0, targets, zeros_at)
    if include_self:
        zero_count = zero_count + (x == 0).to(dtype)
    nonzero_prod = _segment_reduce(
        _core._where3(x == 0, one, x), _core._where3(vals == 0, one, vals), targets, "prod", include_self
    )

    def others(v: Tensor, zc: Tensor, prod: Tensor) -> Tensor:
        return _core._where3(
            v != 0,
            _core._where3(zc == 0, prod / v, _core.zeros((), dtype=dtype)),
            _core._where3(zc == 1, prod, _core.zeros((), dtype=dtype)),
        )

    gs = g.index_select(0, targets) * others(vals, zero_count.index_select(0, targets), nonzero_prod.index_select(0, targets))
    gx = g * others(x, zero_count, nonzero_prod) if include_self else g.masked_fill(touched, 0)
    return gx, gs


def _narrow_to(t: Tensor, shape: Any) -> Tensor:
    for d, s in enumerate(shape):
        if t.shape[d] != s:
            t = t.narrow(d, 0, s)
    return t


def _check_scatter(input: Tensor, dim: int, index: Tensor, src: Tensor) -> int:
    # PyTorch's order: the dim, the index dtype, the src dtype; an empty index skips the
    # index's dtype and every shape check.
    dim = wrap_dim(dim, input.ndim)
    if index.numel() and index.dtype not in (_core.int64, _core.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if input.dtype != src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    rank = max(input.ndim, 1)
    if max(index.ndim, 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    ishape = list(index.shape) or [1]
    xshape = list(input.shape) or [1]
    # PyTorch compares the sizes with self's, then (if those fit) with src's for every dim of
    # self, reading a src with fewer dims out of range (IndexError); the src's rank is checked
    # after that, and a size that does not fit is reported last.
    wrong = any(d != dim and ishape[d] > xshape[d] for d in range(rank))
    if not wrong:
        for d in range(rank):
            if src.ndim and d >= src.ndim:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-src.ndim}, {src.ndim - 1}], but got {d})")
            if ishape[d] > (src.shape[d] if src.ndim else 1):
                wrong = True
                break
    if max(src.ndim, 1) != rank:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} apart from dimension "
            f"{dim} and to be no larger size than src {list(src.shape)}"
        )
    return dim


def _check_scatter_bounds(input: Tensor, dim: int, index: Tensor) -> None:
    # PyTorch checks the index values in its kernel, after the dtype dispatch.
    if index.numel():
        size = (list(input.shape) or [1])[dim]
        flat = index.reshape(-1)
        bad = (flat < 0) | (flat >= size)
        if bool(bad.any().item()):
            raise RuntimeError(f"index {int(flat[bad][0].item())} is out of bounds for dimension {dim} with size {size}")


def _scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool) -> Tensor:
    """scatter_reduce on checked arguments of equal rank (at least 1) and an int64 index."""
    if index.numel() == 0:
        return input.clone()
    if reduce in ("prod", "amax", "amin"):
        return _segment_function().apply(input, src, index, dim, reduce, include_self)
    srcn = _narrow_to(src, index.shape)
    hits = _core.zeros(list(input.shape), dtype=_core.int64).scatter_add(dim, index, _core.ones_like(index))
    base = input if include_self else input.masked_fill(hits > 0, 0)
    if input.dtype == _core.bool:
        # A sum of bools is "any": count in int64 so no count wraps to zero.
        return base.to(_core.int64).scatter_add(dim, index, srcn.to(_core.int64)) > 0
    total = base.scatter_add(dim, index, srcn)
    if reduce == "sum":
        return total
    count = (hits + (1 if include_self else 0)).clamp(min=1).to(input.dtype)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        return total / count
    return total.floor_divide(count)


@op_entry("scatter_reduce")
def scatter_reduce(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True,
    out: Optional[Tensor] = None,
) -> Tensor:
    """A copy of ``input`` where each ``src`` element is reduced ("sum", "prod", "mean", "amax",
    "amin") into the position ``index`` names along ``dim`` (its own coordinates elsewhere);
    ``include_self=False`` leaves ``input``'s values out of the positions written to."""
    name = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if name not in _SCATTER_REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    dim = _check_scatter(input, dim, index, src)
    if name == "mean" and input.dtype == _core.bool:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    if index.numel() and name in ("amax", "amin") and input.is_complex():
        # PyTorch's kernel dispatch has no complex max/min (an empty index never reaches it).
        raise NotImplementedError(
            f"\"scatter_gather_tensor_cpu_reduce_{name}\" not implemented for '{type_name(input).replace('Tensor', '')}'"
        )
    _check_scatter_bounds(input, dim, index)
    if index.numel() == 0:
        # PyTorch's mean still divides by the counts (all 1): a complex infinity / (1+0j) has a
        # NaN part, as its complex division gives.
        result = input / _core.ones_like(input) if name == "mean" and input.is_complex() else input.clone()
        return write_out(result, out)
    index = index.to(_core.int64)
    if input.ndim == 0:
        result = _scatter_reduce(input.reshape(1), 0, index.reshape(1), src.reshape(-1), name, include_self).reshape(())
    else:
        result = _scatter_reduce(input, dim, index.reshape(list(index.shape) or [1]), src.reshape(list(src.shape) or [1]), name, include_self)
    return write_out(result, out)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """In-place ``scatter_reduce``."""
    return _assign(self, scatter_reduce(_working_copy(self), dim, index, src, reduce, include_self=include_self))


_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


@op_entry("index_reduce")
def index_reduce(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True,
    out: Optional[Tensor] = None,
) -> Tensor:
    """A copy of ``input`` where each slice ``source.select(dim, i)`` is reduced ("prod", "mean",
    "amax", "amin") into ``input.select(dim, index[i])``."""
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    # The dim is wrapped (IndexError when out of range) before the index is looked at.
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{type_name(index)} and size: {list(index.shape)}"
        )
    if index.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(f"index_reduce_(): Expected a long tensor for index, but got {type_name(index)}")
    if dim > 0 and dim >= source.ndim:
        # A 0-d source passes dim 0 (and fails on the number of indices below).
        raise RuntimeError(
            f"index_reduce_(): Indexing dim {dim} is out of bounds of the source tensor with dim {source.ndim}"
        )
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({type_name(input)}) and source ({type_name(source)}) must have the same scalar type"
        )
    if source.ndim == 0 and index.numel() != 1:
        # PyTorch reads source.size(dim) of a 0-d source unless one index matches it.
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    slices = source.shape[dim] if source.ndim else 1
    if index.numel() != slices:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({slices}), for dim: {dim}"
        )
    if source.ndim != input.ndim or any(input.shape[d] != source.shape[d] for d in range(input.ndim) if d != dim):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    # The kernels' dtype dispatch, after the argument checks: PyTorch's include_self=False
    # initialisation and its kernel for a 1-d self have no bool/complex versions; its n-d
    # kernel has, except for complex amax/amin (checked before the index values) and bool mean.
    kind = type_name(input)
    no_bool_complex = input.dtype == _core.bool or input.is_complex()
    if no_bool_complex and not include_self:
        raise NotImplementedError(f"\"index_reduce_func_exclude_input_init\" not implemented for '{kind}'")
    if no_bool_complex and input.ndim <= 1:
        raise NotImplementedError(f"\"index_func_\" not implemented for '{kind}'")
    x = input.reshape(1) if input.ndim == 0 else input
    s = source.reshape(1) if source.ndim == 0 else source
    flat = index.reshape(-1).to(_core.int64)
    if flat.numel() and input.is_complex() and reduce in ("amax", "amin"):
        op = "maximum" if reduce == "amax" else "minimum"
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{kind}'")
    size = x.shape[dim]
    if flat.numel() and bool(((flat < 0) | (flat >= size)).any().item()):
        raise IndexError("index out of range in self")
    if input.dtype == _core.bool and reduce == "mean" and flat.numel():
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
    view = [1] * s.ndim
    view[dim] = -1
    expanded = flat.reshape(view).expand(list(s.shape))
    result = _scatter_reduce(x, dim, expanded, s, reduce, include_self).reshape(input.shape)
    return write_out(result, out)


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """In-place ``index_reduce``."""
    return _assign(self, index_reduce(_working_copy(self), dim, index, source, reduce, include_self=include_self))


FUNCTIONS = (
    take, put, masked_scatter, diagonal_scatter, select_scatter, slice_scatter, scatter_reduce, index_reduce, index_fill
)
METHODS = FUNCTIONS + (put_, masked_scatter_, scatter_reduce_, index_reduce_, index_fill_)

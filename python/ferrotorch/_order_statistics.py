"""Order statistics: ``kthvalue``, ``mode``, ``nanmedian``, ``quantile``, ``nanquantile``.

Each sorts along the reduced dimension (stably) and reads positions of the sorted order; the
values are gathered from the input at the chosen indices, so gradients flow to the selected
elements (and, for quantiles, split between the two interpolated neighbours)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core, return_types
from ._op_entry import op_entry
from ._reductions import median as _median
from ._statistics_util import kind, named, wrap_dim, write_out

Tensor = _core.Tensor

_nanmedian_t = named("nanmedian", ("values", "indices"))


def _sort_indices(x: Tensor, dim: int) -> Tensor:
    keys = x.detach()
    if keys.dtype == _core.bool:
        keys = keys.to(_core.uint8)
    return keys.sort(dim, stable=True).indices


def _finish(values: Tensor, indices: Tensor, dim: int, keepdim: bool) -> Tuple[Tensor, Tensor]:
    """Drops the size-1 reduced dim unless ``keepdim``."""
    if keepdim:
        return values, indices
    return values.squeeze(dim), indices.squeeze(dim)


def _check_reduced_size(input: Tensor, dim: int, op: str) -> None:
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {dim} to have non-zero size.")


@op_entry("kthvalue")
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:
    """The ``k``-th smallest element along ``dim`` (1-based) and its index. NaN counts as the
    largest value. Among equal values the index is that of the stable sort (PyTorch's
    selection algorithm may name another of the equal elements).

    >>> tuple(torch.kthvalue(torch.tensor([3., 1., 2.]), 2))
    (tensor(2.), tensor(2))
    """
    # The dim, its size and k are checked before the dtype (a 0-d input of any dtype is its
    # own answer), as in PyTorch.
    d = wrap_dim(dim, input.ndim, "kthvalue()")
    _check_reduced_size(input, d, "kthvalue")
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        result = return_types.kthvalue(input.clone(), _core.zeros((), dtype=_core.int64, device=input.device))
        return write_out(result, out, "kthvalue")
    if input.dtype == _core.bool or input.is_complex():
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{kind(input.dtype)}'")
    idx = _sort_indices(input, d).narrow(d, k - 1, 1)
    result = return_types.kthvalue(*_finish(input.gather(d, idx), idx, d, keepdim))
    return write_out(result, out, "kthvalue")


@op_entry("mode")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and the
    index of its last occurrence. (PyTorch's CPU kernel reports the last occurrence for rows
    of up to 16 elements; for longer rows its unstable sort may name another occurrence.)

    >>> tuple(torch.mode(torch.tensor([3, 1, 1, 3, 2, 2])))
    (tensor(1), tensor(2))
    """
    # PyTorch's order: the dim, an empty reduced dim, then the dtype; a complex input is refused
    # only when there is something to compare (a 0-d or empty one gives its result).
    d = wrap_dim(dim, input.ndim, "mode()")
    _check_reduced_size(input, d, "mode")
    if input.is_complex() and input.ndim and input.numel():
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{kind(input.dtype)}'")
    if input.ndim == 0:
        return write_out(return_types.mode(input.clone(), _core.zeros((), dtype=_core.int64, device=input.device)), out, "mode")
    x = input.movedim(d, -1)
    n = x.shape[-1]
    if x.numel() == 0:
        idx = _core.zeros(tuple(x.shape[:-1]) + (1,), dtype=_core.int64, device=x.device)
    else:
        order = _sort_indices(x, -1)
        sv = x.detach().gather(-1, order)
        pos = _core.arange(n, device=x.device).expand(tuple(sv.shape))
        # Equal values form runs in sorted order; a run's length at its last element is the
        # distance back to its first. NaN != NaN, so every NaN is a run of one.
        starts = _core.cat([_core.ones(tuple(sv.shape[:-1]) + (1,), dtype=_core.bool, device=x.device), sv[..., 1:] != sv[..., :-1]], -1)
        run_start = pos.masked_fill(starts.logical_not(), 0).cummax(-1).values
        run_len = pos - run_start + 1
        longest = run_len.amax(-1, keepdim=True)
        # The first position reaching the longest length ends the smallest most frequent value's
        # run; its sorted index is that value's last occurrence (the sort is stable).
        end = pos.masked_fill(run_len != longest, n).amin(-1, keepdim=True)
        idx = order.gather(-1, end)
    values = x.gather(-1, idx)
    values, idx = values.movedim(-1, d), idx.movedim(-1, d)
    return write_out(return_types.mode(*_finish(values, idx, d, keepdim)), out, "mode")


@op_entry("nanmedian")
def nanmedian(input: Tensor, dim: Optional[int] = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The lower median ignoring NaN: of all elements (a 0-d tensor), or along ``dim`` with its
    index. A slice of only NaN gives NaN (index 0 here; PyTorch names some NaN element).

    >>> torch.nanmedian(torch.tensor([1., float("nan"), 3., 2.]))
    tensor(2.)
    """
    # PyTorch's order: the dim, an empty reduced dim, then the dtype; the median of no element
    # at all is NaN (in the input's dtype) before any dtype check.
    if dim is not None:
        d = wrap_dim(dim, input.ndim)
        if input.ndim and input.numel() == 0 and input.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if input.dtype == _core.bool or input.is_complex():
        if dim is None and input.numel() == 0:
            return write_out(_core.full((), float("nan"), dtype=input.dtype, device=input.device), out, "nanmedian")
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{kind(input.dtype)}'")
    if not input.is_floating_point():  # no NaN to skip: the median itself
        r = _median(input) if dim is None else _median(input, dim, keepdim)
        return write_out(r if dim is None else _nanmedian_t(*r), out, "nanmedian")
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return write_out(_core.full((), float("nan"), dtype=input.dtype, device=input.device), out, "nanmedian")
        count = int(flat.detach().isnan().logical_not().sum().item())
        pick = _sort_indices(flat, 0)[max(count - 1, 0) // 2]
        return write_out(flat[pick], out, "nanmedian")
    d = wrap_dim(dim, input.ndim, "nanmedian()")
    if input.ndim == 0:
        return write_out(_nanmedian_t(input.clone(), _core.zeros((), dtype=_core.int64, device=input.device)), out, "nanmedian")
    if input.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    order = _sort_indices(input, d)
    count = input.detach().isnan().logical_not().sum(d, keepdim=True)
    k = (count - 1).clamp_min(0) // 2
    idx = order.gather(d, k)
    return write_out(_nanmedian_t(*_finish(input.gather(d, idx), idx, d, keepdim)), out, "nanmedian")


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str, skip_nan: bool) -> Tensor:
    if isinstance(q, (list, tuple)):
        raise TypeError(f"{op}() received an invalid combination of arguments - got q={type(q).__name__}, but expected a float or a Tensor")
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{op}() received an invalid combination of arguments - got dim={type(dim).__name__}, but expected an int or None")
    if input.dtype not in (_core.float32, _core.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    q_is_tensor = isinstance(q, Tensor)
    if q_is_tensor:
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        qt = q.detach()
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
        qt = _core.full((), q, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}")
    if dim is None:
        x = input.reshape(-1)
    else:
        d = wrap_dim(dim, input.ndim, f"{op}()")
        x = input.reshape(1) if input.ndim == 0 else input.movedim(d, -1)
    # A tensor q's values are checked after the dim (PyTorch's order); a number's first.
    if q_is_tensor and qt.numel() and not bool(((qt >= 0) & (qt <= 1)).all().item()):  # NaN too
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    n = x.shape[-1]
    order = _sort_indices(x, -1)
    sv = x.gather(-1, order)
    lead = tuple(x.shape[:-1])
    # The ranks are computed in float64 from q as the input's dtype holds it (PyTorch's
    # float32 1/3 * 6 is 2.00000006, whose ceil is 3); the interpolation weight is then
    # rounded back to the input's dtype.
    qs = qt.reshape(-1).double()  # (Q,)
    nan = x.detach().isnan()
    if skip_nan:
        valid = nan.logical_not().sum(-1, keepdim=True)  # (..., 1)
        ranks = qs * (valid - 1)
        # A row of only NaN reads its last (NaN) element.
        ranks = ranks.masked_fill(valid == 0, n - 1)
    else:
        ranks = (qs * (n - 1)).expand(lead + (qs.numel(),))
        # A row holding NaN reads its last element, which the sort made NaN.
        ranks = ranks.masked_fill(nan.any(-1, keepdim=True), n - 1)
    if interpolation == "lower":
        result = sv.gather(-1, ranks.floor().long())
    elif interpolation == "higher":
        result = sv.gather(-1, ranks.ceil().long())
    elif interpolation == "nearest":  # round half to even, as PyTorch
        result = sv.gather(-1, ranks.round().long())
    else:
        below = ranks.floor()
        lo, hi = sv.gather(-1, below.long()), sv.gather(-1, ranks.ceil().long())
        weight = ranks - below if interpolation == "linear" else _core.full_like(ranks, 0.5)
        result = lo.lerp(hi, weight.to(x.dtype))
    result = result.movedim(-1, 0)  # (Q, *rest)
    if keepdim and input.ndim:
        if dim is None:
            result = result.reshape((result.shape[0],) + (1,) * input.ndim)
        else:
            result = result.unsqueeze(1 + d)
    if not q_is_tensor or q.ndim == 0:
        result = result.squeeze(0)
    return result


@op_entry("quantile")
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *, interpolation: str = "linear", out: Optional[Tensor] = None) -> Tensor:
    """The ``q``-th quantiles (``q`` a float or a 1-D tensor in [0, 1], whose values index the
    result's first dimension) of all elements or along ``dim``; a slice holding NaN gives NaN.

    >>> torch.quantile(torch.tensor([0., 1., 2., 3.]), 0.5)
    tensor(1.5000)
    """
    return write_out(_quantile("quantile", input, q, dim, keepdim, interpolation, False), out, "quantile")


@op_entry("nanquantile")
def nanquantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *, interpolation: str = "linear", out: Optional[Tensor] = None) -> Tensor:
    """``quantile`` ignoring NaN: each slice's quantile over its non-NaN values (NaN when all
    are NaN).

    >>> torch.nanquantile(torch.tensor([0., float("nan"), 2.]), 0.5)
    tensor(1.)
    """
    return write_out(_quantile("quantile", input, q, dim, keepdim, interpolation, True), out, "nanquantile")


__all__ = ("kthvalue", "mode", "nanmedian", "quantile", "nanquantile")
METHODS = (kthvalue, mode, nanmedian, quantile, nanquantile)

"""Histograms: ``histc`` (equal-width bins, counts), ``histogram`` (1-D, with bin edges,
weights and density) and ``histogramdd`` (points in D dimensions).

``histc`` places an element by linear interpolation over the range, in the input's own
arithmetic as PyTorch does. ``histogram``/``histogramdd`` place it by searching the bin edges
(the last edge is inclusive); PyTorch's interpolation-then-local-search lands in the same bin.
Counts are accumulated with one ``index_add`` over the flattened bin numbers."""

from __future__ import annotations

import builtins
import math
import struct
import sys
from typing import Any, List, Optional, Sequence, Tuple

from . import _core
from ._op_entry import op_entry
from ._searching import _search
from ._statistics_util import kind, named, write_out

Tensor = _core.Tensor

_histogram_t = named("histogram", ("hist", "bin_edges"))
_histogramdd_t = named("histogramdd", ("hist", "bin_edges"))


def _fmt(v: float) -> str:
    return str(int(v)) if math.isfinite(v) and v == int(v) else str(v)


def _edges(lo: float, hi: float, n: int, dtype: Any, device: Any) -> Tensor:
    """n equally spaced edges from lo to hi computed as PyTorch's linspace does, in the edges'
    own dtype (float32 rounding included): the first half from lo up, the rest from hi down."""
    if dtype not in (_core.float32, _core.float64) or n < 2:
        return _core.linspace(lo, hi, n, dtype=dtype, device=device)
    start = _core.full((), lo, dtype=dtype, device=device)
    end = _core.full((), hi, dtype=dtype, device=device)
    step = (end - start) / (n - 1)
    i = _core.arange(n, dtype=dtype, device=device)
    return _core._where3(i < n // 2, start + step * i, end - step * (n - 1 - i))


def _next_f32(v: float, up: bool) -> float:
    """The float32 neighbour of ``v`` (rounded to float32) toward +/- FLT_MAX."""
    try:
        f = struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        f = math.copysign(math.inf, v)
    fmax = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
    if math.isinf(f):
        return math.copysign(fmax, f) if (f > 0) == up else f
    if abs(f) == fmax and (f > 0) == up:
        return f
    if f == 0:
        tiny = struct.unpack("<f", struct.pack("<I", 1))[0]
        return tiny if up else -tiny
    bits = struct.unpack("<I", struct.pack("<f", f))[0]
    bits += 1 if (f > 0) == up else -1  # sign-magnitude: away from zero is +1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _widen(v: float, dtype: Any, up: bool) -> float:
    """histc's widening of an empty range [v, v]: one unit, or for float32/float64 the next
    representable value of the dtype when that is farther (large magnitudes)."""
    step = v + 1 if up else v - 1
    if dtype == _core.float64:
        n = math.nextafter(v, math.inf if up else -math.inf)
        n = n if math.isfinite(n) or math.isinf(v) else math.copysign(sys.float_info.max, n)
    elif dtype == _core.float32:
        n = _next_f32(v, up)
    else:
        return step
    return builtins.max(n, step) if up else builtins.min(n, step)


def _check_float(input: Tensor, kernel: str) -> None:
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{kind(input.dtype)}'")


@op_entry("histc")
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out: Optional[Tensor] = None) -> Tensor:
    """Counts of the elements in ``bins`` equal-width bins over [min, max] (the data's range
    when min == max); elements outside the range (and NaN) are ignored.

    >>> torch.histc(torch.tensor([1., 2., 1.]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    if isinstance(bins, bool) or not isinstance(bins, int):
        raise TypeError(f"histc(): argument 'bins' (position 2) must be int, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    # PyTorch's dtype errors come after the argument checks: bool fails making the bin edges,
    # complex fails taking the data's range (when min == max) before the histogram kernel.
    if input.dtype == _core.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if input.is_complex() and min == max and input.numel():
        raise TypeError(f"aminmax not implemented for {kind(input.dtype)}")
    _check_float(input, "histogram_cpu")
    # The range is chosen in double precision (the data's range when min == max, widened by one
    # each way when still empty); the bins+1 edges are then made in the input's dtype.
    lo, hi = float(min), float(max)
    x = input.detach().reshape(-1)
    if lo == hi and x.numel():
        lo, hi = float(x.amin().item()), float(x.amax().item())
    if lo == hi:
        lo, hi = _widen(lo, input.dtype, False), _widen(hi, input.dtype, True)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if not lo < hi:  # widening by one unit is lost on a large value (Half/BFloat16 ranges)
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = _edges(lo, hi, bins + 1, input.dtype, input.device)
    # The outer edges as the dtype holds them (NaN when the step overflowed: nothing is counted).
    left, right = edges[0], edges[bins]
    x = x[(x >= left) & (x <= right)]
    # Each step rounds to the input's dtype (Half too), as PyTorch's kernel computes.
    q = (x - left) * bins / (right - left)
    # A quotient that overflowed (inf) or is 0/0 (NaN) converts, in PyTorch's x86 build, to the
    # lowest int64, whose element offset wraps to bin 0; the right edge itself is in the last bin.
    q = _core._where3(q.isfinite(), q, _core.zeros((), dtype=q.dtype, device=q.device))
    pos = q.long().clamp(0, bins - 1)
    hist = _core.zeros(bins, dtype=input.dtype, device=input.device).index_add(0, pos, _core.ones(pos.shape[0], dtype=input.dtype, device=input.device))
    return write_out(hist, out, "histc")


def _bins_list(bins: Any, d: int) -> List[Any]:
    if isinstance(bins, Tensor):
        return [bins] if d == 1 else [bins] * d
    if isinstance(bins, int):
        return [bins] * d
    bins = list(bins)
    if len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    return bins


def _histogramdd(input: Tensor, bins: Any, range: Optional[Sequence[float]], weight: Optional[Tensor], density: bool, op: str) -> Tuple[Tensor, List[Tensor]]:
    """(hist, edges per dimension) of the points in the rows of 2-D ``input`` (N, D)."""
    _check_float(input, "histogramdd")
    n, d = input.shape
    blist = _bins_list(bins, d)
    if weight is not None:
        if tuple(weight.shape) != (n,):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape {list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got input({str(input.dtype).split('.')[-1].replace('float32', 'float').replace('float64', 'double')}), and weight({str(weight.dtype).split('.')[-1].replace('float32', 'float').replace('float64', 'double')})")
    if range is not None:
        range = [float(r) for r in range]
        if len(range) != 2 * d:
            raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} elements, but got {len(range)}")
    x = input.detach()
    edges: List[Tensor] = []
    for i, b in enumerate(blist):
        if isinstance(b, Tensor):
            if b.ndim != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.ndim} dimensions in the bins tensor for dimension {i}")
            if b.dtype != input.dtype:
                def name(t: Tensor) -> str:
                    return {"float32": "float", "float64": "double"}.get(str(t).split(".")[-1], str(t).split(".")[-1])
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype {name(input.dtype)} and bins for dimension {i} with dtype {name(b.dtype)}")
            if b.numel() < 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got {b.numel()} elements for dimension {i}")
            if b.numel() == 1:  # one edge is zero bins
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {i}")
            edges.append(b.detach())
            continue
        if isinstance(b, bool) or not isinstance(b, int):
            raise TypeError(f"{op}(): bins must be an int or a tensor, not {type(b).__name__}")
        if range is None and n and input.dtype in (_core.float16, _core.bfloat16):
            # PyTorch's kernel that finds the data's range has no half types (checked first).
            raise NotImplementedError(f"\"histogramdd\" not implemented for '{kind(input.dtype)}'")
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {i}")
        if range is not None:
            lo, hi = range[2 * i], range[2 * i + 1]
        elif n:
            lo, hi = float(x[:, i].amin().item()), float(x[:, i].amax().item())
        else:  # no data, no range: numpy's default [0, 1]
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} max {_fmt(hi)} for dimension {i}")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {i}'s range [{_fmt(lo)}, {_fmt(hi)}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_edges(lo, hi, b + 1, input.dtype, input.device))
    keep = _core.ones(n, dtype=_core.bool, device=input.device)
    flat = _core.zeros(n, dtype=_core.int64, device=input.device)
    sizes = [e.numel() - 1 for e in edges]
    for i, e in enumerate(edges):
        col = x[:, i]
        if sizes[i] == 0:
            keep = _core.zeros(n, dtype=_core.bool, device=input.device)
            continue
        lo, hi = e[0], e[-1]
        keep = keep & (col >= lo) & (col <= hi)
        if isinstance(blist[i], Tensor):
            # The last bin holds its right edge: an element equal to it counts in the last bin.
            pos = (_search(e, col, True) - 1).clamp(0, sizes[i] - 1)
        else:
            # Equal widths: interpolate, then step one bin where rounding missed an edge.
            pos = ((col - lo) * sizes[i] / (hi - lo)).long().clamp(0, sizes[i] - 1)
            pos = pos - (col < e[pos]).long()
            pos = pos.clamp_min(0)
            pos = pos + ((col >= e[pos + 1]) & (pos < sizes[i] - 1)).long()
        flat = flat * sizes[i] + pos
    total = 1
    for s in sizes:
        total *= s
    ones = weight.detach() if weight is not None else _core.ones(n, dtype=input.dtype, device=input.device)
    hist = _core.zeros(total, dtype=input.dtype, device=input.device).index_add(0, flat[keep], ones[keep])
    hist = hist.reshape(tuple(sizes))
    if density:
        hist = hist / hist.sum()
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = sizes[i]
            hist = hist / e.diff().reshape(shape)
    return hist, edges


@op_entry("histogram")
def histogram(input: Tensor, bins: Any, *, range: Optional[Sequence[float]] = None, weight: Optional[Tensor] = None, density: bool = False, out: Any = None) -> Any:
    """Histogram of all elements: ``bins`` equal-width bins over ``range`` (default the data's
    range) or the given 1-D tensor of edges; returns ``(hist, bin_edges)``. ``weight`` (same
    shape as ``input``) weights each element; ``density`` normalises to unit integral.

    >>> torch.histogram(torch.tensor([1., 2., 1.]), bins=2, range=(0., 2.)).hist
    tensor([0., 3.])
    """
    if isinstance(bins, Tensor) and range is not None:
        raise TypeError("histogram(): range= is only accepted with an int number of bins, not with a tensor of bin edges")
    if weight is not None and tuple(weight.shape) == tuple(input.shape):
        weight = weight.reshape(-1)
    hist, edges = _histogramdd(input.reshape(-1, 1), bins, range, weight, density, "histogram")
    return write_out(_histogram_t(hist, edges[0]), out, "histogram")


@op_entry("histogramdd")
def histogramdd(input: Tensor, bins: Any, *, range: Optional[Sequence[float]] = None, weight: Optional[Tensor] = None, density: bool = False) -> Any:
    """Histogram of the points in the innermost dimension of ``input`` (size D): ``bins`` an
    int, D ints or D tensors of edges, ``range`` 2*D floats; returns ``(hist, bin_edges)`` with
    one tensor of edges per dimension.

    >>> torch.histogramdd(torch.tensor([[0., 0.], [1., 1.]]), bins=2).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    d = input.shape[-1]
    if d == 0:
        # Zero-dimensional points: PyTorch gives a 0-d (empty product) histogram, no edges.
        _check_float(input, "histogramdd")
        return _histogramdd_t(_core.zeros((), dtype=input.dtype, device=input.device), ())
    if weight is not None and tuple(weight.shape) == tuple(input.shape[:-1]):
        weight = weight.reshape(-1)
    hist, edges = _histogramdd(input.reshape(-1, d), bins, range, weight, density, "histogramdd")
    return _histogramdd_t(hist, tuple(edges))


__all__ = ("histc", "histogram", "histogramdd")
METHODS = (histc, histogram)

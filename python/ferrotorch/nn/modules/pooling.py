"""Pooling layers: max, average, adaptive (avg and max), fractional max, LP pooling and max
unpooling in 1-D, 2-D and 3-D, with their functional forms (checked as PyTorch checks them).

The 3-D, adaptive-max and fractional forms are compositions of the 2-D kernels and
differentiable tensor ops (index_select, gather, where, scatter), so autograd supplies their
gradients.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ... import _core
from ... import _nn_kernels as K
from ..._op_entry import op_entry
from .module import Module
from .padding import pad

Tensor = _core.Tensor


def _ntuple(v: Any, n: int) -> Tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    # An empty sequence stays empty (an empty stride means "the kernel size" downstream).
    return v if len(v) in (0, n) else (v[0],) * n


def _batched(op: str, input: Tensor, n: int) -> Tuple[Tensor, bool]:
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    if input.ndim != n + 2:
        raise RuntimeError(f"{op}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input, but got: {list(input.shape)}")
    return input, False


def _out_len(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """Pooled length; in ceil mode the last window must start inside the input or left padding."""
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool(op: str, input: Tensor, n: int, k: Tuple[int, ...], s: Tuple[int, ...], p: Tuple[int, ...], d: Tuple[int, ...], ceil_mode: bool) -> None:
    """PyTorch's checks for max/avg pooling: input rank, padding at most half the (dilated)
    kernel, and a non-empty output."""
    shape = list(input.shape)
    if op == "max_pool1d" and not input.is_floating_point():
        raise NotImplementedError(f"max_pool1d: \"max_pool1d_impl\" not implemented for '{input.dtype}'")
    if any(v <= 0 for v in k):
        # Checked before the stride and the shapes, as PyTorch does.
        if op == "max_pool1d":
            raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[0]}")
        raise RuntimeError(f"{op}: kernel_size must be greater than zero, but got {k}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"{op}: stride should not be zero" if op != "max_pool1d" else f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if op == "max_pool2d" and input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if input.ndim not in (n + 1, n + 2) or any(v == 0 for v in shape[input.ndim - n - 1 :]):
        prefix = f"{op}: " if n == 1 or op.startswith("avg") else ""
        raise RuntimeError(f"{prefix}Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}")
    for i in range(n):
        if op == "max_pool1d" and p[i] > k[i] // 2:
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p[i]} and kernel_size={k[i]}")
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    spatial = shape[input.ndim - n :]
    if op == "avg_pool3d" and any(spatial[i] < k[i] for i in range(3)):
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    outs = [_out_len(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(n)]
    if any(o <= 0 for o in outs):
        if op == "max_pool1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {outs[0]}")
        # avg_pool1d runs as a 2-D pool of height 1, and PyTorch reports it that way.
        lead = [shape[input.ndim - n - 1]] + ([1] if op == "avg_pool1d" else [])
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, lead + spatial))}). Calculated output size: ({'x'.join(map(str, lead + outs))}). Output size is too small")


def _pool_args(n: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> Tuple[Tuple[int, ...], ...]:
    k = _ntuple(kernel_size, n)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _ntuple(stride, n)
    return k, s, _ntuple(padding, n), _ntuple(dilation, n)


def _max_pool2d_overhang(x: Tensor, k: Tuple[int, ...], s: Tuple[int, ...], p: Tuple[int, ...], d: Tuple[int, ...], ceil_mode: bool) -> Tuple[Tensor, Tensor]:
    """2-D max pooling (values, indices) of [N, C, H, W]. In ceil mode PyTorch lets the last
    window hang past an input smaller than the kernel, which the kernel refuses: there the input
    is extended with -inf first and the indices mapped back to the original width."""
    h, w = x.shape[-2], x.shape[-1]
    extent = [(k[i] - 1) * d[i] + 1 for i in range(2)]
    if not ceil_mode or all((h, w)[i] + 2 * p[i] >= extent[i] for i in range(2)):
        return K.max_pool2d(x, k, s, p, d, ceil_mode, True)
    outs = [_out_len((h, w)[i], k[i], s[i], p[i], d[i], True) for i in range(2)]
    extra = [max(0, (outs[i] - 1) * s[i] + extent[i] - 2 * p[i] - (h, w)[i]) for i in range(2)]
    xp = pad(x, [0, extra[1], 0, extra[0]], value=float("-inf"))
    v, i = K.max_pool2d(xp, k, s, p, d, False, True)
    if extra[1]:
        i = (i // (w + extra[1])) * w + i % (w + extra[1])
    return v, i


def _depth_taps(depth: int, od: int, k: int, s: int, p: int, d: int) -> List[Tuple[List[int], List[bool]]]:
    """For each kernel tap along depth: the source plane of every output plane (clamped) and
    whether it lies inside the input."""
    taps = []
    for j in range(k):
        z = [o * s - p + j * d for o in range(od)]
        taps.append(([min(max(v, 0), depth - 1) for v in z], [0 <= v < depth for v in z]))
    return taps


def _max_pool3d_name(*args: Any, **kwargs: Any) -> Optional[str]:
    # PyTorch's max_pool3d with indices is another aten op, one autocast leaves alone.
    with_indices = kwargs.get("return_indices", args[6] if len(args) > 6 else False)
    return None if with_indices else "max_pool3d"


@op_entry(_max_pool3d_name)
def max_pool3d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-D max pooling over [N, C, D, H, W] (or [C, D, H, W]): 2-D pooling of every depth
    plane, then the running maximum over the depth taps (earliest plane wins ties)."""
    _check_pool("max_pool3d", input, 3, *_pool_args(3, kernel_size, stride, padding, dilation), ceil_mode)
    x, unbatched = _batched("max_pool3d", input, 3)
    k = _ntuple(kernel_size, 3)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _ntuple(stride, 3)
    p, d = _ntuple(padding, 3), _ntuple(dilation, 3)
    n, c, depth, h, w = x.shape
    od = _out_len(depth, k[0], s[0], p[0], d[0], ceil_mode)
    v2, i2 = _max_pool2d_overhang(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], d[1:], ceil_mode)
    v2 = v2.reshape(n, c, depth, v2.shape[-2], v2.shape[-1])
    i2 = i2.reshape(v2.shape)
    best: Any = None
    best_idx: Any = None
    neg_inf = _core.full((), float("-inf"), dtype=x.dtype)
    for planes, valid in _depth_taps(depth, od, k[0], s[0], p[0], d[0]):
        sel = _core.tensor(planes)
        mask = _core.tensor(valid).reshape(1, 1, od, 1, 1)
        v = _core._where3(mask, v2.index_select(2, sel), neg_inf)
        i = i2.index_select(2, sel) + sel.reshape(1, 1, od, 1, 1) * (h * w)
        if best is None:
            best, best_idx = v, i
        else:
            better = v > best
            best = _core._where3(better, v, best)
            best_idx = _core._where3(better, i, best_idx)
    if unbatched:
        best, best_idx = best.squeeze(0), best_idx.squeeze(0)
    return (best, best_idx) if return_indices else best


def _window_counts(size: int, out: int, k: int, s: int, p: int, include_pad: bool) -> List[int]:
    """Elements averaged by each window along one dim, as PyTorch counts them."""
    counts = []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        if include_pad:
            counts.append(end - start)
        else:
            counts.append(min(end, size) - max(start, 0))
    return counts


_HALF_TYPES = (_core.float16, _core.bfloat16)


def _int_average(pool: Any, input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool, count_include_pad: bool, divisor_override: Optional[int] = None) -> Tensor:
    """Average pooling of int64 input, as PyTorch's: the int64 window sum (wrapping on
    overflow) divided by the window's divisor, the quotient truncated toward zero.

    Exact for every int64: x = hi * 2**32 + lo with |hi| < 2**31 and 0 <= lo < 2**32, whose
    window sums float64 holds exactly; they are recombined in (wrapping) int64."""
    if pool is avg_pool1d:
        # The 1-D pool as the 2-D one over [.., 1, L], which takes a divisor override.
        k, p = _ntuple(kernel_size, 1)[0], _ntuple(padding, 1)[0]
        st = _ntuple(stride, 1) if stride is not None else ()
        s1 = k if len(st) == 0 else st[0]

        def run(x: Tensor, include_pad: bool, divisor: Optional[int]) -> Tensor:
            return avg_pool2d(x.unsqueeze(-2), (1, k), (1, s1), (0, p), ceil_mode, include_pad, divisor).squeeze(-2)
    else:

        def run(x: Tensor, include_pad: bool, divisor: Optional[int]) -> Tensor:
            return pool(x, kernel_size, stride, padding, ceil_mode, include_pad, divisor)

    hi = input.div(2**32, rounding_mode="floor")
    lo = input - hi * 2**32
    total = run(hi.double(), True, 1).round().long() * 2**32 + run(lo.double(), True, 1).round().long()
    if divisor_override:
        return total.div(divisor_override, rounding_mode="trunc")
    ones = _core.ones_like(input, dtype=_core.float64)
    valid = run(ones, True, 1)
    # The divisor: the valid count, or (count_include_pad) the count with padding, recovered
    # from the mean of ones (valid / divisor).
    divisor = valid if not count_include_pad else valid / run(ones, True, None)
    return total.div(divisor.round().long(), rounding_mode="trunc")


@op_entry("avg_pool3d")
def avg_pool3d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """3-D average pooling: window sums from 2-D sum pooling of each plane plus the depth taps,
    divided by PyTorch's (separable) window counts."""
    _check_pool("avg_pool3d", input, 3, *_pool_args(3, kernel_size, stride, padding, 1), ceil_mode)
    if input.dtype == _core.int64:
        return _int_average(avg_pool3d, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if input.dtype in _HALF_TYPES:
        # PyTorch's CPU kernel has no half types.
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{'Half' if input.dtype == _core.float16 else 'BFloat16'}'")
    x, unbatched = _batched("avg_pool3d", input, 3)
    k = _ntuple(kernel_size, 3)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _ntuple(stride, 3)
    p = _ntuple(padding, 3)
    for i in range(3):
        if p[i] * 2 > k[i]:
            raise RuntimeError(f"avg_pool3d: pad should be at most half of kernel size, but got pad={p[i]} and kernel_size={k[i]}")
    n, c, depth, h, w = x.shape
    od = _out_len(depth, k[0], s[0], p[0], 1, ceil_mode)
    sums = K.avg_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], ceil_mode, True, 1)
    oh, ow = sums.shape[-2], sums.shape[-1]
    sums = sums.reshape(n, c, depth, oh, ow)
    total: Any = None
    for planes, valid in _depth_taps(depth, od, k[0], s[0], p[0], 1):
        mask = _core.tensor(valid, dtype=x.dtype).reshape(1, 1, od, 1, 1)
        term = sums.index_select(2, _core.tensor(planes)) * mask
        total = term if total is None else total + term
    if divisor_override:
        out = total / divisor_override
    else:
        cd, ch, cw = (_core.tensor(_window_counts(sz, o, k[i], s[i], p[i], count_include_pad), dtype=x.dtype) for i, (sz, o) in enumerate(((depth, od), (h, oh), (w, ow))))
        out = total / (cd.reshape(od, 1, 1) * ch.reshape(1, oh, 1) * cw.reshape(1, 1, ow))
    return out.squeeze(0) if unbatched else out


def _bounds(size: int, out: int) -> List[Tuple[int, int]]:
    """Adaptive windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _adaptive_sizes(op: str, input: Tensor, output_size: Any, n: int) -> Tuple[int, ...]:
    sizes = (output_size,) * n if isinstance(output_size, int) or output_size is None else tuple(output_size)
    spatial = input.shape[input.ndim - n :]
    if len(sizes) != n:
        raise ValueError(f"{op}: output_size must have {n} elements, got {output_size}")
    return tuple(spatial[i] if sizes[i] is None else int(sizes[i]) for i in range(n))


def _check_adaptive(op: str, input: Tensor, n: int) -> None:
    if input.ndim not in (n + 1, n + 2):
        sep = ":" if "max" in op else ""
        raise RuntimeError(f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got{sep} {list(input.shape)}")


@op_entry("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """3-D adaptive average pooling: the depth windows are averaged, then pooled in 2-D."""
    x, unbatched = _batched("adaptive_avg_pool3d", input, 3)
    od, oh, ow = _adaptive_sizes("adaptive_avg_pool3d", x, output_size, 3)
    planes = [K.adaptive_avg_pool2d(x.narrow(2, a, b - a).mean(2), (oh, ow)) for a, b in _bounds(x.shape[2], od)]
    out = _core.stack(planes, 2)
    return out.squeeze(0) if unbatched else out


def _window_max(g: Tensor) -> Tuple[Tensor, Tensor]:
    """(value, index) of the max over the last dim as PyTorch's max-pooling kernels take it:
    the first maximum, or the last NaN (a NaN is kept once met and every later one taken).
    The value is gathered at the index, so the gradient reaches that element."""
    local = g.max(-1)[1]
    nan = g.isnan()
    # The last NaN: the largest (position + 1) among the NaNs, minus one.
    last_nan = (nan.to(_core.int64) * (_core.arange(g.shape[-1]) + 1)).amax(-1) - 1
    local = _core._where3(nan.any(-1), last_nan, local)
    return g.gather(-1, local.unsqueeze(-1)).squeeze(-1), local


def _adaptive_max(op: str, input: Tensor, output_size: Any, n: int, return_indices: bool) -> Any:
    """N-d adaptive max pooling, one window at a time (indices are flat over the spatial dims)."""
    _check_adaptive(op, input, n)
    if not input.is_floating_point():
        from .._functional_loss import _dtype_name

        kernel = "adaptive_max_pool3d_cpu" if n == 3 else "adaptive_max_pool2d"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_name(input.dtype)}\'')
    x, unbatched = _batched(op, input, n)
    outs = _adaptive_sizes(op, x, output_size, n)
    if x.numel() == 0:
        # Nothing to take the max of: empty values and indices of the output's shape.
        shape = (*x.shape[:2], *outs)
        empty = (_core.zeros(shape, dtype=x.dtype), _core.zeros(shape, dtype=_core.int64))
        vals, idx = (t.squeeze(0) for t in empty) if unbatched else empty
        return (vals, idx) if return_indices else vals
    spatial = tuple(x.shape[2:])
    lead = tuple(x.shape[:2])
    per_dim = [_bounds(spatial[i], outs[i]) for i in range(n)]
    values, indices = [], []
    for cell in _product([range(o) for o in outs]):
        win = x
        for dim, o in enumerate(cell):
            a, b = per_dim[dim][o]
            win = win.narrow(2 + dim, a, b - a)
        wshape = tuple(win.shape[2:])
        v, local = _window_max(win.reshape(*lead, -1))
        # Local (window) flat index -> flat index over the whole input plane.
        flat = _core.zeros(local.shape, dtype=local.dtype)
        rest = local
        for dim in reversed(range(n)):
            coord = rest % wshape[dim] + per_dim[dim][cell[dim]][0]
            rest = rest // wshape[dim]
            flat = flat + coord * math.prod(spatial[dim + 1 :])
        values.append(v)
        indices.append(flat)
    out = _core.stack(values, -1).reshape(*lead, *outs)
    idx = _core.stack(indices, -1).reshape(*lead, *outs)
    if unbatched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def _product(ranges: Sequence[range]) -> List[Tuple[int, ...]]:
    cells: List[Tuple[int, ...]] = [()]
    for r in ranges:
        cells = [c + (i,) for c in cells for i in r]
    return cells


def _one_int(op: str, output_size: Any) -> int:
    """``output_size`` as ATen's int[1] argument reads it: an int or a sequence of one int."""
    if isinstance(output_size, bool) or not isinstance(output_size, (int, list, tuple)):
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not {type(output_size).__name__}")
    sizes = [output_size] if isinstance(output_size, int) else list(output_size)
    for k, v in enumerate(sizes):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, but found element of type {type(v).__name__} at pos {k}")
    if len(sizes) != 1:
        raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got {len(sizes)})")
    return sizes[0]


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive windows of [N, C, L] (or [C, L]) so that the output has ``output_size``:
    window i covers [floor(i*L/out), ceil((i+1)*L/out)). Each window's index is its first
    maximum, or its last NaN (PyTorch's kernel keeps a NaN once met and takes every later one).

    All windows are gathered at once: a window shorter than the longest repeats its last
    element, which changes neither its maximum nor (mapped back to positions) its index."""
    op = "adaptive_max_pool1d"
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' (while checking arguments for {op})"
        )
    out = _one_int(op, output_size)
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {list(input.shape)} with dimension {i} being empty"
            )
    lead = tuple(input.shape[:-1])
    if out < 0:
        raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {out}: {list(lead) + [1, out]}")
    # PyTorch allocates its outputs before it looks at the dtype: an impossible size fails here.
    values = _core.empty(lead + (out,), dtype=input.dtype)
    if not input.is_floating_point():
        from .._functional_loss import _dtype_name

        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for \'{_dtype_name(input.dtype)}\'')
    if values.numel() == 0:
        indices = _core.empty(lead + (out,), dtype=_core.int64)
        return (values, indices) if return_indices else values
    length = input.shape[-1]
    pos = _core.arange(out)
    starts = (pos * length) // out
    lasts = ((pos + 1) * length + out - 1) // out - 1
    width = int((lasts - starts).max().item()) + 1
    window = (starts.unsqueeze(1) + _core.arange(width)).minimum(lasts.unsqueeze(1))  # [out, width]
    g = input.index_select(-1, window.reshape(-1)).reshape(lead + (out, width))
    values, local = _window_max(g)
    indices = (starts + local).minimum(lasts)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive windows of [N, C, H, W] (or [C, H, W]); None keeps a dim's size."""
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, return_indices)


@op_entry("adaptive_max_pool3d")
def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive windows of [N, C, D, H, W] (or [C, D, H, W])."""
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, return_indices)


def _lp_finish(out: Tensor, norm_type: float, window: int) -> Tensor:
    # mean of x^p times the window size, then the p-th root (negative means clamp to 0).
    return (out.sign() * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def _check_norm_type(norm_type: float) -> None:
    if norm_type == 0:
        raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Optional[Any] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over [N, C, L]: (sum over the window of x^p)^(1/p)."""
    _check_norm_type(norm_type)
    k = _ntuple(kernel_size, 1)[0]
    out = avg_pool1d(input.pow(norm_type), k, stride if stride is not None else k, 0, ceil_mode)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Optional[Any] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over [N, C, H, W]."""
    _check_norm_type(norm_type)
    kh, kw = _ntuple(kernel_size, 2)
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride if stride is not None else (kh, kw), 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Optional[Any] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over [N, C, D, H, W]."""
    _check_norm_type(norm_type)
    k = _ntuple(kernel_size, 3)
    out = avg_pool3d(input.pow(norm_type), k, stride if stride is not None else k, 0, ceil_mode)
    return _lp_finish(out, norm_type, k[0] * k[1] * k[2])


def _max_unpool(op: str, input: Tensor, indices: Tensor, n: int, kernel_size: Any, stride: Optional[Any], padding: Any, output_size: Optional[Sequence[int]]) -> Tensor:
    """Scatters pooled values back to the positions their indices name; zeros elsewhere."""
    k = _ntuple(kernel_size, n)
    s = k if stride is None else _ntuple(stride, n)
    p = _ntuple(padding, n)
    x, unbatched = _batched(op, input, n)
    idx = indices.unsqueeze(0) if unbatched else indices
    spatial_in = tuple(x.shape[2:])
    default = [(spatial_in[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n)]
    if output_size is None:
        size = default
    else:
        size = [int(v) for v in output_size]
        if len(size) == n + 2 or (unbatched and len(size) == n + 1):
            size = size[len(size) - n :]
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of '{len(size)}'")
        for i in range(n):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < size[i] < hi:
                raise ValueError(f'invalid output_size "{size}" (dim {i} must be between {lo} and {hi})')
    lead = tuple(x.shape[:2])
    total = math.prod(size)
    flat_idx = idx.reshape(*lead, -1)
    if flat_idx.numel() and (int(flat_idx.min().item()) < 0 or int(flat_idx.max().item()) >= total):
        bad = int(flat_idx.max().item()) if int(flat_idx.max().item()) >= total else int(flat_idx.min().item())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, size))})")
    # Overlapping windows can name one position twice (with the same value): assign, not add.
    out = _core.zeros(*lead, total, dtype=x.dtype).scatter(2, flat_idx, x.reshape(*lead, -1))
    out = out.reshape(*lead, *size)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of max_pool1d: values go back to their argmax positions."""
    return _max_unpool("max_unpool1d", input, indices, 1, kernel_size, stride, padding, output_size)


@op_entry("max_unpool2d")
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of max_pool2d."""
    return _max_unpool("max_unpool2d", input, indices, 2, kernel_size, stride, padding, output_size)


@op_entry("max_unpool3d")
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of max_pool3d."""
    return _max_unpool("max_unpool3d", input, indices, 3, kernel_size, stride, padding, output_size)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over [N, C, L] (or [C, L]); ``stride`` defaults to ``kernel_size``."""
    k, s, p, d = _pool_args(1, kernel_size, stride, padding, dilation)
    _check_pool("max_pool1d", input, 1, k, s, p, d, ceil_mode)
    v, i = _max_pool2d_overhang(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), (1, d[0]), ceil_mode)
    v, i = v.squeeze(-2), i.squeeze(-2)
    return (v, i) if return_indices else v


def max_pool2d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling over [N, C, H, W] (or [C, H, W]); ``stride`` defaults to ``kernel_size``."""
    k, s, p, d = _pool_args(2, kernel_size, stride, padding, dilation)
    _check_pool("max_pool2d", input, 2, k, s, p, d, ceil_mode)
    x = input.unsqueeze(0) if input.ndim == 3 else input
    v, i = _max_pool2d_overhang(x, k, s, p, d, ceil_mode)
    if input.ndim == 3:
        v, i = v.squeeze(0), i.squeeze(0)
    return (v, i) if return_indices else v


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over [N, C, L] (or [C, L])."""
    _check_pool("avg_pool1d", input, 1, *_pool_args(1, kernel_size, stride, padding, 1), ceil_mode)
    if input.dtype == _core.int64:
        return _int_average(avg_pool1d, input, kernel_size, stride, padding, ceil_mode, count_include_pad)
    if input.dtype in _HALF_TYPES:
        # PyTorch sums a half window in float32 and rounds the average once.
        return avg_pool1d(input.float(), kernel_size, stride, padding, ceil_mode, count_include_pad).to(input.dtype)
    if stride is not None and not isinstance(stride, int) and len(stride) == 0:
        stride = None  # an empty stride means the kernel size, as PyTorch reads it
    return K.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """2-D average pooling over [N, C, H, W] (or [C, H, W])."""
    _check_pool("avg_pool2d", input, 2, *_pool_args(2, kernel_size, stride, padding, 1), ceil_mode)
    if input.dtype == _core.int64:
        return _int_average(avg_pool2d, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if input.dtype in _HALF_TYPES:
        # PyTorch sums a half window in float32 and rounds the average once.
        return avg_pool2d(input.float(), kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override).to(input.dtype)
    if stride is not None and not isinstance(stride, int) and len(stride) == 0:
        stride = None  # an empty stride means the kernel size, as PyTorch reads it
    return K.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of [N, C, L] (or [C, L]) to ``output_size``."""
    _check_adaptive("adaptive_avg_pool1d", input, 1)
    return K.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of [N, C, H, W] (or [C, H, W]) to ``output_size`` (None keeps a dim)."""
    _check_adaptive("adaptive_avg_pool2d", input, 2)
    return K.adaptive_avg_pool2d(input, output_size)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    """max_pool1d returning (values, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    """max_pool2d returning (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    """max_pool3d returning (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    """adaptive_max_pool1d returning (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    """adaptive_max_pool2d returning (values, indices)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    """adaptive_max_pool3d returning (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


def _fractional_starts(samples: Any, in_size: int, out_size: int, pool: int, real: Any) -> Any:
    """Window starts per plane ([B, C, out] int64), from PyTorch's pseudo-random sequence."""
    u = samples.astype(real)
    seq = np.empty(u.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = real(in_size - pool) / real(out_size - 1)
        i = np.arange(out_size - 1, dtype=real)
        seq[..., :-1] = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    seq[..., -1] = in_size - pool
    return seq


def _fractional_max_pool(op: str, input: Tensor, n: int, kernel_size: Any, output_size: Any, output_ratio: Any, return_indices: bool, samples: Optional[Tensor]) -> Any:
    """Max over pseudo-random windows: rows (then columns, ...) are gathered per plane, so the
    gradient is gather's."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    x, unbatched = _batched(op, input, n)
    k = _ntuple(kernel_size, n)
    spatial = tuple(x.shape[2:])
    if output_size is None:
        ratio = (output_ratio,) * n if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
        outs = tuple(int(spatial[i] * ratio[i]) for i in range(n))
    else:
        outs = _ntuple(output_size, n)
    names = ["height", "width"] if n == 2 else ["time", "height", "width"]
    for i in range(n):
        # PyTorch's 2-D check allows the windows to reach the last element; its 3-D check does not.
        if outs[i] + k[i] - 1 > spatial[i] or (n == 3 and outs[i] + k[i] - 1 >= spatial[i]):
            where = f"{op}()" if n == 2 else f"{op}_out()"
            raise RuntimeError(f"{where}: pool {names[i]} {k[i]} too large relative to input {names[i]} {spatial[i]}")
    b, c = x.shape[0], x.shape[1]
    if samples is None:
        samples = _core.rand(b, c, n, dtype=x.dtype)
    elif samples.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    real = np.float64 if x.dtype == _core.float64 else np.float32
    u = np.asarray(samples.detach().numpy())
    # PyTorch's sample order: 2-D uses (width, height), 3-D uses (time, height, width).
    order = [1, 0] if n == 2 else [0, 1, 2]
    starts = [_fractional_starts(u[..., order[i]], spatial[i], outs[i], k[i], real) for i in range(n)]
    win = x
    for i in range(n):
        # Positions start + 0..k-1 of every window along dim 2+i, gathered for each plane.
        pos = (starts[i][..., None] + np.arange(k[i])).reshape(b, c, -1)
        shape = [b, c] + [1] * n
        shape[2 + i] = pos.shape[-1]
        idx = _core.tensor(pos.reshape(shape), dtype=_core.int64)
        full = list(win.shape)
        full[2 + i] = pos.shape[-1]
        win = win.gather(2 + i, idx.expand(tuple(full)).contiguous())
    # [B, C, o1*k1, o2*k2, ...] -> [B, C, o1, o2, ..., k1*k2*...]
    split = [b, c] + [v for i in range(n) for v in (outs[i], k[i])]
    perm = [0, 1] + [2 + 2 * i for i in range(n)] + [3 + 2 * i for i in range(n)]
    win = win.reshape(*split).permute(tuple(perm)).reshape(b, c, *outs, -1)
    values, local = win.max(-1)
    flat = _core.zeros(local.shape, dtype=_core.int64)
    rest = local
    for i in reversed(range(n)):
        offset = rest % k[i]
        rest = rest // k[i]
        shape = [b, c] + [1] * n
        shape[2 + i] = outs[i]
        start = _core.tensor(starts[i].reshape(shape), dtype=_core.int64)
        flat = flat + (start + offset) * math.prod(spatial[i + 1 :])
    if unbatched:
        values, flat = values.squeeze(0), flat.squeeze(0)
    return (values, flat) if return_indices else values


@op_entry("fractional_max_pool2d")
def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None, return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Any:
    """Fractional max pooling over [N, C, H, W] (or [C, H, W]) to ``output_size`` or ``output_ratio``."""
    return _fractional_max_pool("fractional_max_pool2d", input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)


@op_entry("fractional_max_pool3d")
def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None, return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Any:
    """Fractional max pooling over [N, C, D, H, W] (or [C, D, H, W])."""
    return _fractional_max_pool("fractional_max_pool3d", input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None, return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Any:
    """fractional_max_pool2d returning (values, indices)."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None, return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Any:
    """fractional_max_pool3d returning (values, indices)."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


# ---- modules ----


class _MaxPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over [N, C, L] (or [C, L])."""

    def forward(self, input: Tensor) -> Any:
        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over [N, C, H, W] (or [C, H, W])."""

    def forward(self, input: Tensor) -> Any:
        return max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over [N, C, D, H, W] (or [C, D, H, W])."""

    def forward(self, input: Tensor) -> Any:
        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)


class _AvgPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling over [N, C, L] (or [C, L]); its sizes are kept as 1-tuples, as in PyTorch."""

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__(_ntuple(kernel_size, 1), _ntuple(stride if stride is not None else kernel_size, 1), _ntuple(padding, 1), ceil_mode, count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling over [N, C, H, W] (or [C, H, W])."""

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling over [N, C, D, H, W] (or [C, D, H, W])."""

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad, self.divisor_override)


class _AdaptivePoolNd(Module):
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveAvgPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output length."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output height and width (None keeps the input's)."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output depth, height and width."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length."""

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output height and width (None keeps the input's)."""

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output depth, height and width."""

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size: Any, stride: Optional[Any] = None, ceil_mode: bool = False) -> None:
        super().__init__()
        _check_norm_type(norm_type)
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    """Power-average pooling over [N, C, L]."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over [N, C, H, W]."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over [N, C, D, H, W]."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    _n = 1

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _ntuple(padding, self._n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        return _max_unpool(f"max_unpool{self._n}d", input, indices, self._n, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d given its indices (non-maximal positions become zero)."""

    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d given its indices."""

    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d given its indices."""

    _n = 3


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None, return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = (tuple(output_ratio) if not isinstance(output_ratio, (int, float)) else (output_ratio,) * n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        return _fractional_max_pool(f"fractional_max_pool{self._n}d", input, self._n, self.kernel_size, self.output_size, self.output_ratio, self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-random overlapping windows (Graham, 2014) of [N, C, H, W]."""

    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-random overlapping windows of [N, C, D, H, W]."""

    _n = 3

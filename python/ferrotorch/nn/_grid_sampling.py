"""Spatial transformer sampling: ``affine_grid`` and ``grid_sample`` (with ATen's entry points
``affine_grid_generator`` and ``grid_sampler``/``grid_sampler_2d``/``grid_sampler_3d``).

Everything is a composition of differentiable ferrotorch ops, so gradients reach both the input
and the grid through autograd:

- grid coordinates are unnormalized to pixel units and passed through the padding mode (border
  clipping, reflection); those maps are written so that their gradients follow PyTorch's
  conventions (clipping passes no gradient at or beyond the edges; reflection flips the sign);
- the integer taps (floor / round, detached) become linear indices into the input flattened to
  [N, C, prod(spatial)]; one ``gather`` per call fetches every tap of every output point, taps
  outside the input read 0 (masked with ``where``, so they pass no gradient either);
- the interpolation weights are products of (coordinate - tap) factors, so the grid gradient is
  the one of PyTorch's kernels, and the gather's backward scatters the input gradient.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from .._grad_mode import no_grad
from .._index_ops import meshgrid
from .._op_entry import op_entry
from .._type_info import scalar_type_name

Tensor = _core.Tensor

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_DEFAULT_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)
# The cubic convolution constant of PyTorch's bicubic interpolation.
_CUBIC_A = -0.75


def _dtype_name(dt: Any) -> str:
    return str(dt).split(".")[-1]


# ----------------------------------------------------------------------------------------------
# affine_grid


def _neg_one_to_one(n: int, dtype: Any) -> List[float]:
    """PyTorch's ``linspace(-1, 1, n)`` in ``dtype``, bit for bit (n >= 2): its kernel computes
    start + step * i for the first half and end - step * (n - 1 - i) for the second, with the
    step rounded to the dtype (float for the half types) and the product fused into the sum
    (float16 excepted). The exact values are computed here and rounded once."""
    name = _dtype_name(dtype)
    half = n // 2
    if name == "float16":
        step32 = np.float32(2.0) / np.float32(n - 1)
        i = np.arange(n, dtype=np.float32)
        return np.where(i < half, np.float32(-1.0) + step32 * i, np.float32(1.0) - step32 * (np.float32(n - 1) - i)).tolist()
    if name == "float64":
        # Exact rationals (Python's int division rounds correctly): step = num / den.
        num, den = (2.0 / (n - 1)).as_integer_ratio()
        return [(num * i - den) / den if i < half else (den - num * (n - 1 - i)) / den for i in range(n)]
    # float32 and bfloat16: step * i with a float32 step is exact in float64, and so is the sum.
    step = float(np.float32(2.0) / np.float32(n - 1))
    i = np.arange(n, dtype=np.float64)
    return np.where(i < half, -1.0 + step * i, 1.0 - step * (n - 1 - i)).astype(np.float32).tolist()


def _base_coords(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalized coordinates of ``n`` output points along one dim: -1..1 at the corner
    pixels' centers (align_corners) or edges (otherwise); a single point sits at 0."""
    if n <= 1:
        return _core.zeros(max(n, 0), dtype=like.dtype, device=like.device)
    # Via float32 for the half types: their values are float32 values rounded once.
    via = _core.float32 if like.dtype in (_core.float16, _core.bfloat16) else like.dtype
    r = _core.tensor(_neg_one_to_one(n, like.dtype), dtype=via).to(like.dtype).to(like.device)
    # PyTorch shrinks the range to the pixel centers in two roundings (times n-1, then over n).
    return r if align_corners else (r * (n - 1)) / n


@op_entry("affine_grid_generator")
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """The sampling grid [N, *spatial, d] of the batch of affine maps ``theta`` [N, d, d+1]
    applied to the base grid of ``size`` ([N, C, H, W] or [N, C, D, H, W])."""
    size = [int(s) for s in size]
    nsp = len(size) - 2
    if nsp not in (2, 3):
        raise RuntimeError(f"affine_grid_generator: expected size of 4 or 5 elements, but got {size}")
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (nsp, nsp + 1):
        raise RuntimeError(f"affine_grid_generator: expected theta of shape [N, {nsp}, {nsp + 1}], but got {list(theta.shape)}")
    n, spatial = size[0], size[2:]
    if theta.shape[0] != n:
        # The batched product's text, as PyTorch (which multiplies by theta^T in bmm).
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {nsp + 1}] but got: [{theta.shape[0]}, {nsp + 1}].")
    # Coordinates in (x, y[, z], 1) order: x runs along the last spatial dim.
    axes = [_base_coords(s, align_corners, theta) for s in reversed(spatial)]
    mesh = meshgrid(*reversed(axes), indexing="ij")  # each of shape spatial, (z,) y, x order
    cols = list(reversed(mesh)) + [_core.ones(spatial, dtype=theta.dtype, device=theta.device)]
    # PyTorch's batched product base @ theta^T has a contraction of nsp + 1 terms, summed in
    # order (x * t0 + y * t1 [+ z * t2]) + t_last without fused multiply-adds, in float for the
    # half types; the same sum written out gives its result bit for bit (a GEMM's order differs
    # where the terms cancel).
    compute = _core.float32 if theta.dtype in (_core.float16, _core.bfloat16) else theta.dtype
    th = theta.to(compute).unsqueeze(1)  # [N, 1, nsp, nsp + 1]
    out = None
    for k in range(nsp):
        term = cols[k].to(compute).reshape(1, -1, 1) * th[..., k]
        out = term if out is None else out + term
    out = out + th[..., nsp]
    return out.to(theta.dtype).reshape([n] + spatial + [nsp])


def affine_grid(theta: Tensor, size: List[int], align_corners: Optional[bool] = None) -> Tensor:
    """The flow field of a batch of affine matrices ``theta`` ([N, 2, 3] for a 4-D ``size``,
    [N, 3, 4] for 5-D), for ``grid_sample``."""
    if align_corners is None:
        warnings.warn(_DEFAULT_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This is not an "
            "intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


# ----------------------------------------------------------------------------------------------
# Coordinate maps (grid units -> pixel units -> padded pixel units)


def _unnormalize(coord: Tensor, size: int, align_corners: bool, nsp: int = 3) -> Tensor:
    """[-1, 1] to pixel units: the corner pixels' centers (align_corners) or outer edges.

    Written as PyTorch's CPU kernels round it: the 2-D (vectorized) one scales by a precomputed
    half size, the 3-D one multiplies then halves; they differ where (coord + 1) * size
    overflows (a finite far point in 2-D, an infinite one in 3-D)."""
    if nsp == 2:
        if align_corners:
            return (coord + 1) * ((size - 1) / 2)
        if coord.dtype == _core.float32:
            # The kernel fuses the scaling and the - 0.5 (one rounding): exact in float64 here.
            return ((coord + 1).double() * (size / 2) - 0.5).float()
        return (coord + 1) * (size / 2) - 0.5
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord: Tensor, size: int, nsp: int = 2) -> Tensor:
    """Clamps to [0, size - 1]; the gradient is 1 strictly inside and 0 at or beyond the edges
    (PyTorch's kernels count the edges as out of bounds for the gradient)."""
    hi = float(size - 1)
    inside = (coord > 0) & (coord < hi)
    c = coord.detach()
    # A NaN coordinate (an overflowed or reflected infinity): PyTorch's 2-D kernel clamps it to
    # 0, its 3-D one (min(size - 1, max(NaN, 0)) in C++ comparisons) to size - 1.
    c = _core._where3(c != c, 0.0 if nsp == 2 else hi, c)
    return _core._where3(inside, coord, c.clamp(0.0, hi))


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Reflects into [twice_low / 2, twice_high / 2] as many times as needed; the gradient is
    +-1 by the parity of the number of reflections (0 for an empty span)."""
    if twice_low == twice_high:
        return _core._where3(_core.zeros((), dtype=_core.bool, device=coord.device), coord, 0.0)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = coord - low
    a = _core._where3(d < 0, -d, d)
    extra = a.fmod(span)
    flips = (a.detach() / span).floor()
    odd = flips.fmod(2.0) == 1
    return _core._where3(odd, (span - extra) + low, extra + low)


def _reflect_2d(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Reflection as PyTorch's 2-D kernel rounds it: the distance to the low edge minus a whole
    number of double spans (not an exact fmod, so far points land where its float arithmetic
    puts them), then one more flip if past the high edge; an infinity becomes NaN."""
    if align_corners and size <= 1:
        return _core._where3(_core.zeros((), dtype=_core.bool, device=coord.device), coord, 0.0)
    low = 0.0 if align_corners else -0.5
    twice_span = float(2 * (size - 1) if align_corners else 2 * size)
    d = coord - low if low else coord
    a = _core._where3(d < 0, -d, d)
    whole = (a.detach() / twice_span).trunc()
    if a.dtype == _core.float32:
        # PyTorch's kernel fuses this multiply-subtract (one rounding): exact in float64 here.
        extra = (a.double() - whole.double() * twice_span).float()
    else:
        extra = a - whole * twice_span
    back = twice_span - extra
    # NaN stays NaN (no flip), as the kernel's NaN-propagating minimum.
    out = _core._where3(extra > back, back, extra)
    return out + low if low else out


def _pad_coords(coord: Tensor, size: int, padding: int, align_corners: bool, nsp: int = 2) -> Tensor:
    """Applies the padding mode to pixel coordinates (zeros: unchanged, taps outside read 0)."""
    if padding == 1:
        return _clip(coord, size, nsp)
    if padding == 2:
        if nsp == 2:
            return _clip(_reflect_2d(coord, size, align_corners), size, nsp)
        reflected = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        return _clip(reflected, size, nsp)
    return coord


# ----------------------------------------------------------------------------------------------
# Taps


def _flat_taps(taps: Sequence[Sequence[Tensor]], sizes: Sequence[int]) -> Tuple[Tensor, Tensor]:
    """Linear indices into the flattened spatial dims, and the in-bounds mask, of several taps.

    ``taps[k]`` gives the (integer-valued, float) coordinate per spatial dim, slowest dim first,
    each [N, L]; the result stacks the taps along dim 1: [N, K * L] (indices clamped in range)."""
    idx_rows, ok_rows = [], []
    for coords in taps:
        lin = None
        ok = None
        for c, s in zip(coords, sizes):
            inside = (c >= 0) & (c <= s - 1)
            ok = inside if ok is None else ok & inside
            ci = c.clamp(0.0, float(s - 1)).long()
            lin = ci if lin is None else lin * s + ci
        idx_rows.append(lin)
        ok_rows.append(ok)
    return _core.cat(idx_rows, 1), _core.cat(ok_rows, 1)


def _read_taps(flat: Tensor, index: Tensor, ok: Tensor) -> Tensor:
    """flat [N, C, S] at index [N, K*L] -> [N, C, K*L], 0 where ``ok`` is False."""
    n, c = flat.shape[0], flat.shape[1]
    vals = flat.gather(2, index.unsqueeze(1).expand(n, c, index.shape[1]))
    return _core._where3(ok.unsqueeze(1), vals, 0.0)


def _cubic_coeffs(t: Tensor) -> List[Tensor]:
    """The four cubic convolution weights of the taps at -1, 0, 1, 2 for fraction ``t``."""
    a = _CUBIC_A

    def near(x: Tensor) -> Tensor:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _sample(input: Tensor, grid: Tensor, mode: int, padding: int, align_corners: bool) -> Tensor:
    """The sampling itself, for 4-D or 5-D input in a floating dtype ferrotorch computes in."""
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # slowest first: (D,) H, W
    nsp = len(sizes)
    out_spatial = list(grid.shape[1:-1])
    g = grid.reshape(n, -1, nsp)
    # Grid columns are (x, y[, z]): reversed relative to the input's spatial dims.
    coords = [_unnormalize(g[:, :, nsp - 1 - k], sizes[k], align_corners, nsp) for k in range(nsp)]
    flat = input.reshape(n, c, -1)
    npts = g.shape[1]

    if mode == 2:
        # Bicubic (tricubic for 5-D): 4 taps per dim around floor(coord), the padding mode
        # applied to each tap; the weights are cubic convolution coefficients of the fractions.
        base = [x.detach().floor() for x in coords]
        fracs = [x - b for x, b in zip(coords, base)]
        with no_grad():
            per_dim = [[_pad_coords(b + (k - 1), s, padding, align_corners, nsp) for k in range(4)] for b, s in zip(base, sizes)]
        taps = [[per_dim[k][t] for k, t in enumerate(pick)] for pick in itertools.product(range(4), repeat=nsp)]
        index, ok = _flat_taps(taps, sizes)
        out = _read_taps(flat, index, ok).reshape([n, c] + [4] * nsp + [npts])
        # Interpolates along the fastest dim first (x, then y, then z), as PyTorch does.
        # The four products are summed left to right, as PyTorch's kernels do.
        for k in reversed(range(nsp)):
            coef = _cubic_coeffs(fracs[k])  # 4 x [N, L]
            shape = [n, 1] + [1] * k + [npts]
            parts = out.unbind(2 + k)
            acc = parts[0] * coef[0].reshape(shape)
            for j in range(1, 4):
                acc = acc + parts[j] * coef[j].reshape(shape)
            out = acc
    else:
        coords = [_pad_coords(x, s, padding, align_corners, nsp) for x, s in zip(coords, sizes)]
        if mode == 1:
            # Nearest (ties to even, as nearbyint): one tap, no gradient for the grid.
            with no_grad():
                index, ok = _flat_taps([[x.round() for x in coords]], sizes)
            out = _read_taps(flat, index, ok)
            if grid.requires_grad and _core.is_grad_enabled():
                # PyTorch's grid gradient is zeros, not absent: a branch never taken links it.
                link = g[:, :, 0].unsqueeze(1)
                out = _core._where3(_core.ones((), dtype=_core.bool, device=out.device), out, link)
        else:
            # (Bi/tri)linear: the 2^d corners of the cell; the weight of a corner is the
            # product over dims of (1 - |coord - corner|), written as PyTorch does.
            lo = [x.detach().floor() for x in coords]
            hi = [b + 1 for b in lo]
            taps, weights = [], []
            for corner in range(2**nsp):
                pick = [(corner >> (nsp - 1 - k)) & 1 for k in range(nsp)]
                taps.append([hi[k] if p else lo[k] for k, p in enumerate(pick)])
                w = None
                for k, p in enumerate(pick):
                    f = (coords[k] - lo[k]) if p else (hi[k] - coords[k])
                    w = f if w is None else w * f
                weights.append(w)
            with no_grad():
                index, ok = _flat_taps(taps, sizes)
            vals = _read_taps(flat, index, ok).reshape(n, c, 2**nsp, npts)
            prods = vals * _core.stack(weights, 1).unsqueeze(1)
            if nsp == 3:
                # The 3-D kernel skips an outside corner, so its (NaN or infinite) weight of a
                # far or non-finite coordinate does not reach the result (2-D multiplies a 0).
                prods = _core._where3(ok.reshape(n, 1, 2**nsp, npts), prods, 0.0)
            out = prods.sum(2)
    return out.reshape([n, c] + out_spatial)


def _check(input: Tensor, grid: Tensor, mode: int) -> None:
    """ATen's shape checks, in its order and with its texts."""
    if input.ndim == 0 or grid.ndim == 0:
        # ATen reads both batch sizes before anything else.
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on {input.device} and grid is on {grid.device}")
    in_sizes, grid_sizes = list(input.shape), list(grid.shape)
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes {in_sizes} and grid with sizes {grid_sizes}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got grid with sizes {grid_sizes}")
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {in_sizes} with dimension {i} being empty")
    if input.ndim == 4 and grid.ndim == 4:
        return
    if input.ndim != 5 or grid.ndim != 5:
        want = 4 if input.ndim == 4 else 5
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got input with sizes {in_sizes} and grid with sizes {grid_sizes}")


def _check_dtype(input: Tensor) -> None:
    """The kernel's dtype dispatch: floating inputs only."""
    if not input.is_floating_point() or input.is_complex():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if input.ndim == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(input.dtype)}\'')


def _grid_sampler_name(input: Tensor, *args: Any, **kwargs: Any) -> str:
    return "grid_sampler_3d" if input.ndim == 5 else "grid_sampler_2d"


@op_entry(_grid_sampler_name)
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool) -> Tensor:
    """ATen's entry of ``grid_sample``: modes 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
    1 border, 2 reflection."""
    _check(input, grid, interpolation_mode)
    # The modes are checked after the tensors, as PyTorch does.
    if interpolation_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): expected interpolation_mode to be 0, 1 or 2, but got {interpolation_mode}")
    if padding_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): expected padding_mode to be 0, 1 or 2, but got {padding_mode}")
    if input.ndim == 5:
        # The 3-D kernel dispatches on the dtype before it looks at the sizes.
        _check_dtype(input)
    shape = list(input.shape[:2]) + list(grid.shape[1:-1])
    if 0 in shape:
        # An empty result returns before the 2-D dispatch and before the grid's dtype is
        # compared (a complex or integer input, a grid of another dtype are no error here).
        out = _core.zeros(shape, dtype=input.dtype, device=input.device)
        for t in (input, grid):
            if t.requires_grad:
                # Still a function of both, so that backward gives (zero) gradients.
                out = out + (t.sum() * 0).to(input.dtype)
        return out
    _check_dtype(input)
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found {scalar_type_name(grid.dtype)}")
    if input.dtype in (_core.float16, _core.bfloat16):
        # Computed in float32, rounded once at the end.
        out = _sample(input.float(), grid.float(), interpolation_mode, padding_mode, bool(align_corners))
        return out.to(input.dtype)
    return _sample(input, grid, interpolation_mode, padding_mode, bool(align_corners))


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool) -> Tensor:
    """``grid_sampler`` for 4-D input [N, C, H, W] and grid [N, Ho, Wo, 2]."""
    if input.ndim != 4 or grid.ndim != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool) -> Tensor:
    """``grid_sampler`` for 5-D input [N, C, D, H, W] and grid [N, Do, Ho, Wo, 3]."""
    if input.ndim != 5 or grid.ndim != 5:
        raise RuntimeError(f"grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros", align_corners: Optional[bool] = None) -> Tensor:
    """Samples ``input`` ([N, C, H, W] or [N, C, D, H, W]) at the normalized locations ``grid``
    ([N, Ho, Wo, 2] or [N, Do, Ho, Wo, 3], (x, y[, z]) in [-1, 1]) by bilinear (trilinear),
    nearest or bicubic (tricubic) interpolation; outside points follow ``padding_mode``."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


"""Resizing: ``F.interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area) and the Upsample / UpsamplingNearest2d / UpsamplingBilinear2d layers.

Every mode is separable: each spatial dim is resampled in turn as a weighted sum of a few
``index_select`` taps (1 nearest, 2 linear, 4 cubic), so autograd gives the gradient. Source
positions and weights are computed as PyTorch's CPU kernels do, in the input's precision.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, List, Optional, Tuple

import numpy as np

from ... import _core
from ... import _nn_kernels as K
from .module import Module
from .pooling import adaptive_avg_pool3d

Tensor = _core.Tensor

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_CUBIC_A = -0.75


def _source_scale(in_size: int, out_size: int, scale: Optional[float], align_corners: bool, real: Any) -> Any:
    """Input pixels per output pixel, as PyTorch computes it (a given scale factor wins)."""
    if align_corners:
        return real((in_size - 1) / (out_size - 1)) if out_size > 1 else real(0)
    if scale is not None and scale > 0:
        return real(1.0 / scale)
    return real(in_size) / real(out_size)


def _taps(in_size: int, out_size: int, mode: str, align_corners: bool, scale: Optional[float], real: Any, spatial_dims: int) -> List[Tuple[List[int], List[float]]]:
    """(source indices, weights) per tap for one spatial dim."""
    dst = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        s = _source_scale(in_size, out_size, scale, False, np.float32)
        offset = np.float32(0.5) if mode == "nearest-exact" else np.float32(0.0)
        src = np.floor((dst.astype(np.float32) + offset) * s).astype(np.int64)
        # PyTorch's 2-D nearest shortcuts: equal sizes copy, exact doubling halves the index (in
        # 1-D and 3-D a given scale factor is used even when the size does not change).
        if mode == "nearest" and out_size == in_size and spatial_dims == 2:
            src = dst
        elif mode == "nearest" and out_size == 2 * in_size and spatial_dims == 2:
            src = dst >> 1
        return [(np.minimum(src, in_size - 1).tolist(), [1.0] * out_size)]
    s = _source_scale(in_size, out_size, scale, align_corners, real)
    d = dst.astype(real)
    if align_corners:
        pos = s * d
    else:
        pos = s * (d + real(0.5)) - real(0.5)
    if mode == "bicubic":
        base = np.floor(pos).astype(np.int64)
        t = (pos - base).astype(real)
        a = real(_CUBIC_A)

        def near(x: Any) -> Any:
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def far(x: Any) -> Any:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
        return [(np.clip(base - 1 + i, 0, in_size - 1).tolist(), weights[i].tolist()) for i in range(4)]
    pos = np.maximum(pos, real(0))
    i0 = pos.astype(np.int64)
    lam1 = np.clip(pos - i0, 0, 1).astype(real)
    i1 = np.where(i0 < in_size - 1, i0 + 1, i0)
    return [(i0.tolist(), (1 - lam1).tolist()), (i1.tolist(), lam1.tolist())]


def _aa_filter(x: Any, mode: str) -> Any:
    """The antialiasing kernels: a triangle (bilinear) or Keys' cubic with a = -0.5 (bicubic)."""
    x = np.abs(x)
    if mode == "bilinear":
        return np.where(x < 1, 1 - x, 0)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _aa_matrix(in_size: int, out_size: int, mode: str, align_corners: bool, scale: Optional[float], real: Any) -> Any:
    """[out, in] resampling weights with antialiasing: the filter widens by the downscale factor
    and each row is normalised, as PyTorch's (PIL-derived) CPU kernel computes them."""
    s = _source_scale(in_size, out_size, scale, align_corners, real)
    interp = 2 if mode == "bilinear" else 4
    support = real(interp * 0.5) * s if s >= 1 else real(interp * 0.5)
    invscale = real(1) / s if s >= 1 else real(1)
    max_taps = int(math.ceil(support)) * 2 + 1
    weights = np.zeros((out_size, in_size), dtype=real)
    for i in range(out_size):
        center = s * real(i + 0.5)
        lo = max(int(center - support + real(0.5)), 0)
        size = min(max(min(int(center + support + real(0.5)), in_size) - lo, 0), max_taps)
        j = np.arange(size, dtype=real)
        w = _aa_filter((j + lo - center + real(0.5)) * invscale, mode).astype(real)
        total = w.sum(dtype=real)
        weights[i, lo : lo + size] = w / total if total != 0 else w
    return weights


def _resample(x: Tensor, dim: int, out_size: int, mode: str, align_corners: bool, scale: Optional[float], antialias: bool = False) -> Tensor:
    real = np.float64 if x.dtype == _core.float64 else np.float32
    if antialias:
        # Many taps per output: one product with the dense [out, in] weight matrix.
        w = _core.tensor(_aa_matrix(x.shape[dim], out_size, mode, align_corners, scale, real), dtype=x.dtype)
        return x.movedim(dim, -1).matmul(w.t()).movedim(-1, dim)
    taps = _taps(x.shape[dim], out_size, mode, align_corners, scale, real, x.ndim - 2)
    shape = [1] * x.ndim
    shape[dim] = out_size
    picked = [x.index_select(dim, _core.tensor(idx, dtype=_core.int64)) for idx, _ in taps]
    if len(taps) == 2:
        # Linear: one fused lerp by the second tap's weight (about twice as fast as two products).
        return picked[0].lerp(picked[1], _core.tensor(taps[1][1], dtype=x.dtype).reshape(*shape))
    out: Any = None
    for term, (_, w) in zip(picked, taps):
        if mode not in ("nearest", "nearest-exact"):
            term = term * _core.tensor(w, dtype=x.dtype).reshape(*shape)
        out = term if out is None else out + term
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def interpolate(input: Tensor, size: Optional[Any] = None, scale_factor: Optional[Any] = None, mode: str = "nearest", align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None, antialias: bool = False) -> Tensor:
    """Resizes [N, C, *spatial] to ``size`` or by ``scale_factor``.

    >>> import ferrotorch as torch
    >>> torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2).shape
    torch.Size([1, 1, 4, 4])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: List[Optional[float]]
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_int(v) for v in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            out_size = [int(v) for v in size]
        else:
            out_size = [int(size)] * dim
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out_size = [int(math.floor(input.shape[2 + i] * scales[i])) for i in range(dim)]  # type: ignore[operator]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * dim
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input")
    if mode not in _MODES or input.ndim not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if mode in _NEEDS and input.ndim != _NEEDS[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    if not input.dtype.is_floating_point:
        # PyTorch resizes uint8 images too, but its linear/cubic uint8 path rounds in fixed
        # point, which a float computation does not reproduce exactly.
        if input.dtype != _core.uint8:
            raise NotImplementedError(f"interpolate: mode '{mode}' is not implemented for {input.dtype} input")
        if mode not in ("nearest", "nearest-exact"):
            raise NotImplementedError(f"interpolate: mode '{mode}' on uint8 input is not supported yet (only nearest and nearest-exact)")
    if any(v <= 0 for v in out_size) and mode != "area":
        names = "DHW"[3 - dim :]
        shown_in = ", ".join(f"{n}: {v}" for n, v in zip(names, input.shape[2:]))
        shown_out = ", ".join(f"{n}: {v}" for n, v in zip(names, out_size))
        joint = " and output" if dim == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_in}){joint} ({shown_out})")
    if any(v == 0 for v in out_size):
        # An empty area result: an empty view of the input, so that it still joins the graph.
        empty = input.narrow(2 + out_size.index(0), 0, 0)
        return empty.reshape(*input.shape[:2], *out_size)
    if mode == "area":
        if dim == 1:
            return K.adaptive_avg_pool1d(input, out_size)
        if dim == 2:
            return K.adaptive_avg_pool2d(input, out_size)
        return adaptive_avg_pool3d(input, out_size)
    # A dim whose size does not change is copied, whatever the scale factor, by PyTorch's linear
    # kernels, its antialiased ones and its 2-D nearest (not by bicubic, nor 1-D/3-D nearest).
    copies_same = mode in ("linear", "bilinear", "trilinear") or antialias or (mode == "nearest" and dim == 2)
    out = input
    for i in range(dim):
        if not (copies_same and out_size[i] == input.shape[2 + i]):
            out = _resample(out, 2 + i, out_size[i], mode, bool(align_corners), scales[i], antialias)
    return out


def upsample(input: Tensor, size: Optional[Any] = None, scale_factor: Optional[Any] = None, mode: str = "nearest", align_corners: Optional[bool] = None) -> Tensor:
    """Deprecated alias of :func:`interpolate`."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Optional[Any] = None, scale_factor: Optional[Any] = None) -> Tensor:
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Optional[Any] = None, scale_factor: Optional[Any] = None) -> Tensor:
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    """Resizes [N, C, *spatial] inputs with :func:`interpolate`."""

    def __init__(self, size: Optional[Any] = None, scale_factor: Optional[Any] = None, mode: str = "nearest", align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners, recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of [N, C, H, W] inputs."""

    def __init__(self, size: Optional[Any] = None, scale_factor: Optional[Any] = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of [N, C, H, W] inputs with ``align_corners=True``."""

    def __init__(self, size: Optional[Any] = None, scale_factor: Optional[Any] = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]

"""Padding: ``F.pad`` with every mode, and the Zero/Constant/Reflection/Replication/Circular
pad layers in 1-D, 2-D and 3-D.

The non-constant modes gather source positions with ``index_select`` one dim at a time, so
their gradient (a scatter-add back to the sources) comes from autograd.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ... import _core
from ..._op_entry import op_entry
from .module import Module

Tensor = _core.Tensor

_MODES = ("constant", "reflect", "replicate", "circular")


def _source_index(i: int, size: int, mode: str) -> int:
    """The input position that output position ``i`` (in input coordinates) copies."""
    if mode == "replicate":
        return min(max(i, 0), size - 1)
    # reflect: mirror about the first and last element without repeating them.
    if i < 0:
        return -i
    if i >= size:
        return 2 * (size - 1) - i
    return i


def _check_sizes(input: Tensor, pad: Sequence[int], mode: str) -> None:
    npad = len(pad) // 2
    if input.ndim not in (npad + 1, npad + 2) or npad > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    shape = list(input.shape)
    first = 1 if input.ndim == npad + 2 else 0
    if any(s == 0 for s in shape[first:]):
        lo = npad + 1
        raise RuntimeError(
            f"Expected {lo}D or {lo + 1}D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {shape}"
        )
    for k in range(npad):
        d = input.ndim - 1 - k
        left, right = int(pad[2 * k]), int(pad[2 * k + 1])
        if mode == "reflect" and (left >= shape[d] or right >= shape[d]):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({left}, {right}) at dimension {d} of input {shape}"
            )
        if mode == "circular" and (left > shape[d] or right > shape[d]):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode != "circular" and shape[d] + left + right < 1:
            name = "WHD"[k]
            raise RuntimeError(f"input ({name}: {shape[d]}) is too small. Calculated output {name}: {shape[d] + left + right}")


_PAD_OPS = {("reflect", 1): "reflection_pad1d", ("reflect", 2): "reflection_pad2d", ("reflect", 3): "reflection_pad3d", ("replicate", 1): "replication_pad1d", ("replicate", 2): "replication_pad2d", ("replicate", 3): "replication_pad3d"}


def constant_pad_scalar(input: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """Constant padding (negative amounts crop) with ``value`` taken as PyTorch's Scalar: an
    int stays exact, a complex fills a bool or complex tensor (``torch.constant_pad_nd``'s
    value; ``F.pad`` passes a float). ``pad`` lists (left, right) pairs from the last dim and
    is assumed no longer than twice the rank.

    As in PyTorch, the value is converted (and refused where the dtype cannot hold it) exactly
    when some amount is positive, even where the result is empty."""
    pad = [int(p) for p in pad]
    shape = list(input.shape)
    crop: List[Any] = [slice(None)] * input.ndim
    place: List[Any] = [slice(None)] * input.ndim
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        size, left, right = shape[d], pad[2 * k], pad[2 * k + 1]
        if size + min(left, 0) + min(right, 0) < 0 or size + left + right < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        kept = size + min(left, 0) + min(right, 0)
        crop[d] = slice(max(-left, 0), max(-left, 0) + kept)
        place[d] = slice(max(left, 0), max(left, 0) + kept)
        shape[d] = size + left + right
    if not any(p > 0 for p in pad):
        return input[tuple(crop)].clone()  # cropping only: no value is written, none checked
    _core.full((), value, dtype=input.dtype)  # the value's conversion check, also for an empty result
    out = _core.full(shape, value, dtype=input.dtype)
    out[tuple(place)] = input[tuple(crop)]
    return out


def _pad_op_name(*args: Any, **kwargs: Any) -> Optional[str]:
    """The aten op ``pad`` runs for these arguments (autocast's policy is per padding op)."""
    pad_arg = kwargs.get("pad", args[1] if len(args) > 1 else ())
    mode = kwargs.get("mode", args[2] if len(args) > 2 else "constant")
    return _PAD_OPS.get((mode, len(pad_arg) // 2), "constant_pad_nd" if mode == "constant" else None)


@op_entry(_pad_op_name)
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """Pads ``input``; ``pad`` lists (left, right) amounts starting from the last dim.

    ``mode`` is ``'constant'`` (fill with ``value``, default 0), ``'reflect'`` (mirror without
    the edge), ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around). Negative
    amounts crop.

    >>> import ferrotorch as torch
    >>> torch.nn.functional.pad(torch.arange(4.0).reshape(1, 1, 4), (2, 1), mode="reflect")
    tensor([[[2., 1., 0., 1., 2., 3., 2.]]])
    """
    if mode == "constant" and value is not None:
        if isinstance(value, complex):
            raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {type(value).__name__}")
        value = float(value)  # PyTorch's F.pad takes the value as a float (2**63 - 1 overflows int64)
    pad = [int(p) for p in pad]
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    if mode == "constant":
        return constant_pad_scalar(input, pad, 0 if value is None else value)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_sizes(input, pad, mode)
    out = input
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        if left == 0 and right == 0:
            continue
        size = out.shape[d]
        if mode == "circular":
            # Negative amounts crop first; the wrap-around then reads the cropped span.
            lo, span = max(-left, 0), size - max(-left, 0) - max(-right, 0)
            lo, span = (lo, span) if span > 0 else (0, size)
            idx = [lo + (i - max(left, 0)) % span for i in range(size + left + right)]
        else:
            idx = [_source_index(i - left, size, mode) for i in range(size + left + right)]
        out = out.index_select(d, _core.tensor(idx, dtype=_core.int64))
    return out


def _ntuple_pad(padding: Any, n: int) -> Tuple[int, ...]:
    """A padding argument as 2*n ints (left, right per dim, last dim first)."""
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    return tuple(padding)


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple_pad(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant: ``padding`` is an int or (left, right)."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant: an int or (left, right, top, bottom)."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with a constant: an int or (left, right, top, bottom, front, back)."""

    _n = 3


def _zero_init(self: Any, padding: Any) -> None:
    _ConstantPadNd.__init__(self, padding, 0.0)


def _zero_repr(self: Any) -> str:
    return f"{self.padding}"


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros (a ConstantPad1d with value 0, as in PyTorch)."""

    __init__ = _zero_init
    extra_repr = _zero_repr


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros."""

    __init__ = _zero_init
    extra_repr = _zero_repr


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zeros."""

    __init__ = _zero_init
    extra_repr = _zero_repr


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with its mirror image (the edge not repeated)."""

    _n, _mode = 1, "reflect"


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last 2 dims with their mirror image."""

    _n, _mode = 2, "reflect"


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last 3 dims with their mirror image."""

    _n, _mode = 3, "reflect"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim by repeating its edge values."""

    _n, _mode = 1, "replicate"


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last 2 dims by repeating their edge values."""

    _n, _mode = 2, "replicate"


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last 3 dims by repeating their edge values."""

    _n, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.ndim}D input)")
        return pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping around."""

    _n, _mode = 1, "circular"


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims by wrapping around."""

    _n, _mode = 2, "circular"


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims by wrapping around."""

    _n, _mode = 3, "circular"


__all__: List[str] = [n for n in dir() if n.endswith(("Pad1d", "Pad2d", "Pad3d"))] + ["pad"]

"""``torch.frombuffer``: a 1-D tensor over the memory of a Python buffer (``bytearray``,
``array.array``, ``memoryview``, ``mmap`` ...), sharing it: writes through either side show
in the other. The bytes reach the core through NumPy (``from_numpy`` shares the memory), and
``_core._storage_view`` reads them as the requested dtype (any dtype, bfloat16 included)."""

from __future__ import annotations

import warnings
from typing import Any, Tuple

import numpy as np

from . import _core

Tensor = _core.Tensor

_warned_not_writable = False


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor of ``count`` elements of ``dtype`` (all of them for -1) read from
    ``buffer`` after skipping ``offset`` bytes, sharing the buffer's memory."""
    global _warned_not_writable
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    itemsize = _core.empty(0, dtype=dtype).element_size()
    length = view.nbytes
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % itemsize != 0:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple of element size ({itemsize})"
            )
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(
            f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) must not be greater "
            f"than actual buffer length ({length} bytes)"
        )
    if view.readonly and not _warned_not_writable:
        _warned_not_writable = True  # PyTorch warns once per program
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can "
            "write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the "
            "buffer to protect its data or make it writable before converting it to a tensor. This type of warning "
            "will be suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    raw = np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view, dtype=np.uint8)
    raw = raw[offset : offset + count * itemsize]
    out = _core._storage_view(_core.from_numpy(raw), [count], [1], 0, dtype)
    return out.requires_grad_(True) if requires_grad else out


__all__: Tuple[str, ...] = ("frombuffer",)
METHODS: Tuple[Any, ...] = ()

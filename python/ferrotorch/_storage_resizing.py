"""Re-pointing a tensor at other memory: ``resize_``, ``resize_as_``, ``set_`` and ``is_set_to``.

They work on the storage under a tensor (``_core._storage_nbytes`` / ``_core._storage_view``)
and rebind the tensor object with ``t.data = other``, which makes it show other's memory."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple

from . import _core

Tensor = _core.Tensor


def _contiguous_strides(size: Sequence[int]) -> Tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(size):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _sizes(name: str, sizes: Tuple[Any, ...]) -> Tuple[int, ...]:
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    out = tuple(int(s) for s in sizes)
    if any(s < 0 for s in out):
        raise RuntimeError(f"{name}: Trying to create tensor with negative dimension: {list(out)}")
    return out


def _storage_numel(t: Tensor) -> int:
    return _core._storage_nbytes(t) // t.element_size()


def _bump_version(t: Tensor) -> None:
    # An in-place op over no elements: marks the memory as written without touching a value.
    _core._storage_view(t, [0], [1], 0).zero_()


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """Gives ``self`` the shape ``sizes`` (contiguous strides) over its storage, growing the
    storage when it is too small: the first elements keep their storage-order values, new ones
    are uninitialised (zero here). Returns ``self``."""
    size = _sizes("resize_", sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if memory_format is not None and str(memory_format) not in ("torch.contiguous_format", "torch.preserve_format"):
        raise RuntimeError(f"resize_: unsupported memory format {memory_format}")
    if size == tuple(self.shape):
        _bump_version(self)
        return self  # PyTorch keeps the strides when the shape does not change
    n = math.prod(size)
    offset = self.storage_offset()
    have = _storage_numel(self)
    strides = _contiguous_strides(size)
    if offset + n <= have:
        self.data = _core._storage_view(self, list(size), list(strides), offset)
    else:
        # PyTorch grows the storage in place, keeping the offset and the old storage's values.
        grown = _core.zeros(offset + n, dtype=self.dtype)
        if have:
            grown[:have] = _core._storage_view(self, [have], [1], 0)
        self.data = grown[offset:].view(size)
    _bump_version(self)
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``resize_`` to the shape of ``the_template``. Returns ``self``."""
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


def set_(
    self: Tensor,
    source: Optional[Tensor] = None,
    storage_offset: Optional[int] = None,
    size: Optional[Sequence[int]] = None,
    stride: Optional[Sequence[int]] = None,
) -> Tensor:
    """Makes ``self`` show ``source``'s memory: with only ``source``, its exact layout; with
    ``storage_offset`` and ``size`` (and ``stride``, contiguous by default), that view of its
    storage; with nothing, an empty tensor of the same dtype. Returns ``self``."""
    if self.requires_grad and self.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if source is None:
        if storage_offset is not None or size is not None or stride is not None:
            raise TypeError("set_() received an invalid combination of arguments")
        self.data = _core.empty(0, dtype=self.dtype)
        _bump_version(self)
        return self
    if not isinstance(source, Tensor):
        raise TypeError(f"set_(): argument 'source' must be Tensor, not {type(source).__name__}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}")
    if storage_offset is None and size is None and stride is None:
        view = _core._storage_view(source, list(source.shape), list(source.stride()), source.storage_offset())
    else:
        if storage_offset is None or size is None:
            raise TypeError("set_() received an invalid combination of arguments: storage_offset and size go together")
        size = tuple(int(s) for s in size)
        stride = _contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
        if len(stride) != len(size):
            raise RuntimeError(
                f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
            )
        view = _core._storage_view(source, list(size), list(stride), int(storage_offset))
    self.data = view
    _bump_version(self)
    return self


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors view the same storage with the same offset, shape and strides."""
    if _core._storage_nbytes(self) == 0 or _core._storage_nbytes(tensor) == 0:
        return False  # PyTorch: two empty storages are never the same
    return (
        self.untyped_storage_ptr() == tensor.untyped_storage_ptr()
        and self.storage_offset() == tensor.storage_offset()
        and tuple(self.shape) == tuple(tensor.shape)
        and tuple(self.stride()) == tuple(tensor.stride())
    )


__all__: Tuple[str, ...] = ()
METHODS: Tuple[Any, ...] = (resize_, resize_as_, set_, is_set_to)

"""The deprecated out-of-place ``Tensor.resize(*sizes)`` and ``Tensor.resize_as(other)``:
autograd's resize only changes the shape, keeping the number of elements (a ``reshape``,
differentiable), with PyTorch's deprecation warning and error."""

from __future__ import annotations

import math
import warnings
from typing import Any, Tuple

from . import _core

Tensor = _core.Tensor


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """``self`` reshaped to ``sizes`` (same number of elements), as a differentiable result."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    if not all(isinstance(s, int) for s in sizes):
        # PyTorch's autograd resize takes the sizes unpacked only: a tuple is not a size
        raise RuntimeError(
            f"requested resize to {sizes[0] if len(sizes) == 1 else sizes} ({sizes[0] if len(sizes) == 1 else sizes} "
            f"elements in total), but the given tensor has a size of {'x'.join(str(s) for s in self.shape)} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. "
        )
    shape = tuple(sizes)
    n = math.prod(shape)
    if n != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(str(s) for s in shape)} ({n} elements in total), but the given tensor has "
            f"a size of {'x'.join(str(s) for s in self.shape)} ({self.numel()} elements). autograd's resize can only "
            "change the shape of a given tensor, while preserving the number of elements. "
        )
    return self.reshape(shape)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """``self.resize(tensor.size())``."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return resize(self, *tensor.shape)


__all__: Tuple[str, ...] = ()
METHODS: Tuple[Any, ...] = (resize, resize_as)

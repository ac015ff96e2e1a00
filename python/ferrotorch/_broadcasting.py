"""``broadcast_tensors``: views of several tensors expanded to their common shape."""

from __future__ import annotations

from typing import List

from . import _core

Tensor = _core.Tensor


def broadcast_tensors(*tensors: Tensor) -> List[Tensor]:
    """Expands all tensors to their common broadcast shape (views, no copies)."""
    shape = _core.broadcast_shapes(*[t.shape for t in tensors])
    return [t.expand(tuple(shape)) for t in tensors]

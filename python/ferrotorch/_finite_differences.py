"""``diff``: n-th forward differences along a dim, with optional prepended/appended values."""

from __future__ import annotations

from typing import Optional

from . import _core

Tensor = _core.Tensor


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None, append: Optional[Tensor] = None) -> Tensor:
    """n-th forward difference along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    x = input
    if prepend is not None or append is not None:
        x = _core.cat([t for t in (prepend, x, append) if t is not None], dim)
    for _ in range(n):
        size = max(x.shape[dim] - 1, 0)  # a zero-size dim stays empty
        hi, lo = x.narrow(dim, min(1, x.shape[dim]), size), x.narrow(dim, 0, size)
        # Bools differ where they are unequal (PyTorch uses logical_xor; `-` refuses bools).
        x = hi != lo if x.dtype == _core.bool else hi - lo
    return x


METHODS = (diff,)

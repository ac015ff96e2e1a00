"""Flatten and Unflatten."""

from __future__ import annotations

from typing import Any, Sequence

from ... import _core
from .module import Module

Tensor = _core.Tensor


class Flatten(Module):
    """Flattens dims ``start_dim`` to ``end_dim`` (inclusive) into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim == 0:
            # A 0-d tensor has dims -1 and 0 only (Tensor.flatten would accept any here).
            for dim in (self.start_dim, self.end_dim):
                if dim not in (-1, 0):
                    raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _check_sizes(sizes: Any) -> None:
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")
    for pos, size in enumerate(sizes):
        if not isinstance(size, int):
            raise TypeError(f"unflattened_size must be tuple of ints, but found element of type {type(size).__name__} at pos {pos}")


class Unflatten(Module):
    """Expands dim ``dim`` into ``unflattened_size`` (a tuple, list or Size of ints; one may be -1)."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        _check_sizes(unflattened_size)
        # Kept as given: the repr shows a list, tuple or Size as the caller passed it.
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        sizes = tuple(self.unflattened_size)
        if -1 not in sizes and isinstance(self.dim, int) and -input.ndim <= self.dim < input.ndim:
            total = 1
            for s in sizes:
                total *= s
            if total != input.shape[self.dim]:
                dim = self.dim % input.ndim
                raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({input.shape[dim]}) in the input tensor")
        return input.unflatten(self.dim, sizes)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

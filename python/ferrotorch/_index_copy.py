"""``index_copy``: the slices of ``source`` written at positions ``index`` along ``dim``.
Composed of ``scatter`` with the index expanded to the source's shape, so its gradients are
scatter's (zero at the overwritten slices for the input, the picked slices for the source)."""

from __future__ import annotations

from . import _core
from ._op_entry import op_entry
from ._type_info import scalar_type_name

Tensor = _core.Tensor

def _type_name(t: Tensor) -> str:
    return scalar_type_name(t.dtype)


def _check(input: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """PyTorch's checks of index_copy, in its order and with its exception classes; returns
    ``dim`` wrapped."""
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if index.dtype != _core.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_type_name(index)}")
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) {_type_name(input)} "
            f"and (source) {_type_name(source)}"
        )
    rank = max(input.ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    dim %= rank
    if source.ndim > 0 and input.ndim > 0 and source.ndim != input.ndim:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})"
        )
    slices = source.shape[dim] if source.ndim > 0 else 1
    if index.numel() != slices:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) ({slices})")
    if input.ndim > 1 and source.ndim == 0 or any(
        input.shape[d] != source.shape[d] for d in range(min(input.ndim, source.ndim)) if d != dim
    ):
        raise RuntimeError(
            f"index_copy_(): Source/destination tensor must have same slice shapes (dim {dim}). "
            f"Destination shape: {list(input.shape)}, source shape: {list(source.shape)}"
        )
    size = input.shape[dim] if input.ndim > 0 else 1
    if index.numel() and (int(index.min().item()) < 0 or int(index.max().item()) >= size):
        bad = next(int(i) for i in index.reshape(-1).tolist() if not 0 <= i < size)
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    return dim


def _scatter_args(input: Tensor, dim: int, index: Tensor, source: Tensor) -> "tuple[Tensor, Tensor]":
    """The index expanded to the source's shape, and the source with the input's rank."""
    src = source.reshape([1] * max(input.ndim, 1)) if source.ndim == 0 else source
    shape = [1] * src.ndim
    shape[dim] = -1
    return index.reshape(shape).expand(list(src.shape)), src


@op_entry("index_copy")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with ``input.select(dim, index[i])`` replaced by ``source.select(dim, i)``."""
    dim = _check(input, dim, index, source)
    idx, src = _scatter_args(input, dim, index, source)
    if input.ndim == 0:
        return input.reshape(1).scatter(0, idx, src).reshape(())
    return input.scatter(dim, idx, src)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In-place ``index_copy``."""
    dim = _check(self, dim, index, source)
    idx, src = _scatter_args(self, dim, index, source)
    if self.ndim == 0:
        self.copy_(self.reshape(1).scatter(0, idx, src).reshape(()))
        return self
    return self.scatter_(dim, idx, src)


METHODS = (index_copy, index_copy_)

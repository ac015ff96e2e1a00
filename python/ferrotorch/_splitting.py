"""Splitting a tensor into pieces along one dim: ``tensor_split`` and its ``hsplit``/``vsplit``/
``dsplit`` forms, ``split_with_sizes`` and the ``unsafe_*`` variants. Every piece is a ``narrow``
of the input, so the pieces are views (writes through them reach the input) as in PyTorch."""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple, Union

from . import _core
from ._op_entry import op_entry
from ._type_info import scalar_type_name

Tensor = _core.Tensor

def type_name(t: Tensor) -> str:
    """PyTorch's scalar type name of ``t`` ("Float", "Long", ...), as its messages spell it."""
    return scalar_type_name(t.dtype)


def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` wrapped into ``0..ndim``; a 0-d tensor takes -1 and 0, as PyTorch's dims do."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _pieces(input: Tensor, dim: int, bounds: List[Tuple[int, int]]) -> Tuple[Tensor, ...]:
    return tuple(input.narrow(dim, start, length) for start, length in bounds)


def _section_bounds(size: int, sections: int) -> List[Tuple[int, int]]:
    # The first size % sections pieces hold one element more than the others.
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    small, extra = divmod(size, sections)
    bounds, start = [], 0
    for i in range(sections):
        length = small + (1 if i < extra else 0)
        bounds.append((start, length))
        start += length
    return bounds


def _index_bounds(size: int, indices: Sequence[int]) -> List[Tuple[int, int]]:
    # Each piece is input[prev:idx] with Python's slice rules (negative wraps, out of range clamps).
    bounds, prev = [], 0
    for idx in list(indices) + [None]:
        start, stop, _ = slice(prev, idx).indices(size)
        bounds.append((start, max(stop - start, 0)))
        prev = idx
    return bounds


def _check_int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, Tensor) and v.ndim == 0 and not v.dtype.is_floating_point:
            return int(v.item())
        raise TypeError(f"{what}(): argument must be an int, a sequence of ints or a tensor, not {type(v).__name__}")
    return v


def tensor_split(input: Tensor, indices_or_sections: Union[int, Sequence[int], Tensor], dim: int = 0) -> Tuple[Tensor, ...]:
    """Views of ``input`` split along ``dim``: into ``sections`` near-equal pieces (int), or at the
    given indices (a sequence or a 0-d/1-d int64 tensor), as ``numpy.array_split``."""
    if input.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {input.ndim} dims")
    spec: Any = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.dtype != _core.int64:
            raise RuntimeError(
                f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got {type_name(spec)}"
            )
        if spec.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                f"tensor, but got a tensor with {spec.ndim} dims"
            )
        spec = int(spec.item()) if spec.ndim == 0 else [int(i) for i in spec.tolist()]
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(spec, (list, tuple)):
        return _pieces(input, dim, _index_bounds(size, [_check_int(i, "tensor_split") for i in spec]))
    return _pieces(input, dim, _section_bounds(size, _check_int(spec, "tensor_split")))


def _directional_split(name: str, input: Tensor, spec: Any, dim: int, min_dims: int) -> Tuple[Tensor, ...]:
    if input.ndim < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with {input.ndim} dimensions!"
        )
    if isinstance(spec, Tensor):
        raise TypeError(f"{name}(): argument 'indices_or_sections' must be an int or a tuple of ints, not Tensor")
    if isinstance(spec, int) and not isinstance(spec, bool):
        size = input.shape[dim]
        if spec == 0 or spec > 0 and size % spec:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {size} "
                f"is not divisible by the split_size {spec}!"
            )
        return tensor_split(input, spec, dim)
    return tensor_split(input, list(spec), dim)


def hsplit(input: Tensor, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 for a 1-d tensor); an int must divide the size."""
    return _directional_split("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    """``tensor_split`` along dim 0 of an at least 2-d tensor; an int must divide the size."""
    return _directional_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    """``tensor_split`` along dim 2 of an at least 3-d tensor; an int must divide the size."""
    return _directional_split("dsplit", input, indices_or_sections, 2, 3)


@op_entry("split_with_sizes")
def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> Tuple[Tensor, ...]:
    """Views of ``input`` along ``dim`` of the given lengths, which must sum to its size."""
    sizes = [int(s) for s in split_sizes]
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {dim}), "
            f"but got split_sizes={sizes}"
        )
    bounds, start = [], 0
    for s in sizes:
        bounds.append((start, s))
        start += s
    return _pieces(input, dim, bounds)


def _split_int(input: Tensor, split_size: int, dim: int) -> Tuple[Tensor, ...]:
    if isinstance(split_size, bool) or not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not {type(split_size).__name__}")
    # PyTorch's order of checks: 0-d input, then a negative size, then the dim.
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    count = max(-(-size // split_size), 1) if split_size else 1
    return _pieces(input, dim, [(i * split_size, min(split_size, size - i * split_size)) for i in range(count)])


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> Tuple[Tensor, ...]:
    """``split`` by an int size (PyTorch's variant that does not track the pieces as views of one
    another for in-place checks; here the pieces are plain views)."""
    return _split_int(input, split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> Tuple[Tensor, ...]:
    """``split_with_sizes`` (the ``unsafe`` variant)."""
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> Tuple[Tensor, ...]:
    """``chunk``: pieces of ``ceil(size / chunks)`` along ``dim`` (the ``unsafe`` variant)."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if size == 0:
        # An empty dim gives `chunks` empty pieces (as PyTorch's chunk does), not one.
        return _pieces(input, dim, [(0, 0)] * chunks)
    return _split_int(input, -(-size // chunks), dim)


FUNCTIONS = (tensor_split, hsplit, vsplit, dsplit, split_with_sizes, unsafe_split, unsafe_split_with_sizes, unsafe_chunk)

"""The ``*_copy`` functions: a view op followed by a copy, so the result owns its memory
(contiguous) and writes to it never reach the input. Gradients are the view op's."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from . import _core
from ._arranging import write_out
from ._splitting import _split_int, split_with_sizes, wrap_dim

Tensor = _core.Tensor


def _own(t: Tensor) -> Tensor:
    return t.clone(memory_format="contiguous_format")


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.narrow(dim, start, length)``."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= input.ndim:  # PyTorch's narrow_copy asserts this before wrapping (RuntimeError)
        raise RuntimeError(f"Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false. (narrow_copy: dim {dim}, input of {input.ndim} dims)")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    begin = start + size if start < 0 else start
    if length < 0 or begin + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return write_out(_own(input.narrow(d, begin, length)), out)


def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.expand(size)``."""
    return write_out(_own(input.expand(list(size))), out)


def permute_copy(input: Tensor, dims: Sequence[int], *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.permute(dims)``."""
    return write_out(_own(input.permute(list(dims))), out)


def select_copy(input: Tensor, dim: int, index: int, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.select(dim, index)``."""
    return write_out(_own(input.select(dim, index)), out)


def slice_copy(
    input: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None, step: int = 1, *,
    out: Optional[Tensor] = None,
) -> Tensor:
    """A copy of the slice ``start:end:step`` of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)  # PyTorch checks the dim before the step
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return write_out(_own(input[(slice(None),) * d + (slice(start, end, step),)]), out)


def squeeze_copy(input: Tensor, dim: Any = None, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.squeeze(dim)`` (every size-1 dim when ``dim`` is None)."""
    return write_out(_own(input.squeeze() if dim is None else input.squeeze(dim)), out)


def unsqueeze_copy(input: Tensor, dim: int, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.unsqueeze(dim)``."""
    return write_out(_own(input.unsqueeze(dim)), out)


def t_copy(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.t()``."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return write_out(_own(input.t()), out)


def transpose_copy(input: Tensor, dim0: int, dim1: int, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.transpose(dim0, dim1)``."""
    return write_out(_own(input.transpose(dim0, dim1)), out)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.diagonal(offset, dim1, dim2)``."""
    return write_out(_own(input.diagonal(offset, dim1, dim2)), out)


def _detach_copy_node() -> Any:
    from .autograd.function import Function

    class DetachCopy(Function):
        @staticmethod
        def forward(ctx: Any, x: Tensor) -> Tensor:
            return _own(x)

        @staticmethod
        def backward(ctx: Any, grad: Tensor) -> Any:
            raise RuntimeError("derivative for aten::detach_copy is not implemented")

    return DetachCopy


def detach_copy(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input``. As in PyTorch, the result requires grad when ``input`` does, and
    backpropagating through it is an error (PyTorch implements no derivative for it)."""
    if input.requires_grad:
        return write_out(_detach_copy_node().apply(input), out)
    return write_out(_own(input.detach()), out)


def view_copy(input: Tensor, size: Any, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input.view(size)``, or of ``input.view(dtype)`` (the bytes reinterpreted)."""
    if isinstance(size, type(_core.float32)):
        return write_out(_own(input.view(size)), out)
    # PyTorch's view_copy also takes strides a view could not express (a copy either way).
    return write_out(_own(input.reshape(list(size))), out)


def unbind_copy(input: Tensor, dim: int = 0) -> Tuple[Tensor, ...]:
    """Copies of ``input.unbind(dim)``."""
    return tuple(_own(t) for t in input.unbind(dim))


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> Tuple[Tensor, ...]:
    """Copies of the pieces of ``input.split(split_size, dim)`` (``split_size`` an int)."""
    if isinstance(split_size, bool) or not isinstance(split_size, int):
        raise TypeError(f"split_copy(): argument 'split_size' (position 2) must be int, not {type(split_size).__name__}")
    return tuple(_own(t) for t in _split_int(input, split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> Tuple[Tensor, ...]:
    """Copies of the pieces of ``split_with_sizes(input, split_sizes, dim)``."""
    return tuple(_own(t) for t in split_with_sizes(input, split_sizes, dim))


def alias_copy(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """A copy of ``input`` (the copy variant of ``alias``; differentiable)."""
    return write_out(_own(input), out)


FUNCTIONS = (
    narrow_copy, expand_copy, permute_copy, select_copy, slice_copy, squeeze_copy, unsqueeze_copy, t_copy,
    transpose_copy, diagonal_copy, detach_copy, view_copy, unbind_copy, split_copy, split_with_sizes_copy, alias_copy,
)

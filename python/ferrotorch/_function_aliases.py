"""torch.* functions and Tensor methods that are other names or thin compositions of what the
core already has: the function forms of methods (``adjoint``, ``broadcast_to``, ``index_put``),
the ``*_copy`` forms of views, ``as_strided_scatter``, ``empty_strided``, ``nonzero_static``,
``vander``, ``to_dlpack``, and the legacy ``Tensor.new`` constructor."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from . import _core
from ._op_entry import op_entry

Tensor = _core.Tensor


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (a view)."""
    return input.adjoint()


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """``input`` broadcast to ``size`` (a view, as ``Tensor.expand``)."""
    return input.broadcast_to(size)


def index_put(input: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool = False) -> Tensor:
    """Out-of-place ``input[indices] = values`` (``+=`` with ``accumulate``)."""
    return input.index_put(indices, values, accumulate)


def index_put_(input: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool = False) -> Tensor:
    """In-place ``input[indices] = values`` (``+=`` with ``accumulate``); returns ``input``."""
    return input.index_put_(indices, values, accumulate)


def _storage_extent(size: Sequence[int], stride: Sequence[int]) -> int:
    """Elements a layout needs from offset 0: one past its furthest element (0 when empty)."""
    if any(n == 0 for n in size):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(size, stride))


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised (here zero-filled) tensor with the given shape and strides."""
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    if pin_memory:
        raise RuntimeError("empty_strided: cannot pin memory without an accelerator")
    base = _core.zeros(_storage_extent(size, stride), dtype=dtype, device=device)
    out = base.as_strided(size, stride, 0)
    return out.requires_grad_(True) if requires_grad else out


@op_entry("aten::unfold_copy")
def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``Tensor.unfold`` as a new contiguous tensor."""
    return input.unfold(dimension, size, step).clone().contiguous()


@op_entry("aten::as_strided_copy")
def as_strided_copy(
    input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None
) -> Tensor:
    """``torch.as_strided`` as a new contiguous tensor."""
    offset = input.storage_offset() if storage_offset is None else storage_offset
    return input.as_strided(tuple(size), tuple(stride), offset).clone().contiguous()


@op_entry("aten::as_strided_scatter")
def as_strided_scatter(
    input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None
) -> Tensor:
    """A copy of ``input`` whose elements at ``input.as_strided(size, stride, storage_offset)``
    are ``src``. As in PyTorch the layout addresses ``input``'s storage, so a non-contiguous
    ``input`` sees the positions it shares with that layout."""
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if tuple(src.shape) != size:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(size)}"
        )
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous inputs (PyTorch's limit)")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    n_storage = _core._storage_nbytes(input) // input.element_size()
    # Work on a differentiable copy of the whole storage: positions are storage indices.
    positions = _core.arange(n_storage)
    storage = _core._storage_view(input, [n_storage], [1], 0).clone()
    own = positions.as_strided(tuple(input.shape), tuple(input.stride()), input.storage_offset()).reshape(-1)
    storage = storage.scatter(0, own, input.reshape(-1))
    target = positions.as_strided(size, stride, offset).reshape(-1)
    storage = storage.scatter(0, target, src.reshape(-1).to(input.dtype))
    return storage.as_strided(tuple(input.shape), tuple(input.stride()), input.storage_offset())


def view_as_real_copy(input: Tensor) -> Tensor:
    """``torch.view_as_real`` as a new tensor."""
    return _core.view_as_real(input).clone()


def view_as_complex_copy(input: Tensor) -> Tensor:
    """``torch.view_as_complex`` as a new tensor."""
    return _core.view_as_complex(input).clone()


@op_entry("aten::nonzero_static")
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """The indices of the nonzero elements as ``torch.nonzero`` gives them, cut or padded with
    ``fill_value`` rows to exactly ``size`` rows."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()
    n = found.shape[0]
    if n >= size:
        return found[:size]
    pad = _core.full((size - n, found.shape[1]), fill_value, dtype=_core.int64)
    return _core.cat([found, pad], 0)


@op_entry("aten::vander")
def vander(x: Tensor, N: Optional[int] = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x``: column ``j`` is ``x ** (N - 1 - j)`` (``x ** j``
    with ``increasing``). Integer and bool inputs give int64."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_core.int64)
    if n == 0:
        return _core.zeros((x.shape[0], 0), dtype=x.dtype)
    ones = _core.ones((x.shape[0], 1), dtype=x.dtype)
    if n == 1:
        out = ones
    else:
        # Running products rather than pow: exact for integers, and x = 0 has finite gradients.
        out = _core.cat([ones, x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)], 1)
    return out if increasing else out.flip(1)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule that shares ``tensor``'s memory."""
    return tensor.__dlpack__()


def const_data_ptr(self: Tensor) -> int:
    """The address of the first element (as ``data_ptr``)."""
    return self.data_ptr()


def new(self: Tensor, *args: Any, device: Any = None) -> Tensor:
    """Legacy constructor with ``self``'s dtype: ``new()`` is empty, ``new(*sizes)`` or
    ``new(torch.Size)`` uninitialised (zeros here), ``new(sequence)`` copies data,
    ``new(tensor)`` aliases a tensor of the same dtype."""
    if device is not None and _core.device(device).type != self.device.type:
        raise RuntimeError(f"new(): expected device {self.device} but got {device}")
    if not args:
        return _core.empty(0, dtype=self.dtype)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if first.dtype != self.dtype:
            raise TypeError(f"new(): expected a tensor of dtype {self.dtype} (got {first.dtype})")
        return first.detach()
    if len(args) == 1 and isinstance(first, (list, tuple)) and type(first).__name__ != "Size":
        return _core.tensor(list(first), dtype=self.dtype)
    if len(args) == 1 and type(first).__name__ == "Size":
        args = tuple(first)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        if len(args) == 1:
            raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
        raise TypeError(f"new(): sizes must be ints (got {[type(a).__name__ for a in args]})")
    if any(a < 0 for a in args):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(args)}")
    return _core.zeros(tuple(args), dtype=self.dtype)


__all__: Tuple[str, ...] = (
    "adjoint", "broadcast_to", "index_put", "index_put_", "empty_strided", "unfold_copy", "as_strided_copy",
    "as_strided_scatter", "view_as_real_copy", "view_as_complex_copy", "nonzero_static", "vander", "to_dlpack",
)
METHODS: Tuple[Any, ...] = (as_strided_scatter, nonzero_static, const_data_ptr, new)

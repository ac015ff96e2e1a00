"""Constructors tied to a tensor's dtype: the ``new_*`` methods and the legacy
``torch.FloatTensor``-style constructors."""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor


def _shape(size: Any) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A zero tensor with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.zeros(tuple(_shape(size)), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A tensor of ones with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.ones(tuple(_shape(size)), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """An uninitialized-looking (zero-filled) tensor with this tensor's dtype."""
    return _core.empty(tuple(_shape(size)), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A tensor filled with ``fill_value`` and this tensor's dtype."""
    return _core.full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A copy of ``data`` as a tensor with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _legacy(dtype_name: str) -> object:
    def make(*args: Any) -> Tensor:
        if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)) or (args and hasattr(args[0], "__array__")):
            return _core.tensor(args[0], dtype=getattr(_core, dtype_name))
        return _core.zeros(args or (0,), dtype=getattr(_core, dtype_name))  # no args: empty

    make.__doc__ = f"Legacy constructor: a {dtype_name} tensor from data, or zeros of a shape."
    return make


FloatTensor = _legacy("float32")
DoubleTensor = _legacy("float64")
HalfTensor = _legacy("float16")
LongTensor = _legacy("int64")
IntTensor = _legacy("int32")
ShortTensor = _legacy("int16")
CharTensor = _legacy("int8")
ByteTensor = _legacy("uint8")
BoolTensor = _legacy("bool")


METHODS = (new_zeros, new_ones, new_empty, new_full, new_tensor)

"""Shape and index ops PyTorch has beyond the core: splitting (``_splitting``), arranging
(``_arranging``), taking/putting and scatter variants (``_scatter_variants``), the ``*_copy``
functions (``_copy_variants``), and the checks ``is_same_size``, ``is_nonzero``, ``is_signed``; and the
tensor-protocol families: storage resizing (``_storage_resizing``), device queries
(``_device_queries``), dimension order in memory (``_dim_order``), per-element callables (``_elementwise_callables``) and function aliases
(``_function_aliases``), whose ``__all__`` and ``METHODS`` are merged in below."""

from __future__ import annotations

from typing import Any, Sequence, Tuple

from . import (
    _arranging,
    _copy_variants,
    _core,
    _device_queries,
    _dim_order,
    _elementwise_callables,
    _function_aliases,
    _scatter_variants,
    _splitting,
    _storage_resizing,
)
from ._arranging import sum_to_size

Tensor = _core.Tensor


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape."""
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (an error for any other number of elements)."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.reshape(()).item() != 0)


def is_signed(input: Tensor) -> bool:
    """Whether ``input``'s dtype is signed (floating, complex and signed integer dtypes)."""
    return bool(input.is_signed())


def _names(fns: Sequence[Any]) -> Tuple[str, ...]:
    return tuple(f.__name__ for f in fns)


_FUNCTIONS = (
    _splitting.FUNCTIONS + _arranging.FUNCTIONS + _scatter_variants.FUNCTIONS + _copy_variants.FUNCTIONS
    + (is_same_size, is_nonzero, is_signed)
)
for _fn in _FUNCTIONS:
    globals()[_fn.__name__] = _fn

# The torch.* functions this module adds, and the Tensor methods (attached by __name__).
__all__: Tuple[str, ...] = _names(_FUNCTIONS)
METHODS: Tuple[Any, ...] = (
    _splitting.tensor_split, _splitting.hsplit, _splitting.vsplit, _splitting.dsplit, _splitting.split_with_sizes,
    _splitting.unsafe_split, _splitting.unsafe_split_with_sizes, _splitting.unsafe_chunk,
    _arranging.rot90, _arranging.fliplr, _arranging.flipud, _arranging.diagflat, _arranging.kron, _arranging.vdot,
    _arranging.msort, sum_to_size, _copy_variants.narrow_copy, is_same_size, is_nonzero,
) + _scatter_variants.METHODS

# Modules that already name their own torch.* functions (__all__) and Tensor methods (METHODS).
_PROTOCOL_MODULES = (_storage_resizing, _device_queries, _elementwise_callables, _function_aliases, _dim_order)
for _module in _PROTOCOL_MODULES:
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
__all__ = __all__ + tuple(_name for _module in _PROTOCOL_MODULES for _name in _module.__all__)
METHODS = METHODS + tuple(_method for _module in _PROTOCOL_MODULES for _method in _module.METHODS)

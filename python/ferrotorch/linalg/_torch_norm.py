"""``torch.norm`` and ``Tensor.norm``: the older norm entry point, which picks a vector or a
matrix norm from ``p`` and ``dim`` ('nuc', and 'fro' over more than two dims, are matrix
norms), plus the deprecated ``torch.nuclear_norm`` and ``torch.frobenius_norm``."""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence, Union

from .._core import Tensor, bfloat16, float16
from ._norms import check_vector_norm_dims, matrix_norm, vector_norm

Dim = Optional[Union[int, Sequence[int]]]

# The Rust method: vector norms (numbers, None, 'fro' over at most two dims) take it directly.
_native_norm = Tensor.norm


def _dims(dim: Dim) -> Optional[list]:
    if dim is None:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


def _into(out: Optional[Tensor], result: Tensor) -> Tensor:
    """``result`` copied into ``out`` (which must have its shape and dtype), or itself."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape) or out.dtype != result.dtype:
        raise RuntimeError(
            f"norm: out must have the result's shape {list(result.shape)} and dtype {result.dtype}, "
            f"but has shape {list(out.shape)} and dtype {out.dtype} (ferrotorch does not resize out)"
        )
    return out.copy_(result)


def norm(input: Tensor, p: Union[str, float, int, None] = "fro", dim: Dim = None, keepdim: bool = False, out: Optional[Tensor] = None, dtype: Any = None) -> Tensor:
    """The ``p``-norm of ``input`` over ``dim`` (every dim when None). A number (or None, the
    2-norm) is a vector norm, as is 'fro' over at most two dims; 'nuc' and 'fro' over more
    dims are matrix norms over exactly two dims (``linalg.matrix_norm``).

    >>> import ferrotorch as torch
    >>> torch.norm(torch.tensor([[3.0, 0.0], [0.0, 4.0]]), p="nuc")
    tensor(7.)
    """
    dims = _dims(dim)
    if not isinstance(p, str):
        return _into(out, vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype))
    if p == "fro" and (dims is None or len(dims) <= 2):
        return _into(out, vector_norm(input, 2.0, dims, keepdim, dtype=dtype))
    # 'nuc', 'fro' over three or more dims and unknown orders: matrix_norm accepts or refuses.
    return _into(out, matrix_norm(input, p, list(range(input.ndim)) if dims is None else dims, keepdim, dtype=dtype))


def _tensor_norm(self: Tensor, p: Union[str, float, int, None] = "fro", dim: Dim = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``Tensor.norm``: ``torch.norm(self, p, dim, keepdim, dtype=dtype)``; numbers go straight
    to the Rust reduction."""
    if dtype is None and (p is None or (not isinstance(p, str) and isinstance(p, (int, float)))):
        if self.dtype.is_floating_point or self.dtype.is_complex:
            order = 2.0 if p is None else float(p)
            check_vector_norm_dims(self, order, _dims(dim))
            if -math.inf < order < 0:
                return _negative_order_norm(self, order, _dims(dim), keepdim)
            if self.dtype in (float16, bfloat16):
                # PyTorch accumulates a half norm in float32 and rounds once: the sum of
                # squares of float16 values overflows where their norm does not.
                return _native_norm(self.float(), p, dim, keepdim).to(self.dtype)
            return _native_norm(self, p, dim, keepdim)
    return norm(self, p, dim, keepdim, dtype=dtype)


def _negative_order_norm(x: Tensor, order: float, dims: Optional[list], keepdim: bool) -> Tensor:
    """(sum |x|^p)^(1/p) for a finite p < 0, composed: a slice of infinities has norm inf
    (0^(1/p)) and one holding a zero has norm 0, which the Rust reduction gets wrong for
    the former (it returns 0)."""
    src = x.float() if x.dtype in (float16, bfloat16) else x
    dims = dims or list(range(src.ndim))
    r = src.abs().pow(order).sum(dims, keepdim=keepdim).pow(1.0 / order)
    return r.to(x.dtype) if src is not x else r


def nuclear_norm(input: Tensor, dim: Optional[Sequence[int]] = None, keepdim: bool = False, *, out: Optional[Tensor] = None) -> Tensor:
    """Deprecated in PyTorch: ``linalg.matrix_norm(input, 'nuc', dim)`` over the last two dims
    when ``dim`` is None."""
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    return _into(out, matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim))


def frobenius_norm(input: Tensor, dim: Union[int, Sequence[int]], keepdim: bool = False, *, out: Optional[Tensor] = None) -> Tensor:
    """Deprecated in PyTorch: ``linalg.vector_norm(input, 2, dim)`` over at most two dims."""
    warnings.warn(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    dims = _dims(dim) or []
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return _into(out, vector_norm(input, 2.0, dims, keepdim))


def install() -> None:
    """Makes ``Tensor.norm`` accept PyTorch's string orders."""
    Tensor.norm = _tensor_norm  # type: ignore[method-assign]

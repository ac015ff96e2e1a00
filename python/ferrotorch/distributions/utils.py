"""Helpers shared by the distributions: parameter broadcasting, probs/logits conversion,
lazily computed parameters, and small shape utilities."""

from __future__ import annotations

import numbers
from functools import update_wrapper
from typing import Any, Callable, Sequence, Tuple, Union

import ferrotorch as torch

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


def broadcast_all(*values: Union[torch.Tensor, numbers.Number]) -> Tuple[torch.Tensor, ...]:
    """Broadcasts tensors together; Python numbers become tensors of the first tensor's dtype
    (the default dtype when all are numbers).

    >>> loc, scale = broadcast_all(torch.zeros(3), 1.0)
    >>> scale
    tensor([1., 1., 1.])
    """
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, torch.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, torch.Tensor)), torch.get_default_dtype())
        values = tuple(v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values)
    return tuple(torch.broadcast_tensors(*values))


def _standard_normal(shape: Sequence[int], dtype: Any, device: Any = None) -> torch.Tensor:
    """Draws N(0, 1) noise of ``shape`` from the global generator."""
    return torch.randn(tuple(shape), dtype=dtype)


def _sum_rightmost(value: torch.Tensor, dim: int) -> torch.Tensor:
    """Sums out the ``dim`` rightmost dims of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: torch.Tensor, is_binary: bool = False) -> torch.Tensor:
    """Probabilities from log-odds (binary) or unnormalised log-probabilities (last dim)."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, -1)


def clamp_probs(probs: torch.Tensor) -> torch.Tensor:
    """Clamps probabilities into ``[eps, 1 - eps]`` for the dtype's machine epsilon."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: torch.Tensor, is_binary: bool = False) -> torch.Tensor:
    """Log-odds (binary) or log-probabilities from probabilities, clamped away from 0 and 1."""
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


class lazy_property:
    """A parameter computed on first access and then cached on the instance
    (``probs`` of a distribution built from ``logits``, and the reverse)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """Looks like a property to documentation tools and like a lazy_property to validation."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        property.__init__(self, wrapped)
        self.wrapped = wrapped


def _tril_mask(n: int, diag: int) -> torch.Tensor:
    arange = torch.arange(n)
    return arange < arange.reshape(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: torch.Tensor, diag: int = 0) -> torch.Tensor:
    """The lower-triangular entries (from diagonal ``diag``) of a batch of matrices, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    flat_index = _tril_mask(n, diag).reshape(-1).nonzero().reshape(-1)
    return mat.reshape(tuple(mat.shape[:-2]) + (n * n,)).index_select(-1, flat_index)


def vec_to_tril_matrix(vec: torch.Tensor, diag: int = 0) -> torch.Tensor:
    """The inverse of :func:`tril_matrix_to_vec`: a batch of lower-triangular matrices."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    flat_index = _tril_mask(n, diag).reshape(-1).nonzero().reshape(-1)
    batch = tuple(vec.shape[:-1])
    flat = torch.zeros(batch + (n * n,), dtype=vec.dtype)
    flat = flat.index_add(-1, flat_index, vec)
    return flat.reshape(batch + (n, n))


def _binary_cross_entropy_with_logits(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Elementwise ``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))``, differentiable in both."""
    from ferrotorch.nn.functional import logsigmoid

    return (1 - target) * logits - logsigmoid(logits)

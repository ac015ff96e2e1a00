"""Pointwise ops written as compositions of core ops: ``addcmul``, ``addcdiv``, ``logit``."""

from __future__ import annotations

from typing import Optional

from . import _core

Tensor = _core.Tensor


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return input + value * tensor1 * tensor2


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return input + value * tensor1 / tensor2


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """In-place ``addcmul``."""
    return self.add_(tensor1 * tensor2, alpha=value)


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """In-place ``addcdiv``."""
    return self.add_(tensor1 / tensor2, alpha=value)


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """log(p / (1 - p)), with ``p`` clamped to [eps, 1 - eps] when ``eps`` is given."""
    x = input.clamp(eps, 1 - eps) if eps is not None else input
    return (x / (1 - x)).log()


METHODS = (addcmul, addcdiv, addcmul_, addcdiv_, logit)

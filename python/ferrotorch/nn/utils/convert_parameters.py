"""Flattening parameters into one vector and back."""

from __future__ import annotations

from typing import Iterable

from ... import _core
from ..._grad_mode import no_grad

Tensor = _core.Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Concatenates the flattened parameters (differentiable)."""
    return _core.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copies consecutive slices of ``vec`` into the parameters."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    i = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[i : i + n].reshape(p.shape))
            i += n

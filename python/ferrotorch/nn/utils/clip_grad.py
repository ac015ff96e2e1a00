"""Gradient clipping."""

from __future__ import annotations

from typing import Iterable, Union

from ... import _core
from ..._grad_mode import no_grad

Tensor = _core.Tensor


def _params(parameters: Union[Tensor, Iterable[Tensor]]) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters: Union[Tensor, Iterable[Tensor]], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: object = None) -> Tensor:
    """Scales gradients so that their joint ``norm_type`` norm is at most ``max_norm``; returns
    the norm before clipping."""
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return _core.tensor(0.0)
    norm_type = float(norm_type)
    with no_grad():
        if norm_type == float("inf"):
            norms = [g.abs().amax() for g in grads]
            total = _core.stack([n.to(_core.float32) for n in norms]).amax()
        else:
            norms = [g.norm(norm_type) for g in grads]
            total = _core.stack([n.to(_core.float32) for n in norms]).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = max_norm / (total.item() + 1e-6)
        if coef < 1:
            for g in grads:
                g.mul_(coef)
    return total


def clip_grad_value_(parameters: Union[Tensor, Iterable[Tensor]], clip_value: float, foreach: object = None) -> None:
    """Clamps every gradient element to [-clip_value, clip_value]."""
    with no_grad():
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)

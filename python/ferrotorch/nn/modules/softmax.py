"""Softmax, LogSoftmax, Softmin and Softmax2d."""

from __future__ import annotations

from typing import Optional

from ... import _core
from .. import _functional_softmax as A
from .module import Module

Tensor = _core.Tensor


class _OverDim(Module):
    """A normalisation over ``dim`` (private base: an isinstance check for Softmax must not
    match LogSoftmax or Softmin, as in PyTorch)."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_OverDim):
    """exp(x) / sum(exp(x)) over ``dim`` (``None``: PyTorch's implicit choice, with its warning)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_OverDim):
    """log(softmax(x)) over ``dim``, computed stably."""

    def forward(self, input: Tensor) -> Tensor:
        return A.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_OverDim):
    """softmax(-x) over ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        return A.softmin(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels at each spatial location of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return A.softmax(input, -3)

"""Shrinkage activations: Hardshrink, Softshrink and Tanhshrink."""

from __future__ import annotations

from ... import _core
from .. import _functional_activation as A
from .module import Module

Tensor = _core.Tensor


class _Lambd(Module):
    """A shrinkage with threshold ``lambd`` (private base: the PyTorch classes are unrelated)."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Lambd):
    """0 on [-lambd, lambd], x elsewhere."""

    def forward(self, input: Tensor) -> Tensor:
        return A.hardshrink(input, self.lambd)


class Softshrink(_Lambd):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""

    def forward(self, input: Tensor) -> Tensor:
        return A.softshrink(input, self.lambd)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.tanhshrink(input)

"""Rectifiers whose negative slope is learned (PReLU) or drawn at random (RReLU)."""

from __future__ import annotations

from typing import Any

from ... import _core
from .. import _functional_activation as A
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


class PReLU(Module):
    """x for x > 0, a * x otherwise, with ``num_parameters`` learned slopes (one, or one per
    channel) starting at ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(_core.empty(num_parameters, dtype=dtype or _core.get_default_dtype()))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Leaky ReLU with a slope drawn from U(lower, upper) per element in training and
    (lower + upper) / 2 in evaluation."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")

"""Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy distribution with median ``loc`` and half-width ``scale``; it has no mean.

    >>> Cauchy(torch.tensor(0.0), torch.tensor(1.0)).cdf(torch.tensor(1.0))
    tensor(0.7500)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(torch.Size() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Cauchy":
        return self._expanded(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> torch.Tensor:
        return torch.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def variance(self) -> torch.Tensor:
        return torch.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        u = torch.rand(tuple(shape), dtype=self.loc.dtype)
        return self.loc + torch.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> torch.Tensor:
        return math.log(4 * math.pi) + self.scale.log()

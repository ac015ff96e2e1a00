"""Continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

import math
import numbers
from typing import Any, Dict, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on the half-open interval ``[low, high)``.

    >>> Uniform(torch.tensor(0.0), torch.tensor(4.0)).log_prob(torch.tensor(1.0))
    tensor(-1.3863)
    """

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        scalar = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(torch.Size() if scalar else self.low.size(), validate_args=validate_args)

    @property
    def arg_constraints(self) -> Dict[str, constraints.Constraint]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Uniform":
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> torch.Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> torch.Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> torch.Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> torch.Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        rand = torch.rand(tuple(shape), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).to(self.low.dtype) * self.high.gt(value).to(self.low.dtype)
        return torch.log(inside) - torch.log(self.high - self.low)

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> torch.Tensor:
        return torch.log(self.high - self.low)

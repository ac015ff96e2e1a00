"""Exponential distribution."""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with ``rate`` (inverse scale).

    >>> Exponential(torch.tensor(2.0)).mean
    tensor(0.5000)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        scalar = isinstance(rate, numbers.Number)
        super().__init__(torch.Size() if scalar else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Exponential":
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> torch.Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> torch.Tensor:
        return torch.zeros_like(self.rate)

    @property
    def stddev(self) -> torch.Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> torch.Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        return torch.empty(tuple(shape), dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        return -torch.log1p(-value) / self.rate

    def entropy(self) -> torch.Tensor:
        return 1.0 - torch.log(self.rate)

    @property
    def _natural_params(self) -> Tuple[torch.Tensor]:
        return (-self.rate,)

    def _log_normalizer(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return -torch.log(-x)

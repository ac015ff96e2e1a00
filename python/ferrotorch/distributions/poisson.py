"""Poisson distribution."""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from ._special import lgamma, poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution with ``rate``.

    >>> Poisson(torch.tensor(2.0)).log_prob(torch.tensor(0.0))
    tensor(-2.)
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        scalar = isinstance(rate, numbers.Number)
        super().__init__(torch.Size() if scalar else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Poisson":
        return self._expanded(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> torch.Tensor:
        return self.rate

    @property
    def mode(self) -> torch.Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> torch.Tensor:
        return self.rate

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - lgamma(value + 1)

    @property
    def _natural_params(self) -> Tuple[torch.Tensor]:
        return (torch.log(self.rate),)

    def _log_normalizer(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return torch.exp(x)

"""Gamma distribution."""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from ._special import digamma, gammainc, lgamma, standard_gamma
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    >>> Gamma(torch.tensor(2.0), torch.tensor(4.0)).mean
    tensor(0.5000)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(torch.Size() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> torch.Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> torch.Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> torch.Tensor:
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape: Any = torch.Size(), *, generator: Optional[torch.Generator] = None) -> torch.Tensor:
        """Samples without gradient; ``generator`` draws from a given ``torch.Generator``."""
        with torch.no_grad():
            return self.rsample(sample_shape, generator=generator)

    def rsample(self, sample_shape: Any = torch.Size(), generator: Optional[torch.Generator] = None) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape), generator) / self.rate.expand(shape)
        # Keep samples positive without touching the gradient.
        tiny = torch.finfo(value.dtype).tiny
        return value + (value.detach().clamp(min=tiny) - value.detach())

    def log_prob(self, value: Any) -> torch.Tensor:
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            torch.xlogy(self.concentration, self.rate)
            + torch.xlogy(self.concentration - 1, value)
            - self.rate * value
            - lgamma(self.concentration)
        )

    def entropy(self) -> torch.Tensor:
        return (
            self.concentration
            - torch.log(self.rate)
            + lgamma(self.concentration)
            + (1.0 - self.concentration) * digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> Tuple[torch.Tensor, torch.Tensor]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

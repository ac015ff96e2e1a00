"""Beta distribution: the first coordinate of a two-component Dirichlet."""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from ._special import lgamma
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with ``concentration1`` (alpha) and ``concentration0`` (beta).

    >>> Beta(torch.tensor(2.0), torch.tensor(6.0)).mean
    tensor(0.2500)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Optional[bool] = None) -> None:
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            both = torch.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = torch.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Beta":
        new = self._expanded(Beta, batch_shape, _instance, ())
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return new

    @property
    def mean(self) -> torch.Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> torch.Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> torch.Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> torch.Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self) -> torch.Tensor:
        return self._dirichlet.entropy()

    @property
    def concentration1(self) -> torch.Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> torch.Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self) -> Tuple[torch.Tensor, torch.Tensor]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return lgamma(x) + lgamma(y) - lgamma(x + y)

"""Laplace (double exponential) distribution."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace distribution with location ``loc`` and scale ``scale``.

    >>> Laplace(torch.tensor(0.0), torch.tensor(1.0)).log_prob(torch.tensor(0.0))
    tensor(-0.6931)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(torch.Size() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> torch.Tensor:
        return self.loc

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def variance(self) -> torch.Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> torch.Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        # u in (-1, 1): the inverse CDF, with the endpoint -1 excluded so log1p(-|u|) is finite.
        u = torch.empty(tuple(shape), dtype=self.loc.dtype).uniform_(torch.finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        return 0.5 - 0.5 * diff.sign() * torch.expm1(-diff.abs() / self.scale)

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torch.log1p(-2 * term.abs())

    def entropy(self) -> torch.Tensor:
        return 1 + torch.log(2 * self.scale)

"""Weibull distribution: ``scale * E^(1/concentration)`` for ``E ~ Exponential(1)``."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import lgamma
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Two-parameter Weibull distribution with ``scale`` and shape ``concentration``.

    >>> Weibull(torch.tensor(1.0), torch.tensor(1.0)).entropy()
    tensor(1.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: Optional[bool] = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(torch.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Weibull":
        new = self._get_checked_instance(Weibull, _instance)
        shape = tuple(batch_shape)
        new.scale = self.scale.expand(shape)
        new.concentration = self.concentration.expand(shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, self.base_dist.expand(shape), transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> torch.Tensor:
        return self.scale * torch.exp(lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> torch.Tensor:
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self) -> torch.Tensor:
        return self.scale.pow(2) * (
            torch.exp(lgamma(1 + 2 * self.concentration_reciprocal))
            - torch.exp(2 * lgamma(1 + self.concentration_reciprocal))
        )

    def entropy(self) -> torch.Tensor:
        return euler_constant * (1 - self.concentration_reciprocal) + torch.log(self.scale * self.concentration_reciprocal) + 1



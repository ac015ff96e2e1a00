"""Inverse gamma distribution: ``1 / X`` for ``X ~ Gamma(concentration, rate)``."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import digamma, lgamma
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Inverse gamma distribution with shape ``concentration`` and scale ``rate``.

    >>> InverseGamma(torch.tensor(3.0), torch.tensor(2.0)).mean
    tensor(1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "InverseGamma":
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self) -> torch.Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> torch.Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> torch.Tensor:
        return torch.where(self.concentration > 1, self.rate / (self.concentration - 1), math.inf)

    @property
    def mode(self) -> torch.Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> torch.Tensor:
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return torch.where(self.concentration > 2, result, math.inf)

    def entropy(self) -> torch.Tensor:
        return (
            self.concentration
            + self.rate.log()
            + lgamma(self.concentration)
            - (1 + self.concentration) * digamma(self.concentration)
        )

"""Log-normal distribution: ``exp(X)`` for ``X ~ Normal(loc, scale)``."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """Log-normal distribution with the ``loc``/``scale`` of the underlying normal.

    >>> LogNormal(0.0, 1.0).log_prob(torch.tensor(1.0))
    tensor(-0.9189)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogNormal":
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self) -> torch.Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> torch.Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> torch.Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> torch.Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> torch.Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> torch.Tensor:
        return self.base_dist.entropy() + self.loc

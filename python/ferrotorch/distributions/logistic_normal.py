"""Logistic-normal distribution on the simplex: stick breaking of a normal vector."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Distribution on the K-simplex of ``StickBreakingTransform(X)`` for a (K-1)-vector
    ``X ~ Normal(loc, scale)`` with independent entries.

    >>> LogisticNormal(torch.zeros(2), torch.ones(2)).event_shape
    torch.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogisticNormal":
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self) -> torch.Tensor:
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> torch.Tensor:
        return self.base_dist.base_dist.scale

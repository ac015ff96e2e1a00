"""Pareto (type I) distribution: ``scale * exp(X)`` for ``X ~ Exponential(alpha)``."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto distribution with minimum ``scale`` and tail index ``alpha``.

    >>> Pareto(torch.tensor(1.0), torch.tensor(3.0)).mean
    tensor(1.5000)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: Optional[bool] = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Pareto":
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> torch.Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> torch.Tensor:
        return self.scale

    @property
    def variance(self) -> torch.Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> torch.Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())

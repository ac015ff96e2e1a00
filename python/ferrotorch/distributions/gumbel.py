"""Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel distribution with location ``loc`` and scale ``scale``: ``loc - scale * log(-log U)``.

    >>> Gumbel(torch.tensor(0.0), torch.tensor(1.0)).mode
    tensor(0.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = torch.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(
                torch.full_like(self.loc, finfo.tiny),
                torch.full_like(self.loc, 1 - finfo.eps),
                validate_args=validate_args,
            )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-torch.ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=loc, scale=-self.scale),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gumbel":
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> torch.Tensor:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def stddev(self) -> torch.Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> torch.Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> torch.Tensor:
        return self.scale.log() + (1 + euler_constant)

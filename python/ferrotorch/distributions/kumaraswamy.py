"""Kumaraswamy distribution on (0, 1): a Beta-like law with a closed-form CDF."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import digamma, lgamma
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a: torch.Tensor, b: torch.Tensor, n: int) -> torch.Tensor:
    """``E[X^n] = b * B(1 + n/a, b)``."""
    arg1 = 1 + n / a
    return b * torch.exp(lgamma(arg1) + lgamma(b) - lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution with ``concentration1`` (a) and ``concentration0`` (b):
    ``(1 - U^(1/b))^(1/a)`` for ``U ~ Uniform(0, 1)``.

    >>> Kumaraswamy(torch.tensor(1.0), torch.tensor(1.0)).mean
    tensor(0.5000)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            torch.full_like(self.concentration0, 0), torch.full_like(self.concentration0, 1), validate_args=validate_args
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Kumaraswamy":
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> torch.Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> torch.Tensor:
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        undefined = (self.concentration0 < 1) | (self.concentration1 < 1)
        return torch.where(undefined, math.nan, log_mode).exp()

    @property
    def variance(self) -> torch.Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - torch.pow(self.mean, 2)

    def entropy(self) -> torch.Tensor:
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - torch.log(self.concentration1) - torch.log(self.concentration0)

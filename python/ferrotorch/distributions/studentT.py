"""Student's t distribution."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import digamma, lgamma
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    >>> StudentT(torch.tensor(3.0)).variance
    tensor(3.)
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Optional[bool] = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "StudentT":
        new = self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> torch.Tensor:
        return torch.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def variance(self) -> torch.Tensor:
        # Finite for df > 2, infinite for 1 < df <= 2, undefined for df <= 1.
        safe_df = torch.where(self.df > 2, self.df, 3.0)
        finite = self.scale.pow(2) * safe_df / (safe_df - 2)
        return torch.where(self.df > 2, finite, torch.where(self.df > 1, math.inf, math.nan))

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * torch.rsqrt(z / self.df)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + lgamma(0.5 * self.df)
            - lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * torch.log1p(y**2.0 / self.df) - z

    def entropy(self) -> torch.Tensor:
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )

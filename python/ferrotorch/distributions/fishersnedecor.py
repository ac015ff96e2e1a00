"""Fisher-Snedecor (F) distribution: a ratio of scaled chi-squared variables."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import lgamma
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F distribution with ``df1`` and ``df2`` degrees of freedom.

    >>> FisherSnedecor(torch.tensor(4.0), torch.tensor(6.0)).mean
    tensor(1.5000)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: Optional[bool] = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(torch.Size() if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "FisherSnedecor":
        new = self._expanded(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self) -> torch.Tensor:
        df2 = torch.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> torch.Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return torch.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self) -> torch.Tensor:
        df2 = torch.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = torch.Size(())) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = torch.finfo(x2.dtype).tiny
        y = x1 / (x2 + (x2.detach().clamp(min=tiny) - x2.detach()))
        return y + (y.detach().clamp(min=tiny) - y.detach())

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
        t2 = ct1 * ct3.log() + (ct1 - 1) * torch.log(value)
        t3 = (ct1 + ct2) * torch.log1p(ct3 * value)
        return t1 + t2 - t3

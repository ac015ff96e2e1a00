"""Negative binomial distribution: failures before ``total_count`` successes."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch
from ferrotorch.nn.functional import logsigmoid

from . import constraints
from ._special import lgamma, poisson
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Number of successes (each with probability ``probs``) before ``total_count`` failures.

    >>> NegativeBinomial(torch.tensor(3.0), torch.tensor(0.5)).mean
    tensor(3.)
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        return self._expanded(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @property
    def mean(self) -> torch.Tensor:
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self) -> torch.Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> torch.Tensor:
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # The Gamma-Poisson mixture representation used for sampling.
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        with torch.no_grad():
            return poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -lgamma(self.total_count + value) + lgamma(1.0 + value) + lgamma(self.total_count)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization

"""Continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (
    _binary_cross_entropy_with_logits,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli with density proportional to ``p^x (1-p)^(1-x)`` on [0, 1].

    Near ``probs = 0.5`` (inside ``lims``) the normalizer and moments use Taylor expansions,
    since the closed forms divide by ``2p - 1``.

    >>> ContinuousBernoulli(torch.tensor(0.2)).mean
    tensor(0.3880)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: Tuple[float, float] = (0.499, 0.501),
        validate_args: Optional[bool] = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(torch.Size() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ContinuousBernoulli":
        return self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"), copy=("_lims",))

    def _outside_unstable_region(self) -> torch.Tensor:
        return torch.le(self.probs, self._lims[0]) | torch.gt(self.probs, self._lims[1])

    def _cut_probs(self) -> torch.Tensor:
        return torch.where(self._outside_unstable_region(), self.probs, self._lims[0] * torch.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> torch.Tensor:
        """The log normalizing constant, by its Taylor expansion around p = 0.5 inside ``lims``."""
        cut = self._cut_probs()
        below = torch.where(torch.le(cut, 0.5), cut, torch.zeros_like(cut))
        above = torch.where(torch.ge(cut, 0.5), cut, torch.ones_like(cut))
        log_norm = torch.log(torch.abs(torch.log1p(-cut) - torch.log(cut))) - torch.where(
            torch.le(cut, 0.5), torch.log1p(-2.0 * below), torch.log(2.0 * above - 1.0)
        )
        x = torch.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> torch.Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (torch.log1p(-cut) - torch.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x
        return torch.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> torch.Tensor:
        return torch.sqrt(self.variance)

    @property
    def variance(self) -> torch.Tensor:
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / torch.pow(1.0 - 2.0 * cut, 2) + 1.0 / torch.pow(torch.log1p(-cut) - torch.log(cut), 2)
        x = torch.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torch.where(self._outside_unstable_region(), var, taylor)

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        u = torch.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        u = torch.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_binary_cross_entropy_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (torch.pow(cut, value) * torch.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = torch.where(self._outside_unstable_region(), cdfs, value)
        return torch.where(
            torch.le(value, 0.0),
            torch.zeros_like(value),
            torch.where(torch.ge(value, 1.0), torch.ones_like(value), unbounded),
        )

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        cut = self._cut_probs()
        inverted = (torch.log1p(-cut + value * (2.0 * cut - 1.0)) - torch.log1p(-cut)) / (
            torch.log(cut) - torch.log1p(-cut)
        )
        return torch.where(self._outside_unstable_region(), inverted, value)

    def entropy(self) -> torch.Tensor:
        log_probs0 = torch.log1p(-self.probs)
        log_probs1 = torch.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> Tuple[torch.Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        unstable_lo, unstable_hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = torch.le(x, unstable_lo) | torch.gt(x, unstable_hi)
        cut = torch.where(outside, x, unstable_lo * torch.ones_like(x))
        log_norm = torch.log(torch.abs(torch.expm1(cut))) - torch.log(torch.abs(cut))
        taylor = 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0
        return torch.where(outside, log_norm, taylor)

"""Binomial distribution."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import binomial, lgamma
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x: torch.Tensor) -> torch.Tensor:
    """``max(x, 0)`` with gradient 1/2 at 0 (so log-normalizer gradients are symmetric there)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Binomial distribution: successes in ``total_count`` trials with ``probs`` (or ``logits``).

    >>> Binomial(10, torch.tensor(0.5)).mean
    tensor(5.)
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self, total_count: Any = 1, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
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

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        return self._expanded(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> torch.Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> torch.Tensor:
        return torch.minimum(((self.total_count + 1) * self.probs).floor(), self.total_count)

    @property
    def variance(self) -> torch.Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        # n * log(1 + e^logit), written to stay finite for large |logits|
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * torch.log1p(torch.exp(-torch.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total = int(self.total_count.max())
        if not float(self.total_count.min()) == total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self) -> torch.Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        total = self._homogeneous_count("enumerate_support")
        values = torch.arange(1 + total, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

"""Bernoulli distribution."""

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
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """Bernoulli distribution over {0, 1}, given ``probs`` (of 1) or ``logits`` (log-odds).

    >>> Bernoulli(probs=torch.tensor(0.25)).log_prob(torch.tensor(1.0))
    tensor(-1.3863)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(torch.Size() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Bernoulli":
        return self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> torch.Tensor:
        return self.probs

    @property
    def mode(self) -> torch.Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torch.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self) -> torch.Tensor:
        return self.probs * (1 - self.probs)

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
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_binary_cross_entropy_with_logits(logits, value)

    def entropy(self) -> torch.Tensor:
        return _binary_cross_entropy_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        values = torch.arange(2, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> Tuple[torch.Tensor]:
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return torch.log1p(torch.exp(x))

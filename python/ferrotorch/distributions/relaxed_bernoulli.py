"""Relaxed (concrete) Bernoulli distributions: differentiable surrogates of Bernoulli samples."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample: ``(logit(U) + logits) / temperature``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
        self.temperature = temperature
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

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogitRelaxedBernoulli":
        return self._expanded(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"), copy=("temperature",))

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed Bernoulli on (0, 1) at ``temperature``, given ``probs`` or ``logits``;
    samples approach Bernoulli samples as the temperature goes to 0.

    >>> m = RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor(0.3))
    >>> m.rsample().shape
    torch.Size([])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "RelaxedBernoulli":
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self) -> torch.Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> torch.Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> torch.Tensor:
        return self.base_dist.probs

"""Categorical distribution over ``{0, ..., K-1}``."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical distribution given ``probs`` (normalised over the last dim) or ``logits``
    (unnormalised log-probabilities); the last dim indexes the K categories.

    >>> m = Categorical(probs=torch.tensor([0.25, 0.75]))
    >>> m.log_prob(torch.tensor(1))
    tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else torch.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Categorical":
        return self._expanded(Categorical, batch_shape, _instance, ("probs", "logits"), copy=("_num_events",))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    @property
    def mean(self) -> torch.Tensor:
        return torch.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> torch.Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> torch.Tensor:
        return torch.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        sample_shape = torch.Size(tuple(sample_shape))
        n = math.prod(sample_shape)
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            if n == 0 or probs_2d.shape[0] == 0:
                return torch.zeros(tuple(self._extended_shape(sample_shape)), dtype=torch.int64)
            samples_2d = torch.multinomial(probs_2d, n, True).T
            return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        values = torch.arange(self._num_events, dtype=torch.int64).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

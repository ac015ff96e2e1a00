"""Relaxed (concrete / Gumbel-softmax) one-hot categorical distributions."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample (Gumbel-softmax in log space)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # the true support is a submanifold of this
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ExpRelaxedCategorical":
        new = self._expanded(ExpRelaxedCategorical, batch_shape, _instance, (), copy=("temperature",))
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def param_shape(self) -> torch.Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> torch.Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> torch.Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = math.lgamma(k) + self.temperature.log().mul(k - 1)
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """Relaxed one-hot categorical on the simplex at ``temperature``, given ``probs`` or ``logits``.

    >>> m = RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8]))
    >>> m.rsample().shape
    torch.Size([2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "RelaxedOneHotCategorical":
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
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

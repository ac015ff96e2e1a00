"""Multinomial distribution: category counts of ``total_count`` categorical draws."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import lgamma
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distribution over count vectors (the last dim), given ``probs`` or ``logits``.

    >>> Multinomial(4, torch.tensor([0.25, 0.75])).mean
    tensor([1., 3.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Multinomial":
        new = self._expanded(Multinomial, batch_shape, _instance, (), copy=("total_count",))
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(tuple(batch_shape) + tuple(self.event_shape))
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> torch.Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> torch.Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self) -> torch.Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> torch.Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> torch.Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        sample_shape = tuple(sample_shape)
        with torch.no_grad():
            draws = self._categorical.sample((self.total_count,) + sample_shape)
            draws = draws.permute(list(range(1, draws.dim())) + [0])  # trials last
            counts = torch.zeros(tuple(self._extended_shape(sample_shape)), dtype=torch.int64)
            counts = counts.scatter_add(-1, draws, torch.ones_like(draws))
            return counts.to(self.probs.dtype)

    def entropy(self) -> torch.Tensor:
        n = torch.tensor(self.total_count, dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torch.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * -inf counts as 0: a category with zero probability and zero count.
        logits = torch.where((value == 0) & (logits == -math.inf), 0.0, logits)
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

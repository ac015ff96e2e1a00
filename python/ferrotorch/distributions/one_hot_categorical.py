"""One-hot categorical distribution and its straight-through (reparameterized) variant."""

from __future__ import annotations

from typing import Any, Optional

import ferrotorch as torch
from ferrotorch.nn.functional import one_hot

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A Categorical whose samples are one-hot vectors of length K (the event shape).

    >>> m = OneHotCategorical(probs=torch.tensor([0.25, 0.75]))
    >>> m.log_prob(torch.tensor([0.0, 1.0]))
    tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "OneHotCategorical":
        new = self._expanded(OneHotCategorical, batch_shape, _instance, ())
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def _param(self) -> torch.Tensor:
        return self._categorical._param

    @property
    def probs(self) -> torch.Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> torch.Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> torch.Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> torch.Tensor:
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> torch.Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> torch.Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).to(self._categorical.probs.dtype)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> torch.Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        n = self.event_shape[0]
        values = torch.eye(n, dtype=self._param.dtype).reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients straight through to ``probs``
    (the sample's value is one-hot; its gradient is that of ``probs``)."""

    has_rsample = True

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())

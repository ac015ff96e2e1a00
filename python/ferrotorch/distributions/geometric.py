"""Geometric distribution: the number of failures before the first success."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import (
    _binary_cross_entropy_with_logits,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric distribution over ``{0, 1, 2, ...}`` with success probability ``probs``
    (or log-odds ``logits``).

    >>> Geometric(torch.tensor(0.25)).mean
    tensor(3.)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape = torch.Size() if isinstance(given, numbers.Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not bool(valid.all()):
                value = self.probs
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to be positive but found invalid values:\n{value.detach()[~valid]}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Geometric":
        return self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> torch.Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> torch.Tensor:
        return torch.zeros_like(self.probs)

    @property
    def variance(self) -> torch.Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self) -> torch.Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            u = torch.empty(tuple(shape), dtype=self.probs.dtype).uniform_(torch.finfo(self.probs.dtype).tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # probs == 1 puts all mass on 0: make 0 * log(0) count as 0 there.
        probs = torch.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> torch.Tensor:
        return _binary_cross_entropy_with_logits(self.logits, self.probs) / self.probs

"""Independent: reinterprets batch dims of a distribution as event dims."""

from __future__ import annotations

from typing import Any, Dict, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Treats the rightmost ``reinterpreted_batch_ndims`` batch dims of ``base_distribution``
    as event dims, so ``log_prob`` sums over them.

    >>> base = Normal(torch.zeros(3), torch.ones(3))
    >>> Independent(base, 1).event_shape
    torch.Size([3])
    """

    arg_constraints: Dict[str, constraints.Constraint] = {}

    def __init__(
        self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args: Optional[bool] = None
    ) -> None:
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}"
            )
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[: len(shape) - event_dim], shape[len(shape) - event_dim :], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Independent":
        new = self._expanded(Independent, batch_shape, _instance, (), copy=("reinterpreted_batch_ndims",))
        base_batch = tuple(batch_shape) + tuple(self.event_shape[: self.reinterpreted_batch_ndims])
        new.base_dist = self.base_dist.expand(base_batch)
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> torch.Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> torch.Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> torch.Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> torch.Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return self.__class__.__name__ + f"({self.base_dist}, {self.reinterpreted_batch_ndims})"

"""Normal (Gaussian) distribution."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Tuple

import ferrotorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """Normal distribution with mean ``loc`` and standard deviation ``scale``.

    >>> m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
    >>> m.log_prob(torch.tensor([0.0]))
    tensor([-0.9189])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(torch.Size() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Normal":
        return self._expanded(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> torch.Tensor:
        return self.loc

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def stddev(self) -> torch.Tensor:
        return self.scale

    @property
    def variance(self) -> torch.Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        return self.loc + _standard_normal(shape, self.loc.dtype) * self.scale

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> torch.Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)

    @property
    def _natural_params(self) -> Tuple[torch.Tensor, torch.Tensor]:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return -0.25 * x.pow(2) / y + 0.5 * torch.log(-math.pi / y)

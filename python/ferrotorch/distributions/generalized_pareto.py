"""Generalized Pareto distribution (peaks over threshold)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto with ``loc``, ``scale`` and shape ``concentration`` (xi); xi = 0 is
    the exponential limit, xi < 0 has bounded support ``[loc, loc - scale / xi]``.

    >>> GeneralizedPareto(0.0, 1.0, 0.0).cdf(torch.tensor(1.0))
    tensor(0.6321)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(torch.Size() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "GeneralizedPareto":
        return self._expanded(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def _safe_concentration(self) -> tuple:
        eq_zero = torch.isclose(self.concentration, torch.zeros_like(self.concentration))
        return eq_zero, torch.where(eq_zero, torch.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        u = torch.rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe = self._safe_concentration()
        y = 1 / safe + torch.ones_like(z)
        nonzero = torch.where(y == 0, y, y * torch.log1p(safe * z))
        return -self.scale.log() - torch.where(eq_zero, z, nonzero)

    def log_survival_function(self, value: torch.Tensor) -> torch.Tensor:
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe = self._safe_concentration()
        return torch.where(eq_zero, -z, -torch.log1p(safe * z) / safe)

    def log_cdf(self, value: torch.Tensor) -> torch.Tensor:
        """``log(cdf(value))``."""
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        return torch.exp(self.log_cdf(value))

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        eq_zero, safe = self._safe_concentration()
        logu = torch.log1p(-value)
        nonzero = self.loc + self.scale / safe * torch.expm1(-safe * logu)
        return torch.where(eq_zero, self.loc - self.scale * logu, nonzero)

    def _z(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.loc) / self.scale

    @property
    def mean(self) -> torch.Tensor:
        valid = self.concentration < 1
        safe = torch.where(valid, self.concentration, 0.5)
        return torch.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self) -> torch.Tensor:
        valid = self.concentration < 0.5
        safe = torch.where(valid, self.concentration, 0.25)
        return torch.where(valid, self.scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    def entropy(self) -> torch.Tensor:
        return (torch.log(self.scale) + self.concentration + 1).broadcast_to(tuple(self._batch_shape))

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        upper = torch.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)

"""Von Mises distribution: the circular analogue of the normal distribution."""

from __future__ import annotations

import math
from typing import Any, List, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz and
# Stegun 9.8.1-9.8.4): one in (x / 3.75)^2 below 3.75 and one in 3.75 / x above.
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [
    0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
    -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2,
]  # fmt: skip
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_LARGE = [
    0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
    0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2,
]  # fmt: skip


def _eval_poly(y: torch.Tensor, coef: List[float]) -> torch.Tensor:
    """Horner evaluation of ``sum(coef[i] * y**i)``."""
    result: Any = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: torch.Tensor, order: int = 0) -> torch.Tensor:
    """``log I_order(x)`` for ``x > 0`` and order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    small_coef, large_coef = (_I0_SMALL, _I0_LARGE) if order == 0 else (_I1_SMALL, _I1_LARGE)
    y = (x / 3.75) ** 2
    small = _eval_poly(y, small_coef)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, large_coef).log()
    return torch.where(x < 3.75, small, large)


def _rejection_sample(loc: torch.Tensor, concentration: torch.Tensor, proposal_r: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Best and Fisher's (1979) wrapped-Cauchy rejection sampler, repeated until all accept."""
    done = torch.zeros(tuple(x.shape), dtype=torch.bool)
    while not bool(done.all()):
        u1, u2, u3 = torch.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind(0)
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = torch.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return torch.remainder(x + math.pi + loc, 2 * math.pi) - math.pi


class VonMises(Distribution):
    """Von Mises distribution on the circle with mean direction ``loc`` and ``concentration``.

    >>> VonMises(torch.tensor(0.0), torch.tensor(1.0)).log_prob(torch.tensor(0.0))
    tensor(-1.0738)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torch.Size(), validate_args)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torch.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self) -> torch.Tensor:
        return self.loc.to(torch.float64)

    @lazy_property
    def _concentration(self) -> torch.Tensor:
        return self.concentration.to(torch.float64)

    @lazy_property
    def _proposal_r(self) -> torch.Tensor:
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        return torch.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        """Samples in ``[-pi, pi)`` by rejection, computed in float64 (no gradient)."""
        with torch.no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            x = torch.zeros(shape, dtype=torch.float64)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "VonMises":
        return self._expanded(VonMises, batch_shape, _instance, ("loc", "concentration"))

    @property
    def mean(self) -> torch.Tensor:
        """The circular mean (``loc``)."""
        return self.loc

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> torch.Tensor:  # type: ignore[override]
        """The circular variance ``1 - I1(k) / I0(k)``."""
        ratio = _log_modified_bessel_fn(self.concentration, order=1) - _log_modified_bessel_fn(self.concentration, order=0)
        return 1 - ratio.exp()

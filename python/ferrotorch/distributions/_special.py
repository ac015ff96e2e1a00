"""The special functions and samplers the gamma-family distributions need, looked up on
``torch`` when called so that a clear error names what a build lacks."""

from __future__ import annotations

from typing import Any

import ferrotorch as torch


def _op(name: str) -> Any:
    fn = getattr(torch, name, None)
    if fn is None:
        raise NotImplementedError(f"torch.{name} is not available in this build of ferrotorch")
    return fn


def lgamma(x: torch.Tensor) -> torch.Tensor:
    """``log |Gamma(x)|``."""
    return _op("lgamma")(x)


def digamma(x: torch.Tensor) -> torch.Tensor:
    """``d/dx log Gamma(x)``."""
    return _op("digamma")(x)


def standard_gamma(concentration: torch.Tensor, generator: Any = None) -> torch.Tensor:
    """Gamma(concentration, 1) samples, differentiable in ``concentration`` (implicit reparameterization)."""
    if generator is None:
        return _op("_standard_gamma")(concentration)
    return _op("_standard_gamma")(concentration, generator=generator)


def poisson(rate: torch.Tensor) -> torch.Tensor:
    """Poisson samples with the given rates."""
    return _op("poisson")(rate)


def binomial(count: torch.Tensor, prob: torch.Tensor) -> torch.Tensor:
    """Binomial samples with the given counts and probabilities."""
    return _op("binomial")(count, prob)


def gammainc(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    special = getattr(torch, "special", None)
    fn = getattr(special, "gammainc", None) or getattr(torch, "igamma", None)
    if fn is None:
        raise NotImplementedError("torch.special.gammainc is not available in this build of ferrotorch")
    return fn(a, x)


def mvlgamma(x: torch.Tensor, p: int) -> torch.Tensor:
    """The multivariate log-gamma function ``log Gamma_p(x)``."""
    native = getattr(torch, "mvlgamma", None)
    if native is not None:
        return native(x, p)
    import math

    offsets = torch.arange(p, dtype=x.dtype) / 2
    return lgamma(x.unsqueeze(-1) - offsets).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)

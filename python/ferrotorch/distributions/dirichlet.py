"""Dirichlet distribution on the simplex."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import ferrotorch as torch
from ferrotorch.nn.functional import one_hot

from . import constraints
from ._special import digamma, lgamma, standard_gamma
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution with ``concentration`` over the last dim (the event dim).

    >>> Dirichlet(torch.tensor([1.0, 3.0])).mean
    tensor([0.2500, 0.7500])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: torch.Tensor, validate_args: Optional[bool] = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape: Any = ()) -> torch.Tensor:
        # Normalised Gamma(concentration_i, 1) draws; gradients flow through the gamma sampler's
        # implicit reparameterization and the normalisation.
        shape = tuple(self._extended_shape(sample_shape))
        gammas = standard_gamma(self.concentration.expand(shape))
        tiny = torch.finfo(gammas.dtype).tiny
        gammas = gammas + (gammas.detach().clamp(min=tiny) - gammas.detach())
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (
            torch.xlogy(self.concentration - 1.0, value).sum(-1)
            + lgamma(self.concentration.sum(-1))
            - lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self) -> torch.Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> torch.Tensor:
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        # With every concentration below 1 the density peaks at a vertex.
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        vertex = one_hot(mode.argmax(-1), shifted.shape[-1]).to(mode.dtype)
        return torch.where(all_below_one, vertex, mode)

    @property
    def variance(self) -> torch.Tensor:
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self) -> torch.Tensor:
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            lgamma(self.concentration).sum(-1)
            - lgamma(a0)
            - (k - a0) * digamma(a0)
            - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self) -> Tuple[torch.Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))

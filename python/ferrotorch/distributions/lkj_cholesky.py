"""LKJ distribution over Cholesky factors of correlation matrices (Lewandowski, Kurowicka and Joe, 2009)."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from ._special import lgamma, mvlgamma
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution of the lower Cholesky factor of a ``dim x dim`` correlation matrix
    with shape parameter ``concentration`` (1 is uniform over correlation matrices).
    Sampling uses the onion method.

    >>> LKJCholesky(3, 0.5).sample().shape
    torch.Size([3, 3])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: Optional[bool] = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([torch.zeros(1, dtype=offset.dtype), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), torch.Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LKJCholesky":
        new = self._expanded(LKJCholesky, batch_shape, _instance, ("concentration",), copy=("dim",))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = torch.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
            norms = u_normal.square().sum(-1, keepdim=True).sqrt()
            # Row 0 is all zeros: leave it zero rather than 0 / 0.
            u_hypersphere = torch.where(norms > 0, u_normal / torch.where(norms > 0, norms, 1.0), 0.0)
            w = torch.sqrt(y) * u_hypersphere
            diag = torch.clamp(1 - torch.sum(w**2, -1), min=torch.finfo(w.dtype).tiny).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = torch.sum(order * diag_elems.log(), -1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - lgamma(alpha) * dm1
        return unnormalized - normalize_term

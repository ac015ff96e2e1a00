"""Multivariate normal distribution, parameterized by a covariance, precision or scale_tril matrix."""

from __future__ import annotations

import math
from typing import Any, Optional

import ferrotorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: torch.Tensor, bvec: torch.Tensor) -> torch.Tensor:
    """Batched matrix-vector product with broadcasting batch dims."""
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(tril: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``x^T (L L^T)^-1 x`` for a batch of lower Cholesky factors ``L`` broadcast against ``x``."""
    batch = torch.broadcast_shapes(tuple(tril.shape[:-2]), tuple(x.shape[:-1]))
    n = x.shape[-1]
    tril = tril.expand(tuple(batch) + (n, n))
    x = x.expand(tuple(batch) + (n,))
    return torch.linalg.solve_triangular(tril, x.unsqueeze(-1), upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(precision: torch.Tensor) -> torch.Tensor:
    """The lower Cholesky factor of ``precision^-1`` without inverting ``precision`` directly:
    the Cholesky factor of the flipped matrix gives an upper factor, whose inverse is lower."""
    flipped = torch.linalg.cholesky(torch.flip(precision, (-2, -1)))
    tril_inv = torch.transpose(torch.flip(flipped, (-2, -1)), -2, -1)
    eye = torch.eye(precision.shape[-1], dtype=precision.dtype).expand(tuple(tril_inv.shape))
    return torch.linalg.solve_triangular(tril_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """Multivariate normal with mean ``loc`` and exactly one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (a lower Cholesky factor of the covariance).

    >>> m = MultivariateNormal(torch.zeros(2), torch.eye(2))
    >>> m.log_prob(torch.zeros(2))
    tensor(-1.8379)
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: torch.Tensor,
        covariance_matrix: Optional[torch.Tensor] = None,
        precision_matrix: Optional[torch.Tensor] = None,
        scale_tril: Optional[torch.Tensor] = None,
        validate_args: Optional[bool] = None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, matrix in (
            ("scale_tril matrix", scale_tril),
            ("covariance_matrix", covariance_matrix),
            ("precision_matrix", precision_matrix),
        ):
            if matrix is not None:
                if matrix.dim() < 2:
                    raise ValueError(
                        f"{name} must be at least two-dimensional, with optional leading batch dimensions"
                    )
                batch_shape = torch.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
                stored = matrix.expand(tuple(batch_shape) + (-1, -1))
                setattr(self, name.split()[0], stored)
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        params = ("loc", "covariance_matrix", "scale_tril", "precision_matrix")
        return self._expanded(MultivariateNormal, batch_shape, _instance, params, copy=("_unbroadcasted_scale_tril",))

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> torch.Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> torch.Tensor:
        tril = self._unbroadcasted_scale_tril
        return torch.matmul(tril, tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> torch.Tensor:
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self) -> torch.Tensor:
        return self.loc

    @property
    def mode(self) -> torch.Tensor:
        return self.loc

    @property
    def variance(self) -> torch.Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> torch.Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self) -> torch.Tensor:
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return h
        return h.expand(tuple(self._batch_shape))

"""Wishart distribution over positive-definite matrices."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Dict, Optional, Tuple

import ferrotorch as torch

from . import constraints
from ._special import digamma, mvlgamma
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: torch.Tensor, p: int) -> torch.Tensor:
    """The multivariate digamma function (the derivative of ``mvlgamma``)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return digamma(x.unsqueeze(-1) - torch.arange(p, dtype=x.dtype) / 2).sum(-1)


class Wishart(ExponentialFamily):
    """Wishart distribution with ``df`` degrees of freedom and scale given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``. Samples use the Bartlett
    decomposition; the rare singular ones are redrawn up to ``max_try_correction`` times.

    >>> Wishart(torch.tensor(4.0), covariance_matrix=torch.eye(2)).mean
    tensor([[4., 0.],
            [0., 4.]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> Dict[str, constraints.Constraint]:  # type: ignore[override]
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Optional[torch.Tensor] = None,
        precision_matrix: Optional[torch.Tensor] = None,
        scale_tril: Optional[torch.Tensor] = None,
        validate_args: Optional[bool] = None,
    ) -> None:
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix), ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = torch.Size(tuple(param.shape[:-2]))
            self.df = torch.tensor(df, dtype=param.dtype)
        else:
            batch_shape = torch.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(tuple(batch_shape))
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._make_chi2(tuple(batch_shape))

    def _make_chi2(self, batch_shape: Tuple[int, ...]) -> Chi2:
        """The chi-squared laws of the Bartlett factor's squared diagonal: df - i for row i."""
        p = self._event_shape[-1]
        offsets = torch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype).expand(batch_shape + (-1,))
        return Chi2(df=self.df.unsqueeze(-1) - offsets)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Wishart":
        batch_shape = tuple(batch_shape)
        params = ("df", "covariance_matrix", "scale_tril", "precision_matrix")
        new = self._expanded(Wishart, batch_shape, _instance, params)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(batch_shape + tuple(self.event_shape))
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        new._dist_chi2 = new._make_chi2(batch_shape)
        return new

    @lazy_property
    def scale_tril(self) -> torch.Tensor:
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape + self._event_shape))

    @lazy_property
    def covariance_matrix(self) -> torch.Tensor:
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(tuple(self._batch_shape + self._event_shape))

    @lazy_property
    def precision_matrix(self) -> torch.Tensor:
        eye = torch.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return torch.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(tuple(self._batch_shape + self._event_shape))

    def _df_as_matrix_factor(self, df: torch.Tensor) -> torch.Tensor:
        return df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self) -> torch.Tensor:
        return self._df_as_matrix_factor(self.df) * self.covariance_matrix

    @property
    def mode(self) -> torch.Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torch.where(factor <= 0, math.nan, factor)
        return self._df_as_matrix_factor(factor) * self.covariance_matrix

    @property
    def variance(self) -> torch.Tensor:
        v = self.covariance_matrix
        diag = v.diagonal(dim1=-2, dim2=-1)
        return self._df_as_matrix_factor(self.df) * (v.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: Tuple[int, ...]) -> torch.Tensor:
        p = self._event_shape[-1]
        eps = torch.finfo(self._unbroadcasted_scale_tril.dtype).eps
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        below = torch.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p, p), dtype=diag.dtype).tril(-1)
        chol = self._unbroadcasted_scale_tril @ (torch.diag_embed(diag) + below)
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape: Any = torch.Size(), max_try_correction: Optional[int] = None) -> torch.Tensor:
        """Bartlett samples; singular ones (possible when df is close to ndim - 1) are redrawn."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = tuple(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        for attempt in range(max_try_correction + 1):
            singular = ~self.support.check(sample.detach())
            if not bool(singular.any()):
                break
            if attempt == 0:
                warnings.warn("Singular sample detected.", stacklevel=2)
            if attempt == max_try_correction:
                break
            redraw = self._bartlett_sampling(sample_shape)
            sample = torch.where(singular.unsqueeze(-1).unsqueeze(-1), redraw, sample)
        return sample

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        half_logdet_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = torch.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (
            -nu * (p * _LOG_2 / 2 + half_logdet_scale)
            - mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet
            - trace / 2
        )

    def entropy(self) -> torch.Tensor:
        nu = self.df
        p = self._event_shape[-1]
        half_logdet_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + half_logdet_scale)
            + mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> Tuple[torch.Tensor, torch.Tensor]:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-torch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p)

"""MixtureSameFamily: a mixture whose components are the batch of one distribution."""

from __future__ import annotations

from typing import Any, Dict, Optional

import ferrotorch as torch

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture selected by ``mixture_distribution`` (a Categorical over K components) whose
    components are the rightmost batch dim (of size K) of ``component_distribution``.

    >>> mix = Categorical(torch.ones(2))
    >>> comp = Normal(torch.tensor([-1.0, 1.0]), torch.tensor([1.0, 1.0]))
    >>> MixtureSameFamily(mix, comp).mean
    tensor(0.)
    """

    arg_constraints: Dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: Optional[bool] = None,
    ) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of torch.distributions.Distribution"
            )
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                    f"compatible with `component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MixtureSameFamily":
        batch_shape = torch.Size(tuple(batch_shape))
        new = self._expanded(MixtureSameFamily, batch_shape, _instance, (), copy=("_num_component", "_event_ndims"))
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def mean(self) -> torch.Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return torch.sum(probs * self.component_distribution.mean, -1 - self._event_ndims)

    @property
    def variance(self) -> torch.Tensor:
        # Law of total variance: E[Var(X | k)] + Var(E[X | k]).
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = torch.sum(probs * self.component_distribution.variance, -1 - self._event_ndims)
        deviation = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        var_cond_mean = torch.sum(probs * deviation, -1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: torch.Tensor) -> torch.Tensor:
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return torch.sum(cdf_x * self.mixture_distribution.probs, -1)

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = torch.log_softmax(self.mixture_distribution.logits, -1)
        return torch.logsumexp(log_prob_x + log_mix_prob, -1)

    def sample(self, sample_shape: Any = torch.Size()) -> torch.Tensor:
        with torch.no_grad():
            gather_dim = len(tuple(sample_shape)) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            # A mixture with fewer batch dims than the components picks per sample, for all batch entries.
            sample_batch = tuple(sample_shape) + tuple(self.batch_shape)
            extra = len(self.batch_shape) - len(self.mixture_distribution.batch_shape)
            mix_sample = mix_sample.reshape(
                tuple(sample_shape) + (1,) * extra + tuple(self.mixture_distribution.batch_shape)
            ).expand(sample_batch)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.expand(mix_shape + (1,) + es)
            return torch.gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x: torch.Tensor) -> torch.Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: torch.Tensor) -> torch.Tensor:
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return "MixtureSameFamily" + f"(\n  {self.mixture_distribution},\n  {self.component_distribution})"

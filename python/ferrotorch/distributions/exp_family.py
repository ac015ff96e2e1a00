"""ExponentialFamily: distributions whose density is ``h(x) exp(<t(x), theta> - F(theta))``;
their entropy (and KL between two of the same kind) follows from the log normalizer ``F``."""

from __future__ import annotations

from typing import Any, Tuple

import ferrotorch as torch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class for exponential-family distributions: subclasses give ``_natural_params``,
    ``_log_normalizer`` and ``_mean_carrier_measure``."""

    @property
    def _natural_params(self) -> Tuple[torch.Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> torch.Tensor:
        """``F(theta) - <theta, grad F(theta)> - E[log h(x)]`` by autograd on the log normalizer."""
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*nparams)
        grads = torch.autograd.grad(log_norm.sum(), nparams, create_graph=True)
        result = log_norm - self._mean_carrier_measure
        for p, g in zip(nparams, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

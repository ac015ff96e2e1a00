"""Instance normalization: InstanceNorm1d/2d/3d, their lazy forms and ``instance_norm``."""

from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Optional

from ... import _core
from ..._grad_mode import no_grad
from ..._nn_kernels import _channel_affine, _normalize_by_running_stats, _unbiased_var
from .normalization import _LazyNormBase, _NormBase

Tensor = _core.Tensor


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None, running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes each (sample, channel) slice of [N, C, *] over its spatial elements.

    With ``use_input_stats`` the running estimates (if given) move toward the batch average of the
    per-instance mean and unbiased variance; without it they are used for normalizing."""
    if input.ndim < 2:
        raise ValueError(f"instance_norm: expected at least 2D input (got {input.ndim}D input)")
    n, c = input.shape[0], input.shape[1]
    spatial = math.prod(input.shape[2:])
    if use_input_stats:
        if spatial <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
        rows = input.reshape(n * c, spatial)
        y, mean, rstd = _core._normalize_last(rows, 1, eps)
        y = y.reshape(input.shape)
        if running_mean is not None and running_var is not None:
            with no_grad():
                var = _unbiased_var(rstd, eps, spatial)
                batch_mean = mean.detach().reshape(n, c).mean(0).to(running_mean.dtype)
                batch_var = var.reshape(n, c).mean(0).to(running_var.dtype)
                running_mean.mul_(1 - momentum).add_(batch_mean, alpha=momentum)
                running_var.mul_(1 - momentum).add_(batch_var, alpha=momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("instance_norm: running_mean and running_var must be given when use_input_stats=False")
        y = _normalize_by_running_stats(input, running_mean, running_var, eps)
    return _channel_affine(input, y, weight, bias)


class _InstanceNorm(_NormBase):
    _no_batch_dim: int = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = False, track_running_stats: bool = False, device: object = None, dtype: object = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _before_load_state_dict(self, state_dict: Dict[str, Any], prefix: str) -> Optional[List[str]]:
        # Unversioned checkpoints with running stats for an InstanceNorm that keeps none (saved
        # before PyTorch 0.4): PyTorch drops the keys and reports an error; so do we.
        errors = super()._before_load_state_dict(state_dict, prefix) or []
        version = getattr(state_dict, "_metadata", {}).get(prefix[:-1], {}).get("version")
        keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
        if version is None and not self.track_running_stats and keys:
            klass = type(self).__name__
            errors.append(
                f"Unexpected running stats buffer(s) {' and '.join(repr(k).replace(chr(39), chr(34)) for k in keys)} for {klass} with track_running_stats=False. "
                f"If state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does not track running stats by default since 0.4.0. "
                f"Please remove these keys from state_dict. If the running stats are actually needed, instead set track_running_stats=True in {klass} to enable them. "
                f"See the documentation of {klass} for details."
            )
            for k in keys:
                state_dict.pop(k)
        return errors

    def forward(self, input: Tensor) -> Tensor:
        nb = self._no_batch_dim
        if input.ndim not in (nb, nb + 1):
            raise ValueError(f"expected {nb}D or {nb + 1}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - nb
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by not passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        x = input.unsqueeze(0) if input.ndim == nb else input
        y = instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return y.squeeze(0) if input.ndim == nb else y


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over [N, C, L] or unbatched [C, L]."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over [N, C, H, W] or unbatched [C, H, W]."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over [N, C, D, H, W] or unbatched [C, D, H, W]."""

    _no_batch_dim = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with ``num_features`` from dim 1 of the first input."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d with ``num_features`` from dim 1 of the first input."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d with ``num_features`` from dim 1 of the first input."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4

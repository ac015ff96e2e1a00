"""Normalization layers: BatchNorm1d/2d, LayerNorm, GroupNorm, RMSNorm."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ... import _core
from ... import _nn_kernels as K
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


class _BatchNorm(Module):
    _expected_dims: Sequence[int] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_core.ones(num_features, dtype=dt))
            self.bias = Parameter(_core.zeros(num_features, dtype=dt))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _core.zeros(num_features, dtype=dt))
            self.register_buffer("running_var", _core.ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", _core.tensor(0, dtype=_core.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_() if hasattr(self.running_mean, "zero_") else self.running_mean.mul_(0)
            self.running_var.mul_(0).add_(1)
            self.num_batches_tracked.mul_(0)

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input (got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or not self.track_running_stats
        return K.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            momentum,
            self.eps,
        )

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, track_running_stats={self.track_running_stats}"


class BatchNorm1d(_BatchNorm):
    """Batch normalization over [N, C] or [N, C, L]."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over [N, C, H, W]."""

    _expected_dims = (4,)


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dims, with a learned scale and shift."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_core.ones(*self.normalized_shape, dtype=dt))
            if bias:
                self.bias = Parameter(_core.zeros(*self.normalized_shape, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return K.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Normalizes groups of channels of [N, C, *] inputs."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        dt = dtype or _core.get_default_dtype()
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(_core.ones(num_channels, dtype=dt))
            self.bias = Parameter(_core.zeros(num_channels, dtype=dt))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return K.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None, eps: Optional[float] = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times ``weight``."""
    from ..._tensor_extras import finfo

    dims = tuple(range(-len(normalized_shape), 0))
    e = finfo(input.dtype).eps if eps is None else eps
    y = input * ((input * input).mean(dims, keepdim=True) + e).rsqrt()
    return y * weight if weight is not None else y


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: Optional[float] = None, elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_core.ones(*self.normalized_shape, dtype=dt))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"

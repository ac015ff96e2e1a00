"""Dropout layers: Dropout, Dropout1d/2d/3d (whole channels), AlphaDropout and
FeatureAlphaDropout (SELU-preserving), with their functional forms."""

from __future__ import annotations

import math
import warnings

from ... import _core
from .module import Module

Tensor = _core.Tensor

# The negative saturation value of SELU (-scale * alpha); alpha dropout drops to it.
_SELU_SATURATION = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, p: float, channel_dims: int) -> Tensor:
    """1 where kept, 0 where dropped: one draw per element, or (``channel_dims`` = 1 or 2) one per
    channel of [C, *] or per (sample, channel) of [N, C, *]."""
    shape = list(input.shape[:channel_dims]) + [1] * (input.ndim - channel_dims) if channel_dims else list(input.shape)
    # Drawn where the input lives: a GPU samples from its own seeded stream.
    return _core.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)


def _dropout_impl(input: Tensor, p: float, training: bool, inplace: bool, channel_dims: int, alpha: bool) -> Tensor:
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if channel_dims == 2 and input.ndim < 2 and p < 1.0:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not (alpha or channel_dims or inplace) and p < 1.0 and input.device.type != "cpu" and input.is_floating_point():
        # Mask and scale in one kernel on the device.
        return _core._dropout(input, p)
    shift = None
    if p == 1.0:
        scale = _core.zeros((), dtype=input.dtype)
    elif alpha:
        # Dropped values go to the SELU saturation; a and b keep mean 0 and variance 1.
        keep = _keep_mask(input, p, channel_dims)
        a = 1.0 / math.sqrt((_SELU_SATURATION**2 * p + 1) * (1 - p))
        scale = keep * a
        shift = (keep - 1.0) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    else:
        scale = _keep_mask(input, p, channel_dims) * (1.0 / (1.0 - p))
    if inplace:
        # In-place ops, so autograd records them on the input (a copy_ would not).
        input.mul_(scale)
        return input.add_(shift) if shift is not None else input
    out = input * scale
    return out + shift if shift is not None else out


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes elements with probability ``p`` and scales the rest by 1/(1-p) when training."""
    return _dropout_impl(input, p, training, inplace, 0, False)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of [N, C, L] or [C, L] with probability ``p`` (scaling the rest)."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists to provide "
            "channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _dropout_impl(input, p, training, inplace, 1 if input.ndim == 2 else 2, False)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of [N, C, H, W] with probability ``p`` (a 3D input is taken as [N, C, L], as PyTorch does)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result in an error in a future release. "
            "To retain the behavior and silence this warning, please use dropout instead. Note that dropout2d exists to provide channel-wise "
            "dropout on inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - input is "
            "interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
            "to using dropout1d instead.",
            stacklevel=2,
        )
    return _dropout_impl(input, p, training, inplace, 2, False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] with probability ``p``."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result in an error in a future release. "
            "To retain the behavior and silence this warning, please use dropout instead. Note that dropout3d exists to provide channel-wise "
            "dropout on inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    # Anything but 5D is taken as one unbatched sample, as PyTorch does.
    return _dropout_impl(input, p, training, inplace, 2 if input.ndim == 5 else 1, False)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps a SELU network's mean and variance: dropped values go to SELU's saturation."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, 0, True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels of [N, C, *]."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, 2, True)


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_p(p)
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability ``p`` in training and scales the rest by 1/(1-p)."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of [N, C, L] or [C, L] inputs in training."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of [N, C, H, W] inputs in training."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] inputs in training."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout (for SELU networks) in training."""

    def forward(self, input: Tensor) -> Tensor:
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels in training."""

    def forward(self, input: Tensor) -> Tensor:
        return feature_alpha_dropout(input, self.p, self.training)

"""Fold / Unfold layers: sliding local blocks to columns and back (im2col / col2im)."""

from __future__ import annotations

from typing import Any

from ... import _core
from ... import _nn_kernels as K
from .module import Module

Tensor = _core.Tensor


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """[N, C, H, W] (or [C, H, W]) -> [N, C*kh*kw, L] (or [C*kh*kw, L])."""
    if input.ndim < 3:
        # PyTorch indexes dim 2 before checking the rank; its error is an IndexError.
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got 2)")
    if input.ndim == 3:
        return K.unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 4:
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    return K.unfold(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """[N, C*kh*kw, L] (or [C*kh*kw, L]) -> [N, C, H, W] (or [C, H, W]), summing overlaps."""
    if input.ndim in (2, 3):
        k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if input.shape[-2] % (k[0] * k[1]) != 0:
            raise RuntimeError(
                f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={input.shape[-2]} and kernel_size={k}."
            )
    if input.ndim == 2:
        return K.fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 3:
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input.ndim}D)")
    return K.fold(input, output_size, kernel_size, dilation, padding, stride)


class Fold(Module):
    """Sums columns of sliding blocks [N, C*prod(k), L] into an image of ``output_size``."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Unfold(Module):
    """Extracts sliding local blocks of [N, C, H, W] as columns [N, C*prod(k), L]."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"

"""PixelShuffle / PixelUnshuffle: moving factors of the channel dim into height and width and
back (sub-pixel convolution), as reshapes and one permute."""

from __future__ import annotations

from ... import _core
from .module import Module

Tensor = _core.Tensor


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """[*, C*r*r, H, W] -> [*, C, H*r, W*r].

    >>> import ferrotorch as torch
    >>> torch.nn.functional.pixel_shuffle(torch.zeros(1, 8, 2, 3), 2).shape
    torch.Size([1, 2, 4, 6])
    """
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if r * r >= 2**63:
        raise ValueError(f"upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor={r}")
    *lead, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    b = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    # [.., C, r1, r2, H, W] -> [.., C, H, r1, W, r2]
    perm = list(range(b)) + [b, b + 3, b + 1, b + 4, b + 2]
    return x.permute(tuple(perm)).reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """[*, C, H*r, W*r] -> [*, C*r*r, H, W] (the inverse of pixel_shuffle)."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    b = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    # [.., C, H, r1, W, r2] -> [.., C, r1, r2, H, W]
    perm = list(range(b)) + [b, b + 2, b + 4, b + 1, b + 3]
    return x.permute(tuple(perm)).reshape(*lead, c * r * r, h // r, w // r)


class PixelShuffle(Module):
    """Rearranges [*, C*r*r, H, W] into [*, C, H*r, W*r]."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges [*, C, H*r, W*r] into [*, C*r*r, H, W]."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"

"""ChannelShuffle (ShuffleNet): interleaves the channels of ``groups`` groups."""

from __future__ import annotations

from ... import _core
from .module import Module

Tensor = _core.Tensor


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """[N, g*k, *] -> channels reordered so that group members are interleaved."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle


class ChannelShuffle(Module):
    """Divides the channels into ``groups`` groups and interleaves them."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"

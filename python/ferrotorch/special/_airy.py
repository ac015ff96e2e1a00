"""The Airy function ``airy_ai`` (``torch.special``): forward only, as in PyTorch, whose
result never requires grad."""

from __future__ import annotations

from .. import _core
from .._core import Tensor


def airy_ai(input: Tensor) -> Tensor:
    """The Airy function Ai, the solution of ``y'' = x y`` that decays as x grows; NaN at
    NaN and at both infinities. Integers and bools compute in float32.

    >>> import ferrotorch as torch
    >>> torch.special.airy_ai(torch.tensor([0.0, 1.0]))
    tensor([0.3550, 0.1353])
    """
    return _core.special_airy_ai(input)

"""The gated linear unit."""

from __future__ import annotations

from ... import _core
from .. import _functional_activation as A
from .module import Module

Tensor = _core.Tensor


class GLU(Module):
    """a * sigmoid(b), where a and b are the halves of the input along ``dim``."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return A.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"

"""Elementwise activation modules (rectifiers, exponential-linear units, smooth and hard
sigmoid-likes). The softmax family, the shrinkage functions, PReLU/RReLU and GLU have
their own files."""

from __future__ import annotations

import warnings
from typing import Optional

from ... import _core
from .. import _functional_activation as A
from .module import Module

Tensor = _core.Tensor


def _inplace_note(inplace: bool, first: bool = False) -> str:
    """PyTorch's repr suffix: the flag is shown only when set."""
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class _InplaceFlag(Module):
    """An activation whose only argument is ``inplace``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return _inplace_note(self.inplace, first=True)


class Threshold(Module):
    """``value`` where the input is <= ``threshold``, the input elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + _inplace_note(self.inplace)


class ReLU(_InplaceFlag):
    """max(x, 0)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.relu(input, self.inplace)


class Hardtanh(Module):
    """Clamps to [min_val, max_val]."""

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: Optional[float] = None,
        max_value: Optional[float] = None,
    ) -> None:
        super().__init__()
        # min_value/max_value: the old keyword names, still accepted with a FutureWarning.
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning, stacklevel=2)
            max_val = max_value
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_note(self.inplace)


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): a Hardtanh on [0, 6], as in PyTorch."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_note(self.inplace, first=True)


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + _inplace_note(self.inplace)


class _AlphaInplace(Module):
    """An activation with ``alpha`` and ``inplace`` (a private base: in PyTorch, CELU is no ELU)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + _inplace_note(self.inplace)


class ELU(_AlphaInplace):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def forward(self, input: Tensor) -> Tensor:
        return A.elu(input, self.alpha, self.inplace)


class CELU(_AlphaInplace):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise (continuously differentiable ELU)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.celu(input, self.alpha, self.inplace)


class SELU(_InplaceFlag):
    """scale * ELU(x, alpha) with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:
        return A.selu(input, self.inplace)


class GELU(Module):
    """Gaussian error linear unit (``approximate='tanh'`` for the tanh form)."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return A.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceFlag):
    """x * sigmoid(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.silu(input, self.inplace)


class Mish(_InplaceFlag):
    """x * tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return A.mish(input, self.inplace)


class _HiddenInplaceFlag(_InplaceFlag):
    """PyTorch does not show ``inplace`` in these modules' repr."""

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(_HiddenInplaceFlag):
    """relu6(x + 3) / 6."""

    def forward(self, input: Tensor) -> Tensor:
        return A.hardsigmoid(input, self.inplace)


class Hardswish(_HiddenInplaceFlag):
    """x * relu6(x + 3) / 6."""

    def forward(self, input: Tensor) -> Tensor:
        return A.hardswish(input, self.inplace)


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    """Logistic sigmoid."""

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return A.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:
        return A.softsign(input)


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return A.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


# PyTorch's torch.nn.modules.activation holds every activation (and MultiheadAttention);
# programs import them from there, so the ones that live in their own files are re-exported.
from .gated import GLU  # noqa: E402
from .multihead_attention import MultiheadAttention  # noqa: E402
from .negative_slope import PReLU, RReLU  # noqa: E402
from .shrinkage import Hardshrink, Softshrink, Tanhshrink  # noqa: E402
from .softmax import LogSoftmax, Softmax, Softmax2d, Softmin  # noqa: E402

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
    "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
    "Softshrink", "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
    "LogSoftmax",
]

"""Identity, Linear, LazyLinear and Bilinear layers."""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import _core
from ..._grad_mode import no_grad
from ..._op_entry import op_entry
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .lazy import LazyModuleMixin, UninitializedParameter
from .module import Module

Tensor = _core.Tensor


class Identity(Module):
    """Returns its input unchanged (accepts and ignores any constructor arguments)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x W^T + b with W of shape [out_features, in_features].

    >>> import ferrotorch as torch
    >>> torch.nn.Linear(3, 2)(torch.zeros(4, 3)).shape
    torch.Size([4, 2])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_core.empty(out_features, in_features, dtype=dt))
        if bias:
            self.bias = Parameter(_core.empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch's default: kaiming_uniform_(a=sqrt(5)) and U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


@op_entry("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """y_k = x1^T A_k x2 + b_k over the last dims of ``input1`` and ``input2`` (same leading dims)."""
    k, i, j = weight.shape
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} and {input2.shape[d]}")
    if input1.shape[-1] != i:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {i}")
    if input2.shape[-1] != j:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {j}")
    # x1 A -> [..., k, j], then contract j with x2: two products instead of a 3-operand einsum.
    left = input1.matmul(weight.permute(1, 0, 2).reshape(i, k * j)).reshape(list(input1.shape[:-1]) + [k, j])
    out = (left * input2.unsqueeze(-2)).sum(-1)
    return out + bias if bias is not None else out


class Bilinear(Module):
    """y = x1^T A x2 + b with A of shape [out_features, in1_features, in2_features]."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        dt = dtype or _core.get_default_dtype()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(_core.empty(out_features, in1_features, in2_features, dtype=dt))
        if bias:
            self.bias = Parameter(_core.empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in1_features={self.in1_features}, in2_features={self.in2_features}, out_features={self.out_features}, bias={self.bias is not None}"


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear layer whose ``in_features`` comes from the last dim of its first input; it then
    becomes a ``Linear``.

    >>> import ferrotorch as torch
    >>> m = torch.nn.LazyLinear(2)
    >>> _ = m(torch.zeros(3, 5))
    >>> type(m).__name__, m.weight.shape
    ('Linear', torch.Size([2, 5]))
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Gives the weight [out_features, input.shape[-1]] and the bias [out_features], initialized as Linear's."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self._materialize("weight", (self.out_features, self.in_features))
                if self.bias is not None:
                    self._materialize("bias", (self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # Shapes loaded from a checkpoint: the input must agree with them.
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]

"""Convolution layers: Conv1d, Conv2d, ConvTranspose2d (PyTorch's parameter layout and init)."""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

from ... import _core
from ... import _nn_kernels as K
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


def _ntuple(v: Any, n: int) -> Tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v if len(v) == n else (v[0],) * n


class _ConvNd(Module):
    _n = 2
    transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Union[str, Any] = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        output_padding: Any = 0,
    ) -> None:
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode='{padding_mode}' is not supported yet (only 'zeros')")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        dt = dtype or _core.get_default_dtype()
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(_core.empty(*shape, dtype=dt))
        if bias:
            self.bias = Parameter(_core.empty(out_channels, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch's default: kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over [N, C_in, L] inputs; weight [C_out, C_in/groups, k]."""

    _n = 1

    def forward(self, input: Tensor) -> Tensor:
        return K.conv1d(input, self.weight, self.bias, self.stride, self.padding if isinstance(self.padding, str) else self.padding[0], self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over [N, C_in, H, W] inputs; weight [C_out, C_in/groups, kh, kw].

    >>> import ferrotorch as torch
    >>> torch.nn.Conv2d(1, 4, 3, padding=1)(torch.zeros(2, 1, 8, 8)).shape
    torch.Size([2, 4, 8, 8])
    """

    def forward(self, input: Tensor) -> Tensor:
        return K.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution; weight [C_in, C_out/groups, kh, kw]."""

    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype, output_padding=output_padding)

    def forward(self, input: Tensor, output_size: Optional[Any] = None) -> Tensor:
        op = self.output_padding
        if output_size is not None:
            # Choose output_padding so that the result has the requested spatial size.
            size = list(output_size)[-2:]
            h, w = input.shape[-2], input.shape[-1]
            base = [(d - 1) * self.stride[i] - 2 * self.padding[i] + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i, d in enumerate((h, w))]
            op = tuple(size[i] - base[i] for i in range(2))
        return K.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)

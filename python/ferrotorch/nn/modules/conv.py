"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d (PyTorch's parameter layout,
init, repr and padding modes), with the functional conv3d / conv_transpose1d / conv_transpose3d.

The 1-D forms run the 2-D kernels with a height of 1; the 3-D forms sum 2-D convolutions over
the kernel's depth taps (depth folded into the batch), so autograd supplies their gradients.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple, Union

from ... import _core
from ... import _nn_kernels as K
from ..._grad_mode import no_grad
from ..._op_entry import op_entry
from ..._type_info import scalar_type_name
from .. import init
from ..parameter import Parameter
from .lazy import LazyModuleMixin, UninitializedParameter
from .module import Module
from .padding import pad as _pad

Tensor = _core.Tensor

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(v: Any, n: int) -> Tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v if len(v) == n else (v[0],) * n


def _same_pads(kernel: Sequence[int], dilation: Sequence[int]) -> List[Tuple[int, int]]:
    """'same' padding per dim: total d*(k-1), the odd extra element on the right."""
    out = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        out.append((total // 2, total - total // 2))
    return out


def _flat_pad(pairs: Sequence[Tuple[int, int]]) -> List[int]:
    """Per-dim (left, right) pairs, first dim first, as F.pad's list (last dim first)."""
    flat: List[int] = []
    for left, right in reversed(list(pairs)):
        flat += [left, right]
    return flat


def _batched(op: str, input: Tensor, n: int) -> Tuple[Tensor, bool]:
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    if input.ndim != n + 2:
        raise RuntimeError(f"{op}: Expected {n + 1}D (unbatched) or {n + 2}D (batched) input, but got input of size: {list(input.shape)}")
    return input, False


@op_entry("conv_transpose2d")
def _conv_transpose2d(x: Tensor, weight: Tensor, bias: Optional[Tensor], s: Tuple[int, ...], p: Tuple[int, ...], op: Tuple[int, ...], groups: int, d: Tuple[int, ...]) -> Tensor:
    """The 2-D kernel, except where output_padding reaches the stride (PyTorch allows it while
    below the dilation, the kernel does not): there the uncropped result is sliced instead."""
    s, p, op, d = (tuple(_ntuple(v, 2)) for v in (s, p, op, d))
    if all(op[i] < s[i] for i in range(2)):
        return K.conv_transpose2d(x, weight, bias, s, p, op, groups, d)
    full = K.conv_transpose2d(x, weight, None, s, (0, 0), (0, 0), groups, d)
    # Output j reads uncropped position j + p; past the uncropped end lies only the bias.
    extra = [max(0, op[i] - p[i]) for i in range(2)]
    if any(extra):
        full = _pad(full, [0, extra[1], 0, extra[0]])
    h, w = full.shape[-2] - extra[0] - 2 * p[0] + op[0], full.shape[-1] - extra[1] - 2 * p[1] + op[1]
    out = full.narrow(-2, p[0], h).narrow(-1, p[1], w)
    return out + bias.reshape(-1, 1, 1) if bias is not None else out


def _check_conv(op: str, input: Tensor, weight: Tensor, groups: int, n: int, transposed: bool) -> None:
    """PyTorch's rank and channel-count errors for the functional convolutions."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input of size: {list(input.shape)}")
    if weight.ndim != n + 2:
        raise RuntimeError(f"{op}: expected {n + 2}-dimensional weight, but got weight of size {list(weight.shape)}")
    if not transposed and weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of size {list(weight.shape)} instead")
    shape = list(input.shape) if input.ndim == n + 2 else [1] + list(input.shape)
    expected = weight.shape[0] if transposed else weight.shape[1] * groups
    if shape[1] != expected:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, weight of size {list(weight.shape)}, expected input{shape} to have {expected} channels, but got {shape[1]} channels instead")


def _integer_conv(fn: Any, input: Tensor, weight: Tensor, bias: Optional[Tensor], *args: Any) -> Optional[Tensor]:
    """PyTorch convolves integer tensors on the CPU: computed in float64 (exact while the sums
    stay below 2**53) and cast back; None for floating inputs."""
    if input.is_floating_point() or input.is_complex():
        return None
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and bias type ({bias.dtype}) should be the same")
    if input.dtype == _core.bool:
        # PyTorch's CPU kernels take every integer type but bool.
        kernel = "compute_columns3d" if fn is conv3d else "slow_conv2d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if weight.dtype != input.dtype or (bias is not None and bias.dtype != input.dtype):
        other = weight.dtype if weight.dtype != input.dtype else bias.dtype  # type: ignore[union-attr]
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({other}) should be the same")
    f64 = _core.float64
    out = fn(input.to(f64), weight.to(f64), None if bias is None else bias.to(f64), *args)
    return out.to(input.dtype)


def _cpu_type_name(dtype: Any) -> str:
    """PyTorch's legacy CPU type name of a dtype, as its convolution messages print it."""
    return f"CPU{scalar_type_name(dtype)}Type"


def _empty_conv(input: Tensor, weight: Tensor, bias: Optional[Tensor], n: int, stride: Any, padding: Any, dilation: Any) -> Optional[Tensor]:
    """PyTorch's result for an input with no samples or no channels (None otherwise): no
    kernel runs, so integer and mixed dtypes pass; the output shape is checked and computed as
    usual except that a channel-less input gives a channel-less output. Its dtype is that of
    input * weight: with no channels both promote; with no samples the weight counts as a
    scalar (only a higher category, e.g. float over int, wins)."""
    x = input if input.ndim == n + 2 else input.unsqueeze(0)
    if x.shape[0] != 0 and x.shape[1] != 0:
        return None
    if input.is_complex() and weight.dtype != input.dtype:
        # PyTorch's complex convolution checks the dtypes before it looks at the sizes.
        raise RuntimeError(f"Input type ({_cpu_type_name(input.dtype)}) and weight type ({_cpu_type_name(weight.dtype)}) should be the same")
    s, d = _ntuple(stride, n), _ntuple(dilation, n)
    if any(v <= 0 for v in s + d):
        raise RuntimeError(f"conv{n}d: non-positive stride or dilation is not supported (stride={list(s)}, dilation={list(d)})")
    k = tuple(weight.shape[2:])
    spatial = tuple(x.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        p = (0,) * n
    else:
        p = _ntuple(padding, n)
    padded = tuple(spatial[i] + 2 * p[i] for i in range(n))
    extent = tuple(d[i] * (k[i] - 1) + 1 for i in range(n))
    if any(padded[i] < extent[i] for i in range(n)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: ({' x '.join(map(str, extent))}). "
            "Kernel size can't be greater than actual input size"
        )
    if bias is not None:
        if bias.ndim != 1 or bias.shape[0] != weight.shape[0]:
            raise RuntimeError(
                f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with {weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead"
            )
        if bias.dtype != input.dtype:
            raise RuntimeError(f"conv{n}d: Input type ({input.dtype}) and bias type ({bias.dtype}) should be the same")
    if padding == "same":
        outs = spatial
    else:
        outs = tuple((padded[i] - extent[i]) // s[i] + 1 for i in range(n))
    if x.shape[1] != 0 and 0 in k:
        # PyTorch's no-sample path with a kernel of zero size fails reading the kernel.
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    if x.shape[1] == 0:
        dtype, channels = _core.promote_types(input.dtype, weight.dtype), 0
    else:
        dtype, channels = _core.result_type(input, _core.zeros((), dtype=weight.dtype)), weight.shape[0]
    out = _core.zeros((x.shape[0], channels) + outs, dtype=dtype)
    # The output is empty; it still hangs off the graph (zero gradients), as PyTorch's does.
    for t in (input, weight, bias):
        if t is not None and t.requires_grad:
            out = out + t.sum().to(dtype) * 0
    return out if input.ndim == n + 2 else out.squeeze(0)


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Union[str, Any] = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution over [N, C, L] (or [C, L]) inputs; ``padding`` may be 'same' or 'valid'."""
    _check_conv("conv1d", input, weight, groups, 1, False)
    empty = _empty_conv(input, weight, bias, 1, stride, padding, dilation)
    if empty is not None:
        return empty
    as_int = _integer_conv(conv1d, input, weight, bias, stride, padding, dilation, groups)
    if as_int is not None:
        return as_int
    return K.conv1d(input, weight, bias, stride, padding if isinstance(padding, str) else _ntuple(padding, 1)[0], dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Union[str, Any] = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution over [N, C, H, W] (or [C, H, W]) inputs; ``padding`` may be 'same' or 'valid'."""
    _check_conv("conv2d", input, weight, groups, 2, False)
    empty = _empty_conv(input, weight, bias, 2, stride, padding, dilation)
    if empty is not None:
        return empty
    as_int = _integer_conv(conv2d, input, weight, bias, stride, padding, dilation, groups)
    if as_int is not None:
        return as_int
    return K.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 2-D convolution over [N, C, H, W] (or [C, H, W]) inputs."""
    _check_conv("conv_transpose2d", input, weight, groups, 2, True)
    return _conv_transpose2d(input, weight, bias, _ntuple(stride, 2), _ntuple(padding, 2), _ntuple(output_padding, 2), groups, _ntuple(dilation, 2))


@op_entry("conv3d")
def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Union[str, Any] = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution over [N, C, D, H, W] (or [C, D, H, W]) inputs."""
    _check_conv("conv3d", input, weight, groups, 3, False)
    empty = _empty_conv(input, weight, bias, 3, stride, padding, dilation)
    if empty is not None:
        return empty
    as_int = _integer_conv(conv3d, input, weight, bias, stride, padding, dilation, groups)
    if as_int is not None:
        return as_int
    x, unbatched = _batched("conv3d", input, 3)
    if weight.ndim != 5:
        raise RuntimeError(f"conv3d: Expected 5-dimensional weight, but got weight of size {list(weight.shape)}")
    s, d = _ntuple(stride, 3), _ntuple(dilation, 3)
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if padding == "same" and any(v != 1 for v in s):
            raise ValueError("padding='same' is not supported for strided convolutions")
        pairs = _same_pads(k, d) if padding == "same" else [(0, 0)] * 3
        x = _pad(x, _flat_pad(pairs))
        p: Tuple[int, ...] = (0, 0, 0)
    else:
        p = _ntuple(padding, 3)
    if p[0]:
        x = _pad(x, [0, 0, 0, 0, p[0], p[0]])
    n, c, depth, h, w = x.shape
    if c != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {c} channels instead"
        )
    od = (depth - d[0] * (k[0] - 1) - 1) // s[0] + 1
    if od <= 0:
        raise RuntimeError(f"conv3d: Calculated output depth {od} is too small for input of size {list(input.shape)} and kernel {list(k)}")
    out = None
    for j in range(k[0]):
        start = j * d[0]
        xs = x[:, :, start : start + (od - 1) * s[0] + 1 : s[0]]
        xs = xs.permute(0, 2, 1, 3, 4).reshape(n * od, c, h, w)
        y = K.conv2d(xs, weight[:, :, j].contiguous(), None, s[1:], p[1:], d[1:], groups)
        out = y if out is None else out + y
    assert out is not None
    out = out.reshape(n, od, out.shape[1], out.shape[2], out.shape[3]).permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


@op_entry("conv_transpose1d")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 1-D convolution over [N, C, L] (or [C, L]) inputs."""
    _check_conv("conv_transpose1d", input, weight, groups, 1, True)
    x, unbatched = _batched("conv_transpose1d", input, 1)
    # A height-1 image: stride and dilation 1, no padding along the height.
    s, p, op, d = ((fill, _ntuple(v, 1)[0]) for fill, v in ((1, stride), (0, padding), (0, output_padding), (1, dilation)))
    out = _conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, s, p, op, groups, d).squeeze(2)
    return out.squeeze(0) if unbatched else out


@op_entry("conv_transpose3d")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 3-D convolution over [N, C, D, H, W] (or [C, D, H, W]) inputs."""
    _check_conv("conv_transpose3d", input, weight, groups, 3, True)
    x, unbatched = _batched("conv_transpose3d", input, 3)
    s, p, op, d = (_ntuple(v, 3) for v in (stride, padding, output_padding, dilation))
    n, c, depth, h, w = x.shape
    kd = weight.shape[2]
    full = (depth - 1) * s[0] + d[0] * (kd - 1) + 1 + op[0]
    planes = x.permute(0, 2, 1, 3, 4).reshape(n * depth, c, h, w)
    out = None
    for j in range(kd):
        y = _conv_transpose2d(planes, weight[:, :, j].contiguous(), None, s[1:], p[1:], op[1:], groups, d[1:])
        y = y.reshape(n, depth, y.shape[1], y.shape[2], y.shape[3])
        if s[0] > 1:
            # Input plane i lands on output plane i*stride (+ j*dilation): interleave zero planes.
            zeros = _core.zeros(y.shape, dtype=y.dtype)
            y = _core.stack([y] + [zeros] * (s[0] - 1), 2).reshape(n, depth * s[0], y.shape[2], y.shape[3], y.shape[4])
            y = y.narrow(1, 0, (depth - 1) * s[0] + 1)
        front = j * d[0]
        y = _pad(y, [0, 0, 0, 0, 0, 0, front, full - front - y.shape[1]])
        out = y if out is None else out + y
    assert out is not None
    out = out.narrow(1, p[0], full - 2 * p[0]).permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


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
        *,
        _output_padding: Any = 0,
    ) -> None:
        # _output_padding: only the transposed convolutions set it (Conv1d/2d/3d take no
        # output_padding argument, as in PyTorch).
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.dilation = _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.output_padding = _ntuple(_output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # The F.pad list for the non-zero padding modes (last dim first, as F.pad wants it).
        if padding == "same":
            pairs = _same_pads(self.kernel_size, self.dilation)
        elif padding == "valid":
            pairs = [(0, 0)] * n
        else:
            pairs = [(p, p) for p in self.padding]
        self._reversed_padding_repeated_twice = _flat_pad(pairs)
        dt = dtype or _core.get_default_dtype()
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(_core.empty(tuple(shape), dtype=dt))
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
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _check_input(self, input: Tensor) -> None:
        """PyTorch's messages for a wrong rank, channel count or too small an input."""
        n = self._n
        op = f"conv_transpose{n}d" if self.transposed else f"conv{n}d"
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input of size: {list(input.shape)}")
        shape = list(input.shape) if input.ndim == n + 2 else [1] + list(input.shape)
        # From the weight, not in_channels: a lazy conv loaded from a checkpoint keeps in_channels 0.
        expected = self.weight.shape[0] if self.transposed else self.weight.shape[1] * self.groups
        if shape[1] != expected:
            given = "transposed=1" if self.transposed else f"groups={self.groups}"
            raise RuntimeError(
                f"Given {given}, weight of size {list(self.weight.shape)}, expected input{shape} to have {expected} channels, but got {shape[1]} channels instead"
            )
        if self.transposed:
            return
        pads = [0] * n if self.padding == "valid" else ([sum(p) for p in _same_pads(self.kernel_size, self.dilation)] if self.padding == "same" else [2 * p for p in self.padding])
        padded = [shape[2 + i] + pads[i] for i in range(n)]
        kernel = [(self.kernel_size[i] - 1) * self.dilation[i] + 1 for i in range(n)]
        if any(padded[i] < kernel[i] for i in range(n)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
            )

    def _padded(self, input: Tensor) -> Tuple[Tensor, Any]:
        """The input and the padding to give the kernel: non-zero modes pad with F.pad first."""
        self._check_input(input)
        if self.padding_mode == "zeros":
            return input, self.padding
        return _pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0


class Conv1d(_ConvNd):
    """1-D convolution over [N, C_in, L] inputs; weight [C_out, C_in/groups, k]."""

    _n = 1

    def forward(self, input: Tensor) -> Tensor:
        x, p = self._padded(input)
        p = p if isinstance(p, str) else _ntuple(p, 1)[0]
        return K.conv1d(x, self.weight, self.bias, self.stride, p, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over [N, C_in, H, W] inputs; weight [C_out, C_in/groups, kh, kw].

    >>> import ferrotorch as torch
    >>> torch.nn.Conv2d(1, 4, 3, padding=1)(torch.zeros(2, 1, 8, 8)).shape
    torch.Size([2, 4, 8, 8])
    """

    def forward(self, input: Tensor) -> Tensor:
        x, p = self._padded(input)
        return K.conv2d(x, self.weight, self.bias, self.stride, p, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over [N, C_in, D, H, W] inputs; weight [C_out, C_in/groups, kd, kh, kw]."""

    _n = 3

    def forward(self, input: Tensor) -> Tensor:
        x, p = self._padded(input)
        return conv3d(x, self.weight, self.bias, self.stride, p, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype, _output_padding=output_padding)

    def _check_transposed(self, input: Tensor, op: Sequence[int]) -> None:
        """PyTorch's checks: output_padding below the stride or the dilation; a non-empty output."""
        n = self._n
        names = ["depth", "height", "width"][3 - n :] if n > 1 else ["height", "width"]
        ops = list(op) if n > 1 else [0] + list(op)
        strides = list(self.stride) if n > 1 else [1] + list(self.stride)
        dils = list(self.dilation) if n > 1 else [1] + list(self.dilation)
        if any(o >= st and o >= dl for o, st, dl in zip(ops, strides, dils)):
            parts = [f"{kind}_{nm}: {v}" for kind, vals in (("output_padding", ops), ("stride", strides), ("dilation", dils)) for nm, v in zip(names, vals)]
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {' '.join(parts)}")
        spatial = list(input.shape[input.ndim - n :])
        outs = [(spatial[i] - 1) * self.stride[i] - 2 * self.padding[i] + self.dilation[i] * (self.kernel_size[i] - 1) + op[i] + 1 for i in range(n)]
        if any(o <= 0 for o in outs):
            shown_in, shown_out = (spatial, outs) if n > 1 else ([1] + spatial, [1] + outs)
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, shown_in))}). Calculated output size per channel: ({' x '.join(map(str, shown_out))}). Output size is too small")

    def _output_padding(self, input: Tensor, output_size: Optional[Sequence[int]]) -> Tuple[int, ...]:
        """output_padding, or the one that gives ``output_size`` (which may include N and C)."""
        n = self._n
        if output_size is None:
            return self.output_padding
        lead = 2 if input.ndim == n + 2 else 1
        size = [int(v) for v in output_size]
        if len(size) == n + lead:
            size = size[lead:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or {n + lead} elements (got {len(size)})")
        mins = [(input.shape[lead + i] - 1) * self.stride[i] - 2 * self.padding[i] + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(n)]
        maxs = [mins[i] + self.stride[i] - 1 for i in range(n)]
        for i in range(n):
            if not mins[i] <= size[i] <= maxs[i]:
                shown = output_size[len(output_size) - n :] if len(output_size) == n + lead else output_size
                raise ValueError(f"requested an output size of {shown}, but valid sizes range from {mins} to {maxs} (for an input of {input.shape[lead:]})")
        return tuple(size[i] - mins[i] for i in range(n))


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution; weight [C_in, C_out/groups, k]."""

    _n = 1

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        self._check_input(input)
        op = self._output_padding(input, output_size)
        self._check_transposed(input, op)
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight [C_in, C_out/groups, kh, kw]."""

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        self._check_input(input)
        op = self._output_padding(input, output_size)
        self._check_transposed(input, op)
        return _conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; weight [C_in, C_out/groups, kd, kh, kw]."""

    _n = 3

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        self._check_input(input)
        op = self._output_padding(input, output_size)
        self._check_transposed(input, op)
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels from the first input's channel dim; then the module becomes the eager class."""

    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: Tuple[int, ...]
    _n: int

    def _lazy_init(self, out_channels: int, bias: bool, dtype: Any) -> None:
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def _get_in_channels(self, input: Tensor) -> int:
        n = self._n
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.ndim == n + 2 else input.shape[0]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Gives the weight and bias their shapes from ``input``, initialized as the eager class's."""
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size)
        with no_grad():
            self._materialize("weight", shape)
            if self._parameters.get("bias") is not None:
                self._materialize("bias", (self.out_channels,))
            self.reset_parameters()


def _lazy_conv(n: int, eager: Any) -> Any:
    """LazyConv{n}d: Conv{n}d's arguments without in_channels."""

    class LazyConv(_LazyConvXdMixin, eager):  # type: ignore[misc, valid-type]
        cls_to_become = eager

        def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Union[str, Any] = 0, dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
            eager.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
            self._lazy_init(out_channels, bias, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = f"LazyConv{n}d"
    LazyConv.__doc__ = f"A Conv{n}d whose in_channels comes from its first input (then it becomes a Conv{n}d)."
    return LazyConv


def _lazy_conv_transpose(n: int, eager: Any) -> Any:
    """LazyConvTranspose{n}d: ConvTranspose{n}d's arguments without in_channels."""

    class LazyConvTranspose(_LazyConvXdMixin, eager):  # type: ignore[misc, valid-type]
        cls_to_become = eager

        def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
            eager.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode, device, dtype)
            self._lazy_init(out_channels, bias, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = f"LazyConvTranspose{n}d"
    LazyConvTranspose.__doc__ = f"A ConvTranspose{n}d whose in_channels comes from its first input (then it becomes a ConvTranspose{n}d)."
    return LazyConvTranspose


LazyConv1d = _lazy_conv(1, Conv1d)
LazyConv2d = _lazy_conv(2, Conv2d)
LazyConv3d = _lazy_conv(3, Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(1, ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(2, ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(3, ConvTranspose3d)

"""Functional convolution and pooling over the Rust kernels (unfold/fold, conv, max pool).

``nn.functional`` re-exports these; arguments follow PyTorch (ints or pairs, ``padding``
may be ``'same'`` or ``'valid'`` for convolutions).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple, Union

from . import _core
from ._op_entry import op_entry

Tensor = _core.Tensor
IntOrPair = Union[int, Sequence[int]]


def _pair(v: IntOrPair, name: str = "argument") -> Tuple[int, int]:
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
    return v  # type: ignore[return-value]


def _check_nonneg(op: str, **vals: Tuple[int, ...]) -> None:
    for name, v in vals.items():
        if any(x < 0 for x in v):
            raise RuntimeError(f"{op}: negative {name} is not supported, got {v}")


def _same_padding(op: str, input: Tensor, k: Tuple[int, int], s: Tuple[int, int], d: Tuple[int, int]) -> Tuple[Tensor, Tuple[int, int]]:
    """'same' padding: total d*(k-1) per dim; an odd total puts the extra element on the right."""
    if s != (1, 1):
        raise ValueError(f"{op}: padding='same' is not supported for strided convolutions")
    total = [d[i] * (k[i] - 1) for i in range(2)]
    left = [t // 2 for t in total]
    if all(t % 2 == 0 for t in total):
        return input, (left[0], left[1])
    # Pad the odd extra row/column on the right with zeros, then pad symmetrically.
    extra_h, extra_w = total[0] % 2, total[1] % 2
    if extra_h:
        input = _cat_zeros(input, 2, extra_h)
    if extra_w:
        input = _cat_zeros(input, 3, extra_w)
    return input, (left[0], left[1])


def _cat_zeros(x: Tensor, dim: int, n: int) -> Tensor:
    """Appends ``n`` zero slices along ``dim`` (right/bottom padding)."""
    import ferrotorch

    shape = list(x.shape)
    shape[dim] = n
    return ferrotorch.cat([x, _core.zeros(*shape, dtype=x.dtype)], dim)


@op_entry("conv2d")
def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrPair = 1, padding: Union[IntOrPair, str] = 0, dilation: IntOrPair = 1, groups: int = 1) -> Tensor:
    """2-D convolution over [N, C, H, W] (or unbatched [C, H, W]) inputs."""
    s, d = _pair(stride, "stride"), _pair(dilation, "dilation")
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    if isinstance(padding, str):
        if padding == "valid":
            p = (0, 0)
        elif padding == "same":
            input, p = _same_padding("conv2d", input, (weight.shape[2], weight.shape[3]), s, d)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    else:
        p = _pair(padding, "padding")
    _check_nonneg("conv2d", stride=s, padding=p, dilation=d)
    if input.is_complex() and input.dtype == weight.dtype and (bias is None or bias.dtype == input.dtype):
        out = _complex_conv2d(input, weight, bias, s, p, d, groups)
    else:
        out = _core._conv2d(input, weight, bias, s, p, d, groups)
    return out.squeeze(0) if unbatched else out


def _complex_conv2d(x: Tensor, w: Tensor, bias: Optional[Tensor], s: Any, p: Any, d: Any, groups: int) -> Tensor:
    """A complex convolution from four real ones: (xr + i xi) * (wr + i wi)."""
    import ferrotorch

    def conv(a: Tensor, k: Tensor) -> Tensor:
        return _core._conv2d(a, k, None, s, p, d, groups)

    xr, xi, wr, wi = x.real, x.imag, w.real, w.imag
    out = ferrotorch.complex(conv(xr, wr) - conv(xi, wi), conv(xr, wi) + conv(xi, wr))
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


@op_entry("conv1d")
def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrPair = 1, padding: Union[IntOrPair, str] = 0, dilation: IntOrPair = 1, groups: int = 1) -> Tensor:
    """1-D convolution over [N, C, L] (or [C, L]) inputs, as a 2-D convolution of height 1."""
    unbatched = input.ndim == 2
    if unbatched:
        input = input.unsqueeze(0)
    if input.ndim != 3 or weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected 3-D input and weight, got {list(input.shape)} and {list(weight.shape)}")
    pad: Any = padding if isinstance(padding, str) else (0, _pair(padding)[0])
    out = conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, _pair(stride)[0]), pad, (1, _pair(dilation)[0]), groups)
    out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


@op_entry("conv_transpose2d")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrPair = 1, padding: IntOrPair = 0, output_padding: IntOrPair = 0, groups: int = 1, dilation: IntOrPair = 1) -> Tensor:
    """Transposed 2-D convolution (the gradient of conv2d with respect to its input)."""
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    out = _core._conv_transpose2d(input, weight, bias, _pair(stride), _pair(padding), _pair(output_padding), groups, _pair(dilation))
    return out.squeeze(0) if unbatched else out


def unfold(input: Tensor, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0, stride: IntOrPair = 1) -> Tensor:
    """Extracts sliding local blocks: [N, C, H, W] -> [N, C*kh*kw, L]."""
    return _core._unfold(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input: Tensor, output_size: IntOrPair, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0, stride: IntOrPair = 1) -> Tensor:
    """Sums sliding local blocks back into an image: [N, C*kh*kw, L] -> [N, C, H, W]."""
    return _core._fold(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling; ``stride`` defaults to ``kernel_size``."""
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(stride, "stride")
    values, indices = _core._max_pool2d(input, k, s, _pair(padding), _pair(dilation), ceil_mode)
    return (values, indices) if return_indices else values


def max_pool1d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over [N, C, L] (or [C, L])."""
    k = _pair(kernel_size)[0]
    s = k if stride is None else _pair(stride)[0]
    v, i = _core._max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _pair(padding)[0]), (1, _pair(dilation)[0]), ceil_mode)
    v, i = v.squeeze(-2), i.squeeze(-2)
    return (v, i) if return_indices else v


def _pool_out(size: int, k: int, s: int, p: int, ceil_mode: bool) -> int:
    num = size + 2 * p - k
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def avg_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """2-D average pooling built on unfold (so its gradient is fold)."""
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    p = _pair(padding, "padding")
    for i in range(2):
        if p[i] * 2 > k[i]:
            raise RuntimeError(f"avg_pool2d: pad should be at most half of kernel size, but got pad={p[i]} and kernel_size={k[i]}")
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    if input.ndim != 4:
        raise RuntimeError(f"avg_pool2d: Expected 3D or 4D input tensor, got shape {list(input.shape)}")
    if input.device.type != "cpu" and input.is_floating_point():
        # One kernel each way on the device, with the divisor rules of the composition below.
        out = _core._avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override or None)
        return out.squeeze(0) if unbatched else out
    n, c, h, w = input.shape
    oh, ow = _pool_out(h, k[0], s[0], p[0], ceil_mode), _pool_out(w, k[1], s[1], p[1], ceil_mode)
    if not input.is_floating_point() and input.dtype != _core.int64:
        # After the size checks, as PyTorch's kernel dispatch (floats and int64 only).
        names = {"int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
        raise NotImplementedError(f'"avg_pool2d" not implemented for \'{names[str(input.dtype).split(".")[-1]]}\'')
    # Extra zero padding on the bottom/right lets the last ceil_mode window exist.
    eh = max(0, (oh - 1) * s[0] + k[0] - h - 2 * p[0])
    ew = max(0, (ow - 1) * s[1] + k[1] - w - 2 * p[1])
    x = input
    if eh:
        x = _cat_zeros(x, 2, eh)
    if ew:
        x = _cat_zeros(x, 3, ew)
    cols = unfold(x.reshape(n * c, 1, h + eh, w + ew), k, 1, p, s)  # [N*C, kh*kw, L]
    total = cols.sum(1)
    if divisor_override:
        out = total / divisor_override
    elif count_include_pad and not (eh or ew):
        out = total / (k[0] * k[1])
    else:
        ones = _core.ones(1, 1, h, w, dtype=input.dtype)
        if count_include_pad:
            # Padding counts, the ceil_mode overhang does not.
            ones = _core.ones(1, 1, h + 2 * p[0], w + 2 * p[1], dtype=input.dtype)
            if eh or ew:
                ones = _cat_zeros(ones, 2, eh) if eh else ones
                ones = _cat_zeros(ones, 3, ew) if ew else ones
            counts = unfold(ones, k, 1, 0, s).sum(1)
        else:
            if eh:
                ones = _cat_zeros(ones, 2, eh)
            if ew:
                ones = _cat_zeros(ones, 3, ew)
            counts = unfold(ones, k, 1, p, s).sum(1)
        out = total / counts
    out = out.reshape(n, c, oh, ow)
    return out.squeeze(0) if unbatched else out


def avg_pool1d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over [N, C, L] (or [C, L])."""
    k = _pair(kernel_size)[0]
    s = k if stride is None else _pair(stride)[0]
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _pair(padding)[0]), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _adaptive_bounds(size: int, out: int) -> list:
    return [(math.floor(i * size / out), math.ceil((i + 1) * size / out)) for i in range(out)]


def adaptive_avg_pool2d(input: Tensor, output_size: IntOrPair) -> Tensor:
    """Averages over adaptive windows so that the output has ``output_size`` (None keeps a dim)."""
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    oh = input.shape[-2] if output_size[0] is None else output_size[0]
    ow = input.shape[-1] if output_size[1] is None else output_size[1]
    h, w = input.shape[-2], input.shape[-1]
    if h % oh == 0 and w % ow == 0:
        return avg_pool2d(input, (h // oh, w // ow), (h // oh, w // ow))
    import ferrotorch

    rows = []
    for r0, r1 in _adaptive_bounds(h, oh):
        cols = []
        for c0, c1 in _adaptive_bounds(w, ow):
            cols.append(input.narrow(-2, r0, r1 - r0).narrow(-1, c0, c1 - c0).mean((-2, -1)))
        rows.append(ferrotorch.stack(cols, -1))
    return ferrotorch.stack(rows, -2)


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrPair) -> Tensor:
    """1-D adaptive average pooling over [N, C, L] (or [C, L])."""
    o = _pair(output_size)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def _check_affine_shape(what: str, t: Optional[Tensor], shape: Tuple[int, ...]) -> None:
    if t is not None and tuple(t.shape) != shape:
        raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got {what} of shape {list(t.shape)} and normalized_shape = {list(shape)}")


def _in_input_dtype(input: Tensor, y: Tensor) -> Tensor:
    """A float16/bfloat16 input normalized with float32 parameters gives an output of the input's
    dtype (PyTorch's mixed-precision rule for the norm layers), not the promoted float32."""
    if y.dtype != input.dtype and input.dtype in (_core.float16, _core.bfloat16):
        return y.to(input.dtype)
    return y


def _channel_affine(input: Tensor, y: Tensor, weight: Optional[Tensor], bias: Optional[Tensor]) -> Tensor:
    """The per-channel scale and shift of the [N, C, *] norm layers (batch, group, instance),
    in the input's dtype."""
    shape = [input.shape[1]] + [1] * (input.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return _in_input_dtype(input, y)


def _normalize_by_running_stats(input: Tensor, running_mean: Tensor, running_var: Tensor, eps: float) -> Tensor:
    """(x - running_mean) / sqrt(running_var + eps), the running estimates broadcast per channel."""
    shape = [input.shape[1]] + [1] * (input.ndim - 2)
    return (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()


def _unbiased_var(rstd: Tensor, eps: float, count: int) -> Tensor:
    """The unbiased variance behind a detached 1/sqrt(var + eps) over ``count`` elements."""
    return (1.0 / (rstd.detach() * rstd.detach()) - eps) * (count / (count - 1))


@op_entry("layer_norm")
def layer_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalizes over the trailing ``normalized_shape`` dims, then scales and shifts."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    _check_affine_shape("weight", weight, shape)
    _check_affine_shape("bias", bias, shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        # PyTorch's text, no space before the size included.
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    y = _core._normalize_last(input, len(shape), eps)[0]
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return _in_input_dtype(input, y)


@op_entry("group_norm")
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalizes each group of channels of [N, C, *] inputs."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of shape {list(input.shape)} and num_groups={num_groups}")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {what} to be a vector of size equal to the number of channels in input, but got {what} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    per_group = (c // num_groups) * math.prod(input.shape[2:])
    y = _core._normalize_last(input.reshape(n, num_groups, per_group), 1, eps)[0].reshape(input.shape)
    return _channel_affine(input, y, weight, bias)


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor], weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization over [N, C, *]: batch statistics in training (updating the running
    estimates in place, with the unbiased variance), running statistics otherwise."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {input.ndim}D input)")
    c = input.shape[1]
    for what, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{what} should contain {c} elements not {t.numel()}")
    if training:
        count = input.numel() // c if c else 0
        if input.shape[0] * math.prod(input.shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        if count == 0:
            # An empty batch: an empty output, running statistics untouched (as PyTorch).
            y = input * 1.0
        else:
            # Channels first, everything else flattened: one row per channel.
            perm = [1, 0] + list(range(2, input.ndim))
            rows = input.permute(tuple(perm)).reshape(c, -1)
            y, mean, rstd = _core._normalize_last(rows, 1, eps)
            y = y.reshape([input.shape[1], input.shape[0]] + list(input.shape[2:])).permute(tuple(perm))
            if running_mean is not None and running_var is not None:
                with _no_grad():
                    var = _unbiased_var(rstd, eps, count)
                    running_mean.mul_(1 - momentum).add_(mean.detach().reshape(c).to(running_mean.dtype), alpha=momentum)
                    running_var.mul_(1 - momentum).add_(var.reshape(c).to(running_var.dtype), alpha=momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
        y = _normalize_by_running_stats(input, running_mean, running_var, eps)
    return _channel_affine(input, y, weight, bias)


def _no_grad() -> Any:
    from ._grad_mode import no_grad

    return no_grad()

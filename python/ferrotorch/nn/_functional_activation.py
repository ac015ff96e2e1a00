"""The functional forms of the activations (re-exported by ``nn.functional``).

Piecewise functions are built with ``where`` on the raw input so that each branch only
receives gradient where it is taken, and branches that could overflow (exp) only ever see
values from their own side of the break: no NaN or inf gradient appears where PyTorch's
is finite."""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

from .. import _core
from .._index_ops import where
from .._op_entry import op_entry
from .._type_info import scalar_type_name
from ..autograd.function import Function

Tensor = _core.Tensor

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _needs_grad(input: Tensor) -> bool:
    return bool(input.requires_grad) and _core.is_grad_enabled()




def _type_name(input: Tensor) -> str:
    """PyTorch's scalar type name of a tensor's dtype in messages: Float, Long, Bool..."""
    return scalar_type_name(input.dtype)


def _floating_only(kernel: str, input: Tensor) -> None:
    """PyTorch's NotImplementedError for an integer input to a floating-point-only activation."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(input)}\'')


def _refuse_leaf(input: Tensor) -> None:
    if _needs_grad(input) and input.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _apply(input: Tensor, compute: Callable[[Tensor], Tensor], inplace: bool) -> Tensor:
    """``compute(input)``, or written back into ``input`` when ``inplace``."""
    if not inplace:
        return compute(input)
    _refuse_leaf(input)
    # The op's node saves the clone, not the tensor that is about to be overwritten.
    source = input.clone() if _needs_grad(input) else input
    input.copy_(compute(source))
    return input


def _refuse_bool(input: Tensor, message: str) -> None:
    """PyTorch's NotImplementedError for a bool input to an op with integer kernels."""
    if input.dtype == _core.bool:
        raise NotImplementedError(message)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold``, ``input`` elsewhere."""
    _refuse_bool(input, "\"threshold_cpu\" not implemented for 'Bool'")
    return _apply(input, lambda x: where(x <= threshold, value, x), inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place :func:`threshold`."""
    _refuse_bool(input, "\"threshold_cpu\" not implemented for 'Bool'")
    return _apply(input, lambda x: where(x <= threshold, value, x), True)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)."""
    _refuse_bool(input, "Boolean inputs not supported for relu")
    if not inplace:
        return input.relu()
    _refuse_leaf(input)
    # relu_ runs through the core's in-place path, whose node keeps its own copy of the input.
    return input.relu_()


def relu_(input: Tensor) -> Tensor:
    """In-place :func:`relu`."""
    return relu(input, True)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamps to [min_val, max_val]; zero gradient outside the open interval."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    _refuse_bool(input, "Bool inputs not supported for hardtanh")
    if not input.dtype.is_floating_point:
        # Integer inputs keep their dtype, as in PyTorch.
        return _apply(input, lambda x: x.clamp(int(min_val), int(max_val)), inplace)
    return _apply(input, lambda x: _core._hardtanh(x, min_val, max_val), inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, negative_slope * x otherwise."""
    _floating_only("leaky_relu_cpu", input)
    return _apply(input, lambda x: _core._leaky_relu(x, negative_slope), inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, True)


def _exp_linear_value(x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    """scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise (fused kernel)."""
    out = _core._elu(x * input_scale if input_scale != 1.0 else x, alpha)
    if input_scale != 1.0:
        out = where(x > 0, x, out)
    return out * scale if scale != 1.0 else out


class _ExpLinear(Function):
    """ELU/CELU/SELU. The gradient is scale * alpha * input_scale * exp(input_scale * x) on the
    negative side, as PyTorch's: from result + 1 (expm1's rule) the tail would lose its digits,
    and exp only ever sees non-positive arguments, so huge inputs give no NaN."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.constants = (alpha, scale, input_scale)
        return _exp_linear_value(x, alpha, scale, input_scale)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None, None]:
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.constants
        positive = x > 0
        # Strictly negative here: PyTorch's second derivative at 0 is 0.
        negative_part = where(x < 0, x, 0.0)
        slope = (negative_part * input_scale if input_scale != 1.0 else negative_part).exp() * (alpha * scale * input_scale)
        return grad * where(positive, scale, slope), None, None, None


def _exp_linear(x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    if not _needs_grad(x):
        return _exp_linear_value(x, alpha, scale, input_scale)
    return _ExpLinear.apply(x, alpha, scale, input_scale)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    _floating_only("elu_cpu", input)
    return _apply(input, lambda x: _exp_linear(x, alpha, 1.0, 1.0), inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`elu`."""
    return elu(input, alpha, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating_only("elu_cpu", input)
    return _apply(input, lambda x: _exp_linear(x, alpha, 1.0, 1.0 / alpha), inplace)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu`."""
    return celu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al. (2017)."""
    _floating_only("elu_cpu", input)
    return _apply(input, lambda x: _exp_linear(x, _SELU_ALPHA, _SELU_SCALE, 1.0), inplace)


def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu`."""
    return selu(input, True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (``approximate='tanh'`` for the tanh form)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating_only("GeluKernelImpl", input)
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (complex inputs too, as in PyTorch)."""
    if not input.is_complex():
        _floating_only("silu_cpu", input)
    return _apply(input, lambda x: x.silu(), inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    _floating_only("mish_cpu", input)
    return _apply(input, lambda x: x * softplus(x).tanh(), inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6; gradient 1/6 strictly inside (-3, 3)."""
    _floating_only("hardsigmoid_cpu", input)
    return _apply(input, lambda x: where(x <= -3.0, 0.0, where(x >= 3.0, 1.0, x / 6.0 + 0.5)), inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    _floating_only("hardswish_cpu", input)
    # PyTorch's gradient is 0 at -3 and 1 at 3: the quadratic piece is the open interval.
    # x * 0 below -3: -0.0, and NaN at -inf (-inf * 0), as PyTorch's x * relu6(x + 3) / 6.
    # Above 3 PyTorch's x * 6 / 6 overflows to inf near the range of float32 (the compute type
    # of bfloat16 too) and float64; float16 computes in float32, where x * 6 always fits.
    return _apply(input, lambda x: where(x <= -3.0, x * 0.0, where(x < 3.0, x * (x + 3.0) / 6.0, x if x.dtype == _core.float16 else x * 6.0 / 6.0)), inplace)


@op_entry("softplus")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    _floating_only("softplus_cpu", input)
    if not _needs_grad(input):
        return _core._softplus(input, beta, threshold)
    scaled = input * beta if beta != 1.0 else input
    linear = scaled > threshold
    # exp only sees the inputs of the log branch, so huge inputs give gradient 1, not NaN.
    log_branch = where(linear, 0.0, scaled).exp().log1p()
    return where(linear, input, log_branch / beta if beta != 1.0 else log_branch)


def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + exp(-x))."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent."""
    return input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed without overflow."""
    _floating_only("log_sigmoid_cpu", input)
    if input.dtype in (_core.float16, _core.bfloat16):
        # PyTorch computes reduced-precision floats in float32 and rounds once.
        return logsigmoid(input.float()).to(input.dtype)
    # min(x, 0) - log1p(exp(-|x|)), split at 0 so exp never sees a positive argument.
    negative = input < 0
    below = where(negative, input, 0.0)
    above = where(negative, 0.0, input)
    return where(negative, below - below.exp().log1p(), -(-above).exp().log1p())


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 on [-lambd, lambd], x elsewhere."""
    _floating_only("hardshrink_cpu", input)
    inside = (input >= -lambd).logical_and(input <= lambd)
    return where(inside, 0.0, input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Moves x towards 0 by lambd; 0 on [-lambd, lambd]."""
    _floating_only("softshrink_check", input)
    if lambd < 0:
        from .. import finfo

        info = finfo(input.dtype)
        raise RuntimeError(f"lambda must be in range [0, {info.max:g}] for input dtype {_type_name(input)}, but found {lambd:g}")
    # x * 0 in the middle keeps NaN inputs NaN.
    return where(input > lambd, input - lambd, where(input < -lambd, input + lambd, input * 0.0))


@op_entry("prelu")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x for x > 0, a * x otherwise, with one slope for all or one per channel (dim 1)."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_type_name(input)} and {_type_name(weight)}")
    _floating_only("prelu_cpu", input)
    count = weight.numel()
    if count == 1:
        slope = weight.reshape(())
    else:
        # Inputs of fewer than 2 dims have no channel dim: one channel.
        channels = input.shape[1] if input.ndim >= 2 else 1
        if count != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {count} and channel size = {channels}.")
        slope = weight.reshape([count] + [1] * (input.ndim - 2))
    return where(input > 0, input, input * slope)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element when
    ``training``, and is (lower + upper) / 2 otherwise."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _floating_only("leaky_relu_cpu", input)
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def randomised(x: Tensor) -> Tensor:
        slopes = _core.empty(tuple(x.shape), dtype=x.dtype).uniform_(lower, upper)
        return where(x <= 0, x * slopes, x)

    return _apply(input, randomised, inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -input.ndim <= dim < input.ndim:
        raise IndexError(f"glu: Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {dim})")
    size = input.size(dim)
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} is size {size}")
    _floating_only("glu_cpu", input)
    half = size // 2
    a, b = input.narrow(dim, 0, half), input.narrow(dim, half, half)
    return a * b.sigmoid()

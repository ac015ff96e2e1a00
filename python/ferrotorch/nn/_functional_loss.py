"""The loss functions of ``ferrotorch.nn.functional``.

Most are compositions of differentiable ferrotorch ops, so gradients (with respect to the
input and, where PyTorch has one, the target) come from autograd; binary cross entropy and CTC
are autograd Functions with PyTorch's own gradient formulas. Error classes follow PyTorch;
messages start with the loss's name and keep PyTorch's wording after it."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Optional, Union

import ferrotorch as _ft

from .. import _core
from .._op_entry import op_entry
from . import _reduction

Tensor = _core.Tensor

_REDUCTIONS = ("none", "mean", "sum")
_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _dtype_name(dt: Any) -> str:
    """PyTorch's scalar-type name (Long, Float, ...) used in its dtype errors."""
    name = str(dt).split(".")[-1]
    return _DTYPE_NAMES.get(name, name)


def legacy_reduction(size_average: Optional[bool], reduce: Optional[bool]) -> str:
    """The reduction the deprecated ``size_average``/``reduce`` flags stand for (``reduce``
    False wins), with PyTorch's deprecation warning."""
    return _reduction.legacy_get_string(size_average, reduce)


def _resolve(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _weighted(op: str, loss: Tensor, weight: Optional[Tensor], input: Tensor, reduction: str, mean_by_weight: bool) -> Tensor:
    """Applies the optional elementwise ``weight`` of mse/l1/huber (same size as the input)."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{op}: Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({_ft.Size(target.shape)}) that is different to the input size ({_ft.Size(input.shape)}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _check_broadcast(op: str, input: Tensor, target: Tensor, names: tuple = ("input", "target")) -> None:
    """Raises the broadcasting error up front, naming the loss rather than an inner op."""
    a, b = list(input.shape), list(target.shape)
    for k in range(1, min(len(a), len(b)) + 1):
        if a[-k] != b[-k] and a[-k] != 1 and b[-k] != 1:
            dim = max(len(a), len(b)) - k
            raise RuntimeError(
                f"{op}: The size of tensor a ({a[-k]}) must match the size of tensor b ({b[-k]}) at non-singleton dimension {dim} "
                f"({names[0]} {a}, {names[1]} {b})"
            )


def _floating_only(kernel: str, input: Tensor, target: Tensor) -> None:
    """PyTorch's NotImplementedError when neither side is floating point (no integer kernel)."""
    dtype = _ft.promote_types(input.dtype, target.dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_name(dtype)}\'')


def _broadcast_promoted(input: Tensor, target: Tensor) -> "tuple[Tensor, Tensor]":
    """Both sides in their promoted dtype. PyTorch broadcasts input and target to one shape
    before these losses, so a 0-d side promotes as a dimensioned one (float32 with a 0-d
    float64 target gives float64); a bool target is no bool subtraction."""
    common = _ft.promote_types(input.dtype, target.dtype)
    return input.to(common), target.to(common)


def _check_castable_to_input(input: Tensor, target: Tensor) -> None:
    """Losses whose output has the input's dtype refuse a floating result for an integer input."""
    common = _ft.promote_types(input.dtype, target.dtype)
    if common.is_floating_point and not input.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {_dtype_name(common)} can't be cast to the desired output type {_dtype_name(input.dtype)}"
        )


def _zero(like: Tensor) -> Tensor:
    return _core.zeros((), dtype=like.dtype)


# ---- pointwise regression losses ----


def _unless_weighted(name: str, weight_position: int) -> Callable[..., Optional[str]]:
    """The op name, or None for PyTorch's weighted form (plain tensor ops, not the loss op)."""

    def op_name(*args: Any, **kwargs: Any) -> Optional[str]:
        weight = kwargs.get("weight", args[weight_position] if len(args) > weight_position else None)
        return name if weight is None else None

    return op_name


@op_entry(_unless_weighted("mse_loss", 5))
def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Squared error (x - y)^2; a ``weight`` makes the mean a weighted mean."""
    _warn_size(input, target)
    _check_broadcast("mse_loss", input, target)
    _floating_only("mse_cpu", input, target)
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _broadcast_promoted(input, target)
    d = input - target
    return _weighted("mse_loss", d * d, weight, input, reduction, mean_by_weight=True)


@op_entry(_unless_weighted("l1_loss", 5))
def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Absolute error |x - y|; a ``weight`` makes the mean a weighted mean."""
    _warn_size(input, target)
    _check_broadcast("l1_loss", input, target)
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if _core.bool in (input.dtype, target.dtype):
        # PyTorch's l1_loss subtracts before promoting: a bool side is no subtraction.
        raise NotImplementedError("l1_loss: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    input, target = _broadcast_promoted(input, target)
    return _weighted("l1_loss", (input - target).abs(), weight, input, reduction, mean_by_weight=True)


@op_entry("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (plain L1 for beta = 0)."""
    _warn_size(input, target)
    _check_broadcast("smooth_l1_loss", input, target)
    _floating_only("smooth_l1_cpu", input, target)
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _broadcast_promoted(input, target)
    d = (input - target).abs()
    if beta == 0.0:
        return _reduce(d, reduction)
    return _reduce(_ft.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


@op_entry("huber_loss")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Optional[Tensor] = None) -> Tensor:
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere."""
    _warn_size(input, target)
    _check_broadcast("huber_loss", input, target)
    _floating_only("huber_cpu", input, target)
    _check_castable_to_input(input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = _ft.sub(*_broadcast_promoted(input, target)).abs()
    loss = _ft.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if input.dtype.is_floating_point and loss.dtype != input.dtype:
        # PyTorch's result keeps the input's dtype, whatever the target's.
        loss = loss.to(input.dtype)
    return _weighted("huber_loss", loss, weight, input, reduction, mean_by_weight=False)


# ---- binary classification ----


class _BinaryCrossEntropy(_ft.autograd.Function):
    """Elementwise BCE with logs clamped at -100. Its own backward keeps the input gradient
    finite at probabilities of exactly 0 or 1 (a saturated sigmoid), as PyTorch's does, where
    differentiating the clamped logs would give NaN."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, target: Tensor) -> Tensor:
        ctx.save_for_backward(input, target)
        return -(target * input.log().clamp_min(-100.0) + (1 - target) * (1 - input).log().clamp_min(-100.0))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        input, target = ctx.saved_tensors
        d_input = grad * (input - target) / (input * (1 - input)).clamp_min(1e-12) if ctx.needs_input_grad[0] else None
        d_target = grad * ((1 - input).log() - input.log()) if ctx.needs_input_grad[1] else None
        return d_input, d_target


@op_entry("binary_cross_entropy")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)) with both logs clamped at -100, as PyTorch."""
    reduction = _resolve(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"binary_cross_entropy: Using a target size ({_ft.Size(target.shape)}) that is different to the input size "
            f"({_ft.Size(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    _check_reduction(reduction)
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {_dtype_name(target.dtype)} but expected {_dtype_name(input.dtype)}")
    if input.numel() and bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("binary_cross_entropy: all elements of input should be between 0 and 1")
    loss = _BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        _check_broadcast("binary_cross_entropy", input, weight, ("input", "weight"))
        loss = loss * weight.expand(input.shape)
    return _reduce(loss, reduction)


@op_entry("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> Tensor:
    """Sigmoid + BCE in a stable form: (1 - t) x + l softplus(-x), l = 1 + (pos_weight - 1) t;
    ``pos_weight`` broadcasts over the last (class) dim."""
    reduction = _resolve(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy_with_logits: Target size ({_ft.Size(target.shape)}) must be the same as input size ({_ft.Size(input.shape)})")
    _check_reduction(reduction)
    out_dtype = _ft.promote_types(input.dtype, target.dtype) if not target.dtype.is_floating_point else target.dtype
    if out_dtype != target.dtype:
        raise RuntimeError(f"result type {_dtype_name(out_dtype)} can't be cast to the desired output type {_dtype_name(target.dtype)}")
    for name, extra in (("weight", weight), ("pos_weight", pos_weight)):
        if extra is not None:
            _check_broadcast("binary_cross_entropy_with_logits", input, extra, ("input", name))
    sp = _core._softplus(-input, 1.0, 20.0)
    scale = 1 + (pos_weight - 1) * target if pos_weight is not None else None
    loss = (1 - target) * input + (scale * sp if scale is not None else sp)
    if weight is not None:
        loss = loss * weight
    if loss.dtype != target.dtype:
        # PyTorch's result has the target's dtype.
        loss = loss.to(target.dtype)
    return _reduce(loss, reduction)


# ---- multi-class classification ----


def _class_targets(op: str, input: Tensor, target: Tensor, weight: Optional[Tensor]) -> None:
    """PyTorch's checks on class-index targets: dtype, batch and spatial sizes, weight length."""
    if input.ndim < 1:
        raise ValueError(f"{op}: Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        if target.ndim > 1:
            raise RuntimeError(f"{op}: 0D or 1D target tensor expected, multi-target not supported (got input: {list(input.shape)}, target: {list(target.shape)})")
        if target.dtype not in (_core.int64, _core.uint8):  # before the size, as PyTorch checks
            raise RuntimeError(f"{op}: expected target dtype to be Long or Byte, but got {_dtype_name(target.dtype)}")
        if target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"{op}: For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    else:
        if target.ndim == 0 or input.shape[0] != target.shape[0]:
            got = target.shape[0] if target.ndim else 0
            raise ValueError(f"{op}: Expected input batch_size ({input.shape[0]}) to match target batch_size ({got}).")
        if input.ndim == 2 and target.ndim != 1:
            raise RuntimeError(f"{op}: 0D or 1D target tensor expected, multi-target not supported (got input: {list(input.shape)}, target: {list(target.shape)})")
        want = [input.shape[0]] + list(input.shape[2:])
        if input.ndim > 2 and list(target.shape) != want:
            raise RuntimeError(f"{op}: Expected target size {want}, got {list(target.shape)}")
    if target.dtype not in (_core.int64, _core.uint8):
        raise RuntimeError(f"{op}: expected target dtype to be Long or Byte, but got {_dtype_name(target.dtype)}")
    c = input.shape[0 if input.ndim == 1 else 1]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != c):
        raise RuntimeError(f"{op}: weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {list(weight.shape)}")


def _weighted_mean(total: Tensor, weight_sum: Tensor) -> Tensor:
    """total / weight_sum; with nothing counted (every target ignored) the value is NaN while the
    gradient stays zero, as PyTorch's."""
    if float(weight_sum.item()) == 0.0:
        return total * 0.0 + float("nan")
    return total / weight_sum


def _rows(input: Tensor, target: Tensor) -> tuple:
    """(scores [M, C], targets [M]) with classes last, one row per (sample, position)."""
    if input.ndim == 1:
        return input.unsqueeze(0), target.reshape(1)
    # The row count from the target (checked to be [N, *spatial]): -1 cannot be inferred when C is 0.
    return input.movedim(1, -1).reshape(target.numel(), input.shape[1]), target.reshape(-1)


@op_entry("nll_loss")
def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """-w[t] x[t] for log-probabilities ``input`` [N, C, *] (or [C]); the mean divides by the
    sum of the weights of the targets that are not ``ignore_index``."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    _class_targets("nll_loss", input, target, weight)
    if not input.dtype.is_floating_point:
        kernel = "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_name(input.dtype)}\'')
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(input.dtype)} but found {_dtype_name(weight.dtype)}")
    xs, ts = _rows(input, target.long())
    fused_on_host = xs.dtype in (_core.float32, _core.float64) and (weight is None or not weight.requires_grad)
    if xs.device.type != "cpu" or fused_on_host:
        # One fused kernel (device) or loop (host) each way, where the composition below would
        # be a dozen small ops.
        out = _core._nll_loss(xs, ts, weight, ignore_index, reduction)
        return out.reshape(target.shape) if reduction == "none" else out
    c = xs.shape[1]
    valid = ts != ignore_index
    bad = (valid & ((ts < 0) | (ts >= c))).nonzero()
    if bad.numel():
        raise IndexError(f"nll_loss: Target {int(ts[int(bad[0, 0].item())].item())} is out of bounds.")
    safe = _ft.where(valid, ts, 0)
    picked = -xs.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = weight.to(xs.dtype).index_select(0, safe) if weight is not None else _core.ones(ts.shape, dtype=xs.dtype, device=xs.device)
    w = w * valid.to(xs.dtype)
    loss = picked * w
    if reduction == "mean":
        return _weighted_mean(loss.sum(), w.sum())
    if reduction == "sum":
        return loss.sum()
    return loss.reshape(target.shape)


@op_entry("cross_entropy_loss")
def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """log_softmax + nll_loss for class indices, soft-label cross entropy for class
    probabilities (a float target shaped like the input); ``label_smoothing`` mixes in the
    uniform distribution."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if tuple(target.shape) == tuple(input.shape) and not target.dtype.is_floating_point:
        # A target shaped like the input is read as class probabilities (0-d inputs included).
        raise RuntimeError(f"cross_entropy: Expected floating point type for target with class probabilities, got {_dtype_name(target.dtype)}")
    if input.ndim < 1:
        raise IndexError(f"cross_entropy: Dimension out of range (expected to be in range of [-1, 0], but got 1) (input has {input.ndim} dimensions)")
    cdim = 0 if input.ndim == 1 else 1
    c = input.shape[cdim]
    if not input.dtype.is_floating_point and input.numel():
        # log_softmax passes an empty input of any dtype through; nll_loss checks the rest.
        kernel = "log_softmax_lastdim_kernel_impl" if cdim == input.ndim - 1 else "log_softmax_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_name(input.dtype)}\'')
    logp = input.log_softmax(cdim)
    if target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape):
        return _soft_cross_entropy(logp, target, weight, ignore_index, reduction, label_smoothing, cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    # The uniform part: the (weighted) sum over classes of -log p, masked like the nll term.
    xs, ts = _rows(logp, target)
    valid = ts != ignore_index
    wrow = weight.to(xs.dtype).reshape(1, c) if weight is not None else None
    smooth = -(xs * wrow if wrow is not None else xs).sum(1) * valid.to(xs.dtype)
    if reduction == "mean":
        if weight is not None:
            denom = (weight.to(xs.dtype).index_select(0, _ft.where(valid, ts, 0)) * valid.to(xs.dtype)).sum()
        else:
            denom = valid.to(xs.dtype).sum()
        smooth = _weighted_mean(smooth.sum(), denom)
    elif reduction == "sum":
        smooth = smooth.sum()
    else:
        smooth = smooth.reshape(target.shape)
    return (1 - label_smoothing) * nll + (label_smoothing / c) * smooth


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Optional[Tensor] = None, weight: Optional[Tensor] = None, reduction: str = "mean", ignore_index: Optional[int] = None, label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """Cross entropy of ``input @ linear_weight^T (+ linear_bias)``; a weight of shape
    [C, d1, ..., dK, in] gives K-dimensional logits [N, C, d1, ..., dK]. ``options`` (a
    chunking strategy in PyTorch) does not change the result and is accepted as is."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"linear_cross_entropy: expected input with dimensionality 1 or 2, got {input.ndim}")
    in_features = linear_weight.shape[-1]
    logit_shape = list(linear_weight.shape[:-1])
    flat_bias = linear_bias.reshape(-1) if linear_bias is not None else None
    logits = _core._linear(input, linear_weight.reshape(-1, in_features), flat_bias)
    logits = logits.reshape(([input.shape[0]] if input.ndim == 2 else []) + logit_shape)
    return cross_entropy(logits, target, weight=weight, ignore_index=-100 if ignore_index is None else ignore_index, reduction=reduction, label_smoothing=label_smoothing)


def _soft_cross_entropy(logp: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int, reduction: str, label_smoothing: float, cdim: int) -> Tensor:
    if ignore_index >= 0:
        raise RuntimeError("cross_entropy: ignore_index is not supported for floating point target")
    c = logp.shape[cdim]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {list(weight.shape)}")
    t = target * (1 - label_smoothing) + label_smoothing / c if label_smoothing else target
    if weight is not None:
        logp = logp * weight.to(logp.dtype).reshape([c] + [1] * (logp.ndim - cdim - 1))
    loss = -(t * logp).sum(cdim)
    if reduction == "mean":
        # The mean is over samples (and positions), not over class probabilities.
        return loss.sum() / (logp.numel() // c) if logp.numel() else loss.sum() / 0.0
    return _reduce(loss, reduction)


# ---- distributions ----


@op_entry("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Pointwise KL(target || exp(input)) for log-probabilities ``input``; ``batchmean``
    divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_broadcast("kl_div", input, target)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides only by the batch size, "
            "and aligns with the KL div math definition.'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if log_target:
        loss = target.exp() * (target - input)
    else:
        if target.dtype in (_ft.float16, _ft.bfloat16):
            # PyTorch's half xlogy is x * log(y) with log(y) rounded to the half type first
            # (c10's log of a Half is a Half); the Rust kernel keeps log(y) in float32, an
            # ulp away. t log t, 0 at t == 0 (log taken of 1 there, keeping the gradient finite).
            entropy = target * target.masked_fill(target == 0, 1).log()
        else:
            entropy = _ft.xlogy(target, target)
        loss = entropy - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim > 0 else loss.sum()
    return _reduce(loss, reduction)


@op_entry("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average: Optional[bool] = None, eps: float = 1e-8, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of a Poisson target: exp(x) - t x for a log rate (``log_input``),
    else x - t log(x + eps); ``full`` adds Stirling's approximation of log(t!) where t > 1."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_broadcast("poisson_nll_loss", input, target)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        # Computed on the raw target (as PyTorch), so a zero target has a NaN target gradient.
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + _ft.where(target > 1, stirling, _zero(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Union[Tensor, float], full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """0.5 (log var + (x - t)^2 / var) (+ 0.5 log 2 pi when ``full``). ``var`` is a float, one
    variance per element, or one per sample with one dim short of or of size 1 in the input."""
    if isinstance(var, (int, float)):
        var = float(var)
        if var < 0:
            raise ValueError("gaussian_nll_loss: var has negative entry/entries")
        var = _ft.full(tuple(input.shape), var, dtype=input.dtype)
    elif var.numel() and bool((var < 0).any()):
        raise ValueError("gaussian_nll_loss: var has negative entry/entries")
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape != ishape:
        if ishape[:-1] == vshape:
            var = var.unsqueeze(-1)
        elif not (len(ishape) == len(vshape) and sum(v for i, v in zip(ishape, vshape) if i != v) == 1):
            raise ValueError(f"gaussian_nll_loss: var is of incorrect size (var: {list(vshape)}, input: {list(ishape)})")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not valid")
    _check_broadcast("gaussian_nll_loss", input, target)
    # Clamped for stability, yet the gradient flows as if unclamped (PyTorch clamps in no_grad).
    var = var + (var.clamp_min(eps) - var).detach()
    d = input - target
    loss = 0.5 * (var.log() + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# The sequence and margin losses live in their own files; they are part of this module's API.
from ._ctc_loss import ctc_loss  # noqa: E402
from ._functional_loss_margin import (  # noqa: E402
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "legacy_reduction",
    "linear_cross_entropy",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

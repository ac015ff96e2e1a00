"""``ferrotorch.nn.functional``: functional forms of layers, activations and losses."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .. import _nn_kernels as _K
from .modules.normalization import rms_norm as rms_norm
from .modules.transformer import scaled_dot_product_attention as scaled_dot_product_attention

Tensor = _core.Tensor

conv1d = _K.conv1d
conv2d = _K.conv2d
conv_transpose2d = _K.conv_transpose2d
unfold = _K.unfold
fold = _K.fold
max_pool1d = _K.max_pool1d
max_pool2d = _K.max_pool2d
avg_pool1d = _K.avg_pool1d
avg_pool2d = _K.avg_pool2d
adaptive_avg_pool1d = _K.adaptive_avg_pool1d
adaptive_avg_pool2d = _K.adaptive_avg_pool2d
layer_norm = _K.layer_norm
group_norm = _K.group_norm
batch_norm = _K.batch_norm
interpolate = _K.interpolate
from .modules.padding import pad as pad  # noqa: E402
from .modules.conv import conv3d as conv3d, conv_transpose1d as conv_transpose1d, conv_transpose3d as conv_transpose3d  # noqa: E402

__all__ = [n for n in dir() if not n.startswith("_")]


def _inplace(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    if inplace:
        input.copy_(out)
        return input
    return out


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """x W^T + b, as one fused node (one product over all leading dims of x)."""
    return _core._linear(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """y_k = x1^T A_k x2 + b_k."""
    from .._index_ops import einsum

    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out + bias if bias is not None else out


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace(input, input.relu(), inplace)


def relu_(input: Tensor) -> Tensor:
    return relu(input, True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _inplace(input, _core._leaky_relu(input, negative_slope), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _inplace(input, _core._elu(input, alpha), inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace(input, input.silu(), inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace(input, input * softplus(input).tanh(), inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _core._softplus(input, beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    return _inplace(input, _core._hardtanh(input, min_val, max_val), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    return -softplus(-input)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Softmax over ``dim`` (fused kernel)."""
    return input.softmax(_softmax_dim(input.ndim) if dim is None else dim, dtype)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """log(softmax) over ``dim`` (fused kernel)."""
    return input.log_softmax(_softmax_dim(input.ndim) if dim is None else dim, dtype)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return softmax(-input, dim, dtype=dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes elements with probability ``p`` and scales the rest by 1/(1-p) when training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace(input, input * 0.0, inplace)
    keep = _core.empty(input.shape, dtype=input.dtype).bernoulli_(1.0 - p)
    return _inplace(input, input * keep * (1.0 / (1.0 - p)), inplace)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by integer ``input``; ``padding_idx`` rows get no gradient."""
    if input.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(f"embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {input.dtype} instead")
    w = weight
    if padding_idx is not None and weight.requires_grad:
        keep = (_core.arange(weight.shape[0]) != padding_idx % weight.shape[0]).unsqueeze(1)
        w = _core._where3(keep, weight, weight.detach())
    flat = input.reshape(-1)
    return w.index_select(0, flat).reshape(list(input.shape) + [weight.shape[1]])


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim."""
    if tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and (int(tensor.min().item()) < 0 or int(tensor.max().item()) >= num_classes):
        raise RuntimeError("one_hot: Class values must be smaller than num_classes and non-negative.")
    return (tensor.unsqueeze(-1) == _core.arange(num_classes)).long()


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    num = (x1 * x2).sum(dim)
    den = (x1.norm(2, dim) * x2.norm(2, dim)).clamp_min(eps)
    return num / den


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return (x1 - x2 + eps).norm(p, -1, keepdim)


# ---- losses ----


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_same(op: str, input: Tensor, target: Tensor) -> None:
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"{op}: Using a target size ({target.shape}) that is different to the input size ({input.shape}). This will likely lead to incorrect results due to broadcasting.",
            stacklevel=3,
        )


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    _check_same("mse_loss", input, target)
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    _check_same("l1_loss", input, target)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    d = (input - target).abs()
    if beta == 0.0:
        return _reduce(d, reduction)
    loss = _core._where3(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Optional[Tensor] = None) -> Tensor:
    d = (input - target).abs()
    loss = _core._where3(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss, reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)) with logs clamped at -100, as PyTorch."""
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. Please ensure they have the same size.")
    log_x = input.log().clamp_min(-100.0)
    log_1mx = (1 - input).log().clamp_min(-100.0)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> Tensor:
    """Sigmoid + BCE in a numerically stable form: (1 - t) x + l * softplus(-x), where
    l = 1 + (pos_weight - 1) t."""
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    sp = softplus(-input)
    if pos_weight is not None:
        lw = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + lw * sp
    else:
        loss = (1 - target) * input + sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of log-probabilities ``input`` [N, C, *] at class ``target``."""
    if input.ndim < 1:
        raise ValueError(f"nll_loss: expected input with at least 1 dimension, got {input.ndim}")
    unbatched = input.ndim == 1
    x = input.unsqueeze(0) if unbatched else input
    t = target.unsqueeze(0) if unbatched else target
    if x.shape[0] != t.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]}).")
    if t.dtype not in (_core.int64, _core.int32, _core.uint8):
        raise RuntimeError(f"nll_loss: expected target of an integer dtype (class indices), got {t.dtype}")
    c = x.shape[1]
    # Classes last, then one row per element.
    xs = x.movedim(1, -1).reshape(-1, c)
    ts = t.reshape(-1)
    valid = ts != ignore_index
    safe = _core._where3(valid, ts, 0)
    if bool((safe < 0).any()) or bool((safe >= c).any()):
        raise IndexError(f"nll_loss: Target {int(safe.max().item())} is out of bounds for {c} classes.")
    picked = -xs.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = weight.index_select(0, safe) if weight is not None else _core.ones(ts.shape, dtype=x.dtype)
    w = w * valid.to(x.dtype)
    loss = picked * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    if reduction == "none":
        return loss.reshape(t.shape).squeeze(0) if unbatched else loss.reshape(t.shape)
    return _reduce(loss, reduction)


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """log_softmax + nll_loss for class indices; soft-label cross entropy for probabilities."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = 0 if input.ndim == 1 else 1
    logp = input.log_softmax(cdim)
    c = input.shape[cdim]
    if target.dtype.is_floating_point:
        # Class probabilities.
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"cross_entropy: target of shape {list(target.shape)} must match input {list(input.shape)} for class probabilities")
        t = target * (1 - label_smoothing) + label_smoothing / c if label_smoothing else target
        wl = logp * weight.reshape([c] + [1] * (input.ndim - cdim - 1)) if weight is not None else logp
        return _reduce(-(t * wl).sum(cdim), reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    # Smoothing term: the mean over classes of -log p, with the same weights and ignore mask.
    x = logp.unsqueeze(0) if logp.ndim == 1 else logp
    t = target.unsqueeze(0) if target.ndim == 0 else target
    xs = x.movedim(1, -1).reshape(-1, c)
    valid = (t.reshape(-1) != ignore_index).to(x.dtype)
    wv = weight.reshape(1, c) if weight is not None else _core.ones(1, c, dtype=x.dtype)
    smooth = -(xs * wv).sum(1) * valid
    if reduction == "mean":
        if weight is not None:
            denom = (weight.index_select(0, _core._where3(t.reshape(-1) != ignore_index, t.reshape(-1), 0)) * valid).sum()
        else:
            denom = valid.sum()
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    else:
        smooth = smooth.reshape(target.shape)
    return (1 - label_smoothing) * nll + label_smoothing / c * smooth


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target || exp(input)) pointwise: target * (log target - input)."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = _core._where3(target > 0, target, _core.ones((), dtype=target.dtype))
        loss = _core._where3(target > 0, target * (safe.log() - input), _core.zeros((), dtype=input.dtype))
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim > 0 else loss.sum()
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1."""
    eps = 1e-12
    cos = (input1 * input2).sum(-1) / ((input1 * input1).sum(-1) * (input2 * input2).sum(-1) + eps).sqrt()
    loss = _core._where3(target == 1, 1 - cos, (cos - margin).clamp_min(0.0))
    return _reduce(loss, reduction)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "Optional", "Tensor")]

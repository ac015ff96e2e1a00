"""The torch.* functions PyTorch exposes beside ``torch.nn.functional``, with torch.*'s own
signatures (ATen's): losses take ``reduction`` as an int (0 none, 1 mean, 2 sum; any other value
reduces nothing, as ATen; left out, it is 0: PyTorch's Python binding reads ATen's default of
Mean as 0, so ``torch.kl_div(a, b)`` is unreduced), dropouts take ``(input, p, train)``, the norms take every argument
positionally (running statistics before or after the affine parameters as ATen orders them), the
``native_*`` forms also return their saved statistics. Each delegates to ferrotorch's
``nn.functional``; the grid sampling entry points come from ``nn._grid_sampling``."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from . import _core
from ._grad_mode import no_grad
from ._scalar_args import check_scalar_int
from .nn import functional as F
from .nn._grid_sampling import affine_grid_generator, grid_sampler, grid_sampler_2d, grid_sampler_3d
from .nn.modules.dropout import _dropout_impl
from .nn.modules.rnn_cell import gru_step, lstm_step, rnn_step

Tensor = _core.Tensor

_REDUCTIONS = {1: "mean", 2: "sum"}


def _reduction(reduction: int) -> str:
    """ATen's Reduction enum as nn.functional's string (values other than 1 and 2 reduce nothing)."""
    return _REDUCTIONS.get(int(reduction), "none")


# ----------------------------------------------------------------------------------------------
# Convolutions (torch.convNd is nn.functional.convNd in PyTorch)

conv1d = F.conv1d
conv2d = F.conv2d
conv3d = F.conv3d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of time-batch-channel input [T, B, C_in] with weight [K, C_in, C_out] and
    bias [C_out], zero-padded by ``pad`` in time: [T + 2 pad - K + 1, B, C_out]."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


def convolution(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int) -> Tensor:
    """ATen's generic convolution: dispatches on the weight's rank to conv{1,2,3}d or
    conv_transpose{1,2,3}d."""
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight, but got weight of size {list(weight.shape)}")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, list(stride), list(padding), list(output_padding), groups, list(dilation))
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, list(stride), list(padding), list(dilation), groups)


# ----------------------------------------------------------------------------------------------
# Dropouts: (input, p, train); the trailing-underscore forms work in place and return input.


def _check_p(p: float) -> None:
    # ATen raises RuntimeError here (nn.functional's own check is a ValueError).
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input: Tensor, p: float, train: bool, inplace: bool, feature: bool, alpha: bool) -> Tensor:
    _check_p(p)
    if feature and train and 0.0 < p < 1.0 and input.numel() and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout_impl(input, p, bool(train), inplace, 2 if feature else 0, alpha)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zeroes elements with probability ``p`` and scales the rest by 1/(1-p) when ``train``."""
    return _dropout(input, p, train, False, False, False)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``dropout``."""
    return _dropout(input, p, train, True, False, False)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout to SELU's saturation value, keeping mean and variance."""
    return _dropout(input, p, train, False, False, True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``alpha_dropout``."""
    return _dropout(input, p, train, True, False, True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels of [N, C, *] (one draw per sample and channel)."""
    return _dropout(input, p, train, False, True, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_dropout``."""
    return _dropout(input, p, train, True, True, False)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels of [N, C, *]."""
    return _dropout(input, p, train, False, True, True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_alpha_dropout``."""
    return _dropout(input, p, train, True, True, True)


def native_dropout(input: Tensor, p: float, train: Optional[bool]) -> Tuple[Tensor, Tensor]:
    """(output, bool keep mask): ``train`` None counts as True; when not training the output is
    a copy and the mask all True."""
    if train is None or train:
        if not 0.0 <= 1.0 - p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1.0 - p}")
        keep = _core.empty(list(input.shape), dtype=input.dtype).bernoulli_(1.0 - p).to(input.device)
        scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
        return input * keep * scale, keep.bool()
    return input.clone(), _core.ones(list(input.shape), dtype=_core.bool, device=input.device)


# ----------------------------------------------------------------------------------------------
# Normalizations (ATen's argument orders)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    """Normalizes over the trailing ``normalized_shape`` dims, then scales and shifts."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def _batch_and_channels(input: Tensor) -> None:
    """ATen's norms read input.size(0) and size(1) first: IndexError below 2 dims."""
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    """Normalizes each group of channels of [N, C, *]. ATen's order of checks: channels and
    spatial size non-zero, ``num_groups`` positive and dividing C, the affine shapes; an empty
    batch then returns before the dtype is looked at."""
    _batch_and_channels(input)
    hxw = 1
    for n in input.shape[2:]:
        hxw *= n
    c = input.shape[1]
    if c == 0:
        raise RuntimeError("Expected number of channels to be greater than 0, got 0")
    if hxw == 0:
        raise RuntimeError("Expected HxW to be greater than 0, got 0")
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(
                f"Expected {what} to be a vector of size equal to the number of channels in input, but got {what} of shape {list(t.shape)} and input of shape {list(input.shape)}"
            )
    if input.numel() == 0:  # an empty batch: nothing to normalize, any dtype
        return input.clone()
    if not input.is_floating_point():
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for '{_kind(input.dtype)}'")
    return F.group_norm(input, num_groups, weight, bias, eps)


def _kind(dtype: Any) -> str:
    """ATen's scalar type name (Short, Bool, ComplexFloat...)."""
    return {
        "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
        "complex64": "ComplexFloat", "complex128": "ComplexDouble",
    }.get(str(dtype).split(".")[-1], str(dtype))


def _normalize_by_stats(input: Tensor, dims: Sequence[int], eps: float) -> Tensor:
    """(x - mean) / sqrt(biased var + eps) over ``dims`` (none: each element alone); half
    types computed in float32 as PyTorch's CPU kernels do."""
    half = input.dtype in (_core.float16, _core.bfloat16)
    x = input.float() if half else input
    if dims:
        mean = x.mean(list(dims), keepdim=True)
        var = x.var(list(dims), unbiased=False, keepdim=True)
    else:
        mean, var = x, x * 0
    invstd = (var + eps).rsqrt()
    if half:
        # PyTorch keeps the saved mean and invstd in the input's dtype and normalizes with those.
        mean, invstd = mean.to(input.dtype).float(), invstd.to(input.dtype).float()
    return ((x - mean) * invstd).to(input.dtype)


def batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """Batch normalization over [N, C, *] (running statistics updated in place when training).
    Unlike nn.functional's, ATen's form accepts one value per channel when training."""
    if input.ndim == 0:
        raise RuntimeError("batch_norm: expected an input with at least 2 dims, but got a 0-d input")
    if input.numel() == 0:
        # ATen returns early for an empty input, before looking at anything else.
        return input.clone()
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must be defined in evaluation mode")
    if training and input.ndim == 1 and not input.is_contiguous() and not (input.is_floating_point() or input.is_complex()):
        # ATen's CPU kernel takes a strided input's batch mean (over no dims: all of them)
        # before it reads size(1), so the integer mean fails first.
        raise NotImplementedError(
            "batch_norm: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {_kind(input.dtype)}"
        )
    _batch_and_channels(input)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_kind(input.dtype)}'")
    if training and running_mean is None and running_var is None:
        y = _normalize_by_stats(input, [0] + list(range(2, input.ndim)), eps)
        return _affine(y, weight, bias, [1, -1] + [1] * (input.ndim - 2))
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor], running_var: Optional[Tensor], use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """Normalizes each (sample, channel) of [N, C, *] over its spatial dims. ATen's form (a
    batch norm of the input seen as [1, N*C, *]) accepts one element per channel."""
    _batch_and_channels(input)
    if input.numel() == 0:
        return input.clone()
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_kind(input.dtype)}'")
    if use_input_stats and running_mean is None and running_var is None:
        y = _normalize_by_stats(input, list(range(2, input.ndim)), eps)
        return _affine(y, weight, bias, [1, -1] + [1] * (input.ndim - 2))
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


rms_norm = F.rms_norm


def _affine(y: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], shape: Sequence[int]) -> Tensor:
    if weight is not None:
        y = y * weight.reshape(list(shape))
    if bias is not None:
        y = y + bias.reshape(list(shape))
    return y


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor], bias: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd); the statistics keep the normalized dims as size 1."""
    out = F.layer_norm(input, list(normalized_shape), weight, bias, eps)
    dims = list(range(input.ndim - len(normalized_shape), input.ndim))
    x = input.detach()
    if x.dtype in (_core.float16, _core.bfloat16):  # statistics in float32, as PyTorch's CPU kernel
        x = x.float()
    mean = x.mean(dims, keepdim=True) if dims else x * 1.0
    if x.numel() == 0:  # PyTorch's statistics of nothing: mean 0 (rstd stays NaN)
        mean = _core.zeros(tuple(mean.shape), dtype=mean.dtype, device=mean.device)
    var = x.var(dims, unbiased=False, keepdim=True) if dims else x * 0.0
    return out, mean.to(input.dtype), (var + eps).rsqrt().to(input.dtype)


def native_batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool, momentum: float, eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """(output, save_mean, save_invstd): the batch statistics per channel when training (running
    statistics updated in place), empty tensors otherwise."""
    if training:
        dims = [0] + list(range(2, input.ndim))
        x = input.detach()
        mean = x.mean(dims)
        invstd = (x.var(dims, unbiased=False) + eps).rsqrt()
    else:
        mean = invstd = _core.zeros(0, dtype=input.dtype, device=input.device)
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False), mean, invstd


def native_group_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], N: int, C: int, HxW: int, group: int, eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """(output, mean [N, group], rstd [N, group]) of ``group_norm`` on input of N x C x HxW."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements (N={N}, C={C}, HxW={HxW}), but got input of size {list(input.shape)}")
    out = F.group_norm(input, group, weight, bias, eps)
    # Unlike the other native norms' statistics, these carry gradients in PyTorch.
    x = input.reshape(N, group, -1)
    return out, x.mean(2), (x.var(2, unbiased=False) + eps).rsqrt()


# ----------------------------------------------------------------------------------------------
# Embeddings


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` [num, dim] at ``indices``; row ``padding_idx`` (if >= 0) gets no gradient."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {indices.type()} instead (while checking arguments for embedding)"
        )
    if weight.shape[0] == 0 and indices.numel() > 0:
        # ATen's index_select on an empty axis rejects any index before the range check.
        raise RuntimeError(f"embedding: index_select(): self indexing axis dim should be positive (weight {list(weight.shape)}, indices {list(indices.shape)})")
    # ATen compares indices with padding_idx: a negative or too large one never matches.
    pad = padding_idx if padding_idx is not None and 0 <= padding_idx < weight.shape[0] else None
    return F.embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False, per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False, padding_idx: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """(output, offset2bag, bag_size, max_indices) of bags of ``weight`` rows: ``mode`` 0 sum,
    1 mean, 2 max. As ATen's CPU kernel: offset2bag (the bag of each index) is empty for a sum
    over float32/half weights without padding_idx, bag_size and max_indices are zeros for sums
    (one per offset, or per bag when the weight requires grad); for means max_indices repeats bag_size; for max it is the weight row
    holding each maximum (the first one), 0 in empty bags."""
    if mode not in (0, 1, 2):
        raise RuntimeError("embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max)")
    if indices.ndim != 1:
        # ATen reads 2-D indices as one bag per row with bookkeeping outputs of its own; only
        # nn.functional.embedding_bag's 2-D form is supported.
        raise NotImplementedError(f"torch.embedding_bag: expected 1-D indices with offsets, but got indices of size {list(indices.shape)} (use nn.functional.embedding_bag for 2-D input)")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = padding_idx + weight.shape[0] if padding_idx >= -weight.shape[0] else padding_idx
    out = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, ("sum", "mean", "max")[mode], sparse, per_sample_weights, include_last_offset, padding_idx)
    with no_grad():
        flat = indices.reshape(-1)
        n = flat.shape[0]
        offs = offsets.long()
        n_off = offs.shape[0]
        nbags = n_off - 1 if include_last_offset else n_off
        pos = _core.arange(n, device=flat.device)
        # The bag of index position i: how many offsets are <= i, less one (trailing positions
        # past the last offset belong to the last bag).
        bag = ((offs.unsqueeze(0) <= pos.unsqueeze(1)).long().sum(1) - 1).clamp(0, max(nbags - 1, 0)) if n_off else pos * 0
        valid = flat != padding_idx if padding_idx is not None else _core.ones(n, dtype=_core.bool, device=flat.device)
        fast_sum = mode == 0 and padding_idx is None and weight.dtype in (_core.float32, _core.float16, _core.bfloat16)
        offset2bag = _core.zeros(0, dtype=_core.int64, device=flat.device) if fast_sum else bag
        if mode == 0:
            # One zero per offset, or per bag when the weight requires grad (ATen's two paths).
            zeros = _core.zeros(nbags if weight.requires_grad else n_off, dtype=_core.int64, device=flat.device)
            return out, offset2bag, zeros, zeros.clone()
        bag_size = _core.zeros(nbags, dtype=_core.int64, device=flat.device).index_add(0, bag[valid], _core.ones(n, dtype=_core.int64, device=flat.device)[valid])
        if mode == 1:
            return out, offset2bag, bag_size, bag_size.clone()
        # Max: the first position of each bag whose row equals the bag's maximum, per column.
        rows = weight.detach()[flat.clamp(0, max(weight.shape[0] - 1, 0))]
        hit = (rows == out.detach()[bag]) & valid.unsqueeze(1)
        first = _core._where3(hit, pos.unsqueeze(1).expand(n, weight.shape[1]), n)
        best = _core.full((nbags, weight.shape[1]), n, dtype=_core.int64, device=flat.device)
        best = best.scatter_reduce(0, bag.unsqueeze(1).expand(n, weight.shape[1]), first, "amin")
        padded = _core.cat([flat, _core.zeros(1, dtype=flat.dtype, device=flat.device)])
        max_indices = padded[best]
    return out, offset2bag, bag_size, max_indices


# ----------------------------------------------------------------------------------------------
# Distances and losses (int reductions)

bilinear = F.bilinear
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
pdist = F.pdist


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, pos_weight: Optional[Tensor] = None, reduction: int = 0) -> Tensor:
    """Sigmoid plus binary cross entropy, in one numerically stable expression. ATen's form
    broadcasts ``input`` to ``target`` (the result has target's shape and dtype, as its in-place
    steps on ``1 - target`` give) instead of requiring equal sizes."""
    log_sig = F.logsigmoid(input)  # first and in input's dtype, as PyTorch computes it
    one_minus_target = 1 - target  # before the in-place steps check shapes (a bool target fails here)
    shape = tuple(_core.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    if shape != tuple(target.shape):
        raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape {list(shape)}")
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = one_minus_target.mul_(input).sub_(log_sig)
    if weight is not None:
        loss = loss * weight
    how = _reduction(reduction)
    return loss.mean() if how == "mean" else loss.sum() if how == "sum" else loss


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """Pointwise KL divergence of log-probabilities ``input`` from ``target`` (1 = mean over
    all elements, without nn.functional's warning)."""
    if _reduction(reduction) == "mean":
        return F.kl_div(input, target, reduction="none", log_target=log_target).mean()
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0) -> Tensor:
    """max(0, -target * (input1 - input2) + margin). Unlike nn.functional's, ATen's form does not
    require the three to have the same number of dims: they broadcast."""
    loss = (target.neg() * (input1 - input2) + margin).clamp_min(0)
    how = _reduction(reduction)
    return loss.mean() if how == "mean" else loss.sum() if how == "sum" else loss


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0) -> Tensor:
    """1 - cos where target is 1, max(0, cos - margin) where it is -1."""
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2, eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) with p-norm distances."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int) -> Tensor:
    """Negative log likelihood of a Poisson target (every argument positional, as ATen)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss (lengths as tensors or int lists)."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


# ----------------------------------------------------------------------------------------------
# Shuffles, pooling, padding

pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
native_channel_shuffle = F.native_channel_shuffle
adaptive_avg_pool1d = F.adaptive_avg_pool1d

_IntList = Union[int, Sequence[int]]


def _stride(stride: Any) -> Any:
    # ATen's default stride is the empty list: the kernel size.
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input: Tensor, kernel_size: _IntList, stride: _IntList = (), padding: _IntList = 0, dilation: _IntList = 1, ceil_mode: bool = False) -> Tensor:
    """Max over sliding windows of [N, C, L] or [C, L]."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: _IntList, stride: _IntList = (), padding: _IntList = 0, dilation: _IntList = 1, ceil_mode: bool = False) -> Tensor:
    """Max over sliding windows of [N, C, H, W] or [C, H, W]."""
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: _IntList, stride: _IntList = (), padding: _IntList = 0, dilation: _IntList = 1, ceil_mode: bool = False) -> Tensor:
    """Max over sliding windows of [N, C, D, H, W] or [C, D, H, W]."""
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: _IntList, stride: _IntList = (), padding: _IntList = 0, dilation: _IntList = 1, ceil_mode: bool = False) -> Tuple[Tensor, Tensor]:
    """(values, indices along L) of ``max_pool1d``."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def avg_pool1d(input: Tensor, kernel_size: _IntList, stride: _IntList = (), padding: _IntList = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Mean over sliding windows of [N, C, L] or [C, L]."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input: Tensor, output_size: _IntList) -> Tuple[Tensor, Tensor]:
    """(values, indices): max over ``output_size`` adaptive windows of [N, C, L] or [C, L]."""
    return F.adaptive_max_pool1d(input, output_size, True)


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Union[int, float, bool] = 0) -> Tensor:
    """Pads (or crops, with negative amounts) the trailing dims with ``value``: ``pad`` lists
    (before, after) pairs from the last dim."""
    check_scalar_int(value)
    # Not through F.pad, which takes the value as a float (2**63 - 1 would overflow int64); a
    # value is only converted when something is padded.
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad length is {len(pad)} while the input has {input.ndim} dimensions.")
    from .nn.modules.padding import constant_pad_scalar

    return constant_pad_scalar(input, list(pad), value)


# ----------------------------------------------------------------------------------------------
# Recurrent cells: input [B, in]; states [B, H]; weights stacked by gate as in nn.*Cell.


def _check_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor) -> None:
    # ATen reads w_ih's sizes before it looks at the input.
    if w_ih.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if w_ih.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input.ndim != 2:
        raise RuntimeError(f"Expected 2D input (batch x feature), but got {input.ndim}D input")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    for k, h in enumerate(hx):
        if h.ndim != 2:
            raise RuntimeError(f"Expected 2D hidden{k} (batch x hidden), but got {h.ndim}D hidden{k}")
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}")
        if h.shape[1] != w_hh.shape[1]:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected {w_hh.shape[1]}")


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """One LSTM step: ``hx`` = (h, c); returns (h', c'); gates (input, forget, cell, output)."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell: expected hx to hold 2 tensors (h, c), but got {len(hx)}")
    _check_cell(input, hx, w_ih, w_hh)
    return lstm_step(F.linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tensor:
    """One GRU step; gates (reset, update, new)."""
    _check_cell(input, [hx], w_ih, w_hh)
    return gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tensor:
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _check_cell(input, [hx], w_ih, w_hh)
    return rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, "tanh")


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tensor:
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _check_cell(input, [hx], w_ih, w_hh)
    return rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, "relu")



# The torch.* functions this module adds, and the Tensor methods (attached by __name__).
__all__: Tuple[str, ...] = (
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "affine_grid_generator",
    "alpha_dropout",
    "alpha_dropout_",
    "avg_pool1d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy_with_logits",
    "channel_shuffle",
    "constant_pad_nd",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "convolution",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "dropout",
    "dropout_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "group_norm",
    "gru_cell",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "lstm_cell",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
    "native_batch_norm",
    "native_channel_shuffle",
    "native_dropout",
    "native_group_norm",
    "native_layer_norm",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "rms_norm",
    "rnn_relu_cell",
    "rnn_tanh_cell",
    "triplet_margin_loss",
)
METHODS: Tuple[Any, ...] = ()

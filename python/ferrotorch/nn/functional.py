"""``ferrotorch.nn.functional``: functional forms of layers, activations and losses (each
family lives in its own file; this module gathers them under PyTorch's names)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .. import _nn_kernels as _K
from ._functional_activation import (
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from ._functional_loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    ctc_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    linear_cross_entropy,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._functional_softmax import (
    gumbel_softmax,
    log_softmax,
    softmax,
    softmin,
)
from ._grid_sampling import (
    affine_grid,
    grid_sample,
)
from .modules.channelshuffle import (
    channel_shuffle,
    native_channel_shuffle,
)
from .modules.conv import (
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from .modules.distance import (
    cosine_similarity,
    pairwise_distance,
    pdist,
)
from .modules.dropout import (
    alpha_dropout,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from .modules.fold import (
    fold,
    unfold,
)
from .modules.instancenorm import (
    instance_norm,
)
from .modules.linear import (
    bilinear,
)
from .modules.multihead_attention import (
    multi_head_attention_forward,
)
from .modules.normalization import (
    local_response_norm,
    rms_norm,
)
from .modules.padding import (
    pad,
)
from .modules.pixelshuffle import (
    pixel_shuffle,
    pixel_unshuffle,
)
from .modules.pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)
from .modules.scaled_dot_product_attention import (
    scaled_dot_product_attention,
)
from .modules.sparse import (
    embedding,
    embedding_bag,
)
from .modules.upsampling import (
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

Tensor = _core.Tensor

# The fused row-normalization kernels (with their own backward) are PyTorch's functional forms.
layer_norm = _K.layer_norm
group_norm = _K.group_norm
batch_norm = _K.batch_norm


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """x W^T + b, as one fused node (one product over all leading dims of x)."""
    return _core._linear(input, weight, bias)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim."""
    if tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0 and num_classes <= 0:
        raise RuntimeError("one_hot: Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1
    if tensor.numel() and (int(tensor.min().item()) < 0 or int(tensor.max().item()) >= num_classes):
        raise RuntimeError("one_hot: Class values must be smaller than num_classes and non-negative.")
    return (tensor.unsqueeze(-1) == _core.arange(num_classes)).long()


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "Optional", "Tensor")]

# The __torch_function__ protocol helpers and functional-only helpers PyTorch's F exports.
from ._functional_dispatch import (  # noqa: E402
    assert_int_or_pair,
    boolean_dispatch,
    conv_tbc,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

__all__ += ["conv_tbc", "assert_int_or_pair", "boolean_dispatch", "handle_torch_function", "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"]

"""``ferrotorch.nn.functional``: functional forms of layers, activations and losses."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .. import _nn_kernels as _K
from .modules.multihead_attention import multi_head_attention_forward as multi_head_attention_forward
from .modules.normalization import rms_norm as rms_norm
from .modules.scaled_dot_product_attention import scaled_dot_product_attention as scaled_dot_product_attention

Tensor = _core.Tensor

layer_norm = _K.layer_norm
group_norm = _K.group_norm
batch_norm = _K.batch_norm
from .modules.padding import pad as pad  # noqa: E402
from .modules.conv import (  # noqa: E402
    conv1d as conv1d,
    conv2d as conv2d,
    conv3d as conv3d,
    conv_transpose1d as conv_transpose1d,
    conv_transpose2d as conv_transpose2d,
    conv_transpose3d as conv_transpose3d,
)
from .modules.fold import fold as fold, unfold as unfold  # noqa: E402
from .modules.pixelshuffle import pixel_shuffle as pixel_shuffle, pixel_unshuffle as pixel_unshuffle  # noqa: E402
from .modules.channelshuffle import channel_shuffle as channel_shuffle, native_channel_shuffle as native_channel_shuffle  # noqa: E402
from .modules.upsampling import (  # noqa: E402
    interpolate as interpolate,
    upsample as upsample,
    upsample_bilinear as upsample_bilinear,
    upsample_nearest as upsample_nearest,
)
from .modules.pooling import (  # noqa: E402
    adaptive_avg_pool1d as adaptive_avg_pool1d,
    adaptive_avg_pool2d as adaptive_avg_pool2d,
    adaptive_max_pool1d_with_indices as adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices as adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices as adaptive_max_pool3d_with_indices,
    avg_pool1d as avg_pool1d,
    avg_pool2d as avg_pool2d,
    max_pool1d as max_pool1d,
    max_pool1d_with_indices as max_pool1d_with_indices,
    max_pool2d as max_pool2d,
    max_pool2d_with_indices as max_pool2d_with_indices,
    max_pool3d_with_indices as max_pool3d_with_indices,
    adaptive_avg_pool3d as adaptive_avg_pool3d,
    adaptive_max_pool1d as adaptive_max_pool1d,
    adaptive_max_pool2d as adaptive_max_pool2d,
    adaptive_max_pool3d as adaptive_max_pool3d,
    avg_pool3d as avg_pool3d,
    fractional_max_pool2d as fractional_max_pool2d,
    fractional_max_pool2d_with_indices as fractional_max_pool2d_with_indices,
    fractional_max_pool3d as fractional_max_pool3d,
    fractional_max_pool3d_with_indices as fractional_max_pool3d_with_indices,
    lp_pool1d as lp_pool1d,
    lp_pool2d as lp_pool2d,
    lp_pool3d as lp_pool3d,
    max_pool3d as max_pool3d,
    max_unpool1d as max_unpool1d,
    max_unpool2d as max_unpool2d,
    max_unpool3d as max_unpool3d,
)
from .modules.normalization import local_response_norm as local_response_norm  # noqa: E402
from .modules.instancenorm import instance_norm as instance_norm  # noqa: E402
from .modules.sparse import embedding as embedding, embedding_bag as embedding_bag  # noqa: E402
from .modules.dropout import alpha_dropout as alpha_dropout, dropout1d as dropout1d, dropout2d as dropout2d, dropout3d as dropout3d, feature_alpha_dropout as feature_alpha_dropout  # noqa: E402

from ._functional_softmax import gumbel_softmax as gumbel_softmax, log_softmax as log_softmax, softmax as softmax, softmin as softmin  # noqa: E402
from ._functional_activation import (  # noqa: E402
    celu as celu,
    celu_ as celu_,
    elu as elu,
    elu_ as elu_,
    gelu as gelu,
    glu as glu,
    hardshrink as hardshrink,
    hardsigmoid as hardsigmoid,
    hardswish as hardswish,
    hardtanh as hardtanh,
    hardtanh_ as hardtanh_,
    leaky_relu as leaky_relu,
    leaky_relu_ as leaky_relu_,
    logsigmoid as logsigmoid,
    mish as mish,
    prelu as prelu,
    relu as relu,
    relu6 as relu6,
    relu_ as relu_,
    rrelu as rrelu,
    rrelu_ as rrelu_,
    selu as selu,
    selu_ as selu_,
    sigmoid as sigmoid,
    silu as silu,
    softplus as softplus,
    softshrink as softshrink,
    softsign as softsign,
    tanh as tanh,
    tanhshrink as tanhshrink,
    threshold as threshold,
    threshold_ as threshold_,
)

__all__ = [n for n in dir() if not n.startswith("_")]


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """x W^T + b, as one fused node (one product over all leading dims of x)."""
    return _core._linear(input, weight, bias)


from .modules.linear import bilinear as bilinear  # noqa: E402


from .modules.dropout import dropout as dropout  # noqa: E402


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


from .modules.distance import cosine_similarity as cosine_similarity, pairwise_distance as pairwise_distance, pdist as pdist  # noqa: E402


# ---- losses (nn/_functional_loss.py) ----

from ._functional_loss import (  # noqa: E402
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

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "Optional", "Tensor")]

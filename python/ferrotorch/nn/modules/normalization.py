"""Normalization layers: BatchNorm1d/2d/3d, SyncBatchNorm, LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ... import _core
from ... import _nn_kernels as K
from ..._grad_mode import no_grad
from .. import init
from ..parameter import Parameter
from .lazy import LazyModuleMixin, UninitializedBuffer, UninitializedParameter, is_lazy
from .module import Module

Tensor = _core.Tensor


def _shape_tuple(normalized_shape: Union[int, Sequence[int]]) -> Tuple[int, ...]:
    return (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)


class _NormBase(Module):
    """Parameters (``weight``/``bias``) and running statistics shared by BatchNorm and InstanceNorm."""

    # PyTorch's state_dict version for these layers (2: num_batches_tracked exists).
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_core.empty(num_features, dtype=dt))
            if bias:
                self.bias = Parameter(_core.empty(num_features, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _core.zeros(num_features, dtype=dt))
            self.register_buffer("running_var", _core.ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", _core.tensor(0, dtype=_core.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Running statistics reset; weight 1, bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _before_load_state_dict(self, state_dict: Dict[str, Any], prefix: str) -> Optional[List[str]]:
        # Checkpoints without a version (plain dicts) or from before num_batches_tracked existed
        # load with the module's own count, as in PyTorch.
        version = getattr(state_dict, "_metadata", {}).get(prefix[:-1], {}).get("version")
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None else _core.tensor(0, dtype=_core.int64)
        return None

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    _expected_dims: Sequence[int] = ()

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input (got {input.ndim}D input)")
        return self._batch_norm(input)

    def _batch_norm(self, input: Tensor) -> Tensor:
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                # Cumulative moving average over every batch seen so far.
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        keep_stats = not self.training or self.track_running_stats
        return K.batch_norm(
            input,
            self.running_mean if keep_stats else None,
            self.running_var if keep_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            momentum,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over [N, C] or [N, C, L]."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over [N, C, H, W]."""

    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization over [N, C, D, H, W]."""

    _expected_dims = (5,)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """BatchNorm/InstanceNorm whose ``num_features`` comes from dim 1 of the first input."""

    def __init__(self, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _core.tensor(0, dtype=_core.int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Gives weight, bias and running statistics the size of ``input``'s dim 1."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    if is_lazy(getattr(self, name)):
                        self._materialize(name, (self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d with ``num_features`` from the first input."""

    cls_to_become = BatchNorm1d
    _expected_dims = BatchNorm1d._expected_dims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d with ``num_features`` from the first input."""

    cls_to_become = BatchNorm2d
    _expected_dims = BatchNorm2d._expected_dims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d with ``num_features`` from the first input."""

    cls_to_become = BatchNorm3d
    _expected_dims = BatchNorm3d._expected_dims


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dims, with a learned scale and shift."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_core.ones(tuple(self.normalized_shape), dtype=dt))
            if bias:
                self.bias = Parameter(_core.zeros(tuple(self.normalized_shape), dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Weight 1, bias 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return K.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"


class GroupNorm(Module):
    """Normalizes groups of channels of [N, C, *] inputs."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        dt = dtype or _core.get_default_dtype()
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(_core.ones(num_channels, dtype=dt))
            if bias:
                self.bias = Parameter(_core.zeros(num_channels, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Weight 1, bias 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return K.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None, eps: Optional[float] = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times ``weight``."""
    from ..._type_info import finfo

    shape = _shape_tuple(normalized_shape)
    if not shape:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = {list(shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape {list(weight.shape)} and normalized_shape = {list(shape)}")
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        # PyTorch's text, "[*4, 5]" and the missing space included.
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if not (input.is_floating_point() or input.is_complex()):
        from .._functional_loss import _dtype_name

        raise NotImplementedError(f'"rms_norm" not implemented for \'{_dtype_name(input.dtype)}\'')
    dims = tuple(range(-len(shape), 0))
    # As PyTorch: float16/bfloat16 compute in float32 (eps included), a complex input takes its
    # real dtype's eps and is squared without conj, and the result has the input's dtype.
    x = input.float() if input.dtype in (_core.float16, _core.bfloat16) else input
    real = {_core.complex64: _core.float32, _core.complex128: _core.float64}.get(x.dtype, x.dtype)
    if x.is_complex() and real == x.dtype:
        real = _core.float32  # complex32 computes in complex64
    e = finfo(real).eps if eps is None else eps
    y = x * ((x * x).mean(dims, keepdim=True) + e).rsqrt()
    if weight is not None:
        y = y * weight
    return y.to(input.dtype) if y.dtype != input.dtype else y


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: Optional[float] = None, elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_core.ones(tuple(self.normalized_shape), dtype=dt))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """Weight 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta, on [N, C, *]."""
    if input.ndim < 3:
        # PyTorch's message, wide gap included.
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    # Zero-pad the channel dim (size // 2 before, (size - 1) // 2 after), then sum size shifted windows.
    before, after = size // 2, (size - 1) // 2
    parts = []
    if before:
        parts.append(_core.zeros([input.shape[0], before] + list(input.shape[2:]), dtype=input.dtype))
    parts.append(sq)
    if after:
        parts.append(_core.zeros([input.shape[0], after] + list(input.shape[2:]), dtype=input.dtype))
    padded = _core.cat(parts, 1) if len(parts) > 1 else sq
    total = padded.narrow(1, 0, c)
    for s in range(1, size):
        total = total + padded.narrow(1, s, c)
    div = (total * (alpha / size) + k) ** beta
    return input / div


class LocalResponseNorm(Module):
    """Normalizes each channel by the energy of its ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response normalization across channels of [N, C, H, W] inputs, in the form of the
    legacy (Lua Torch) layer: ``x / (k + alpha / size * window_sum(x^2)) ** beta``.

    Its channel windows are those of that layer, which PyTorch keeps: channel ``c`` sums the
    squares of channels ``max(1, c - p + 1) .. c + p - 1`` with ``p = (size - 1) // 2 + 1``, and
    channel 0 is never dropped from the sum once it enters (so it differs from
    LocalResponseNorm past the first ``p`` channels)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
        c = input.shape[1]
        reach = int((self.size - 1) / 2 + 1)
        sq = input * input
        # prefix[j] = sum of the squares of channels < j.
        prefix = _core.cat([_core.zeros_like(sq.narrow(1, 0, 1)), sq.cumsum(1)], 1)
        upper = [min(i + reach - 1, c - 1) + 1 for i in range(c)]
        lower = [max(1, i - reach + 1) for i in range(c)]
        window = prefix.index_select(1, _core.tensor(upper)) - prefix.index_select(1, _core.tensor(lower))
        window = window + sq.narrow(1, 0, 1)  # channel 0 always counts
        scale = window * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _distributed_initialized() -> bool:
    try:
        from ... import distributed  # type: ignore[attr-defined]
    except ImportError:
        return False
    return bool(distributed.is_available() and distributed.is_initialized())


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over [N, C, *] whose training statistics would be shared across a process
    group. Outside an initialized process group it is BatchNorm; inside one it needs accelerator
    inputs, as PyTorch's does, and CPU inputs raise the same ValueError."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True, track_running_stats: bool = True, process_group: Any = None, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if self.training and _distributed_initialized():
            if input.device.type == "cpu":
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
            raise NotImplementedError("SyncBatchNorm: synchronizing statistics across processes is not supported yet")
        return self._batch_norm(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every BatchNorm*d inside it replaced by a SyncBatchNorm sharing its
        parameters and running statistics (a BatchNorm*d itself comes back as a new SyncBatchNorm)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out

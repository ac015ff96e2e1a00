"""``torch.nn.modules.batchnorm``'s names, for code that reaches for them there (for example
``isinstance(m, nn.modules.batchnorm._BatchNorm)`` to freeze every BatchNorm); the layers live in
normalization.py."""

from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    SyncBatchNorm,
    _BatchNorm,
    _LazyNormBase,
    _NormBase,
)

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
    "_BatchNorm",
    "_LazyNormBase",
    "_NormBase",
]

"""PyTorch's deprecated module names that old programs still import: Container and NLLLoss2d
(each warns once built, as PyTorch's do)."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from ... import _core
from .loss import NLLLoss
from .module import Module

Tensor = _core.Tensor


class Container(Module):
    """Deprecated: a Module built from keyword children; subclass Module instead."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        warnings.warn("nn.Container is deprecated: subclass nn.Module, which has all of its functionality.")
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (which already takes [N, C, H, W] inputs)."""

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        warnings.warn("NLLLoss2d is deprecated: NLLLoss takes the same arguments and [N, C, H, W] inputs.")
        super().__init__(weight, size_average, ignore_index, reduce, reduction)

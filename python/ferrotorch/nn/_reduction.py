"""Reduction names and the deprecated ``size_average``/``reduce`` flags, as ``torch.nn._reduction``
(imported by custom losses written for PyTorch)."""

from __future__ import annotations

import warnings
from typing import Optional

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The integer code of a reduction: none 0, mean 1, sum 2."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.", stacklevel=2)
        return 1
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(size_average: Optional[bool], reduce: Optional[bool], emit_warning: bool = True) -> str:
    """The reduction the deprecated flags stand for (each defaults to True; ``reduce=False``
    wins), warning that they are deprecated."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.", stacklevel=3)
    return reduction


def legacy_get_enum(size_average: Optional[bool], reduce: Optional[bool], emit_warning: bool = True) -> int:
    """``get_enum(legacy_get_string(...))``."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))

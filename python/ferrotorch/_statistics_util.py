"""Small helpers shared by the statistics modules (searching, order statistics, histograms,
distances, integration, windows): dim wrapping, dtype names, ``out=`` writing, named tuples."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Optional, Sequence

from . import _core, return_types
from ._type_info import scalar_type_name

Tensor = _core.Tensor


def kind(dtype: Any) -> str:
    """PyTorch's C++ scalar-type name of a dtype (``Long`` for int64), as its messages print it."""
    return scalar_type_name(dtype)


def wrap_dim(dim: int, ndim: int, op: str = "") -> int:
    """``dim`` made non-negative; a 0-d tensor accepts -1 and 0 (IndexError otherwise)."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        prefix = f"{op}: " if op else ""
        raise IndexError(f"{prefix}Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def write_out(result: Any, out: Any, op: str) -> Any:
    """``out=``: the result copied into the given tensor(s), which must already have its shape
    and dtype (ferrotorch cannot resize a tensor in place)."""
    if out is None:
        return result
    pairs = zip(result, out) if isinstance(result, tuple) else [(result, out)]
    for r, o in pairs:
        if tuple(o.shape) != tuple(r.shape) or o.dtype != r.dtype:
            raise RuntimeError(f"{op}: out= expects a tensor of shape {list(r.shape)} and dtype {r.dtype}, but got shape {list(o.shape)} and dtype {o.dtype}")
        o.copy_(r.detach())
    return out


def scalar_tensor(value: Any, like: Tensor) -> Tensor:
    """A Python number as a 0-d tensor of the dtype it promotes to against ``like``."""
    return _core.full((), value, dtype=_core.result_type(like, value), device=like.device)


def named(name: str, fields: Sequence[str]) -> Any:
    """A ``torch.return_types`` named tuple: the one in return_types when it has it, else a
    new one registered there (return_types lacks ``nanmedian``, ``histogram``, ...)."""
    existing: Optional[Any] = getattr(return_types, name, None)
    if existing is not None and tuple(getattr(existing, "_fields", ())) == tuple(fields):
        return existing
    made = namedtuple(name, list(fields))  # type: ignore[misc]
    made.__module__ = "torch.return_types"
    setattr(return_types, name, made)
    return made

"""Comparing what ferrotorch and PyTorch load from checkpoints: the same structure (container
types and keys, ``_metadata``), the same tensors (class, dtype, shape, strides, storage offset,
requires_grad, values) and the same storage sharing and object identity between them."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, List, Tuple

import numpy as np

import ferrotorch as torch
from torch_oracle import pt


def is_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor) or (pt is not None and isinstance(x, pt.Tensor))


def values(t: Any) -> np.ndarray:
    """A NumPy copy of either library's tensor (half precision via float32)."""
    t = t.detach()
    if "float16" in str(t.dtype):
        t = t.float()
    if isinstance(t, torch.Tensor):
        return np.array(t.contiguous().numpy())
    return t.contiguous().cpu().numpy().copy()


def storage_key(t: Any) -> int:
    if isinstance(t, torch.Tensor):
        return t.untyped_storage_ptr()
    return t.untyped_storage().data_ptr()


def same_tensor(ours: Any, theirs: Any, where: str) -> None:
    assert is_tensor(ours), f"{where}: {type(ours).__name__} is not a tensor"
    ours_param = isinstance(ours, torch.nn.Parameter) or (pt is not None and isinstance(ours, pt.nn.Parameter))
    theirs_param = isinstance(theirs, torch.nn.Parameter) or (pt is not None and isinstance(theirs, pt.nn.Parameter))
    assert ours_param == theirs_param, f"{where}: Parameter {ours_param} vs {theirs_param}"
    assert str(ours.dtype) == str(theirs.dtype), f"{where}: dtype {ours.dtype} vs {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
    assert tuple(ours.stride()) == tuple(theirs.stride()), f"{where}: stride {ours.stride()} vs {theirs.stride()}"
    assert ours.storage_offset() == theirs.storage_offset(), f"{where}: offset {ours.storage_offset()} vs {theirs.storage_offset()}"
    assert ours.requires_grad == theirs.requires_grad, f"{where}: requires_grad {ours.requires_grad} vs {theirs.requires_grad}"
    np.testing.assert_array_equal(values(ours), values(theirs), err_msg=where)


def _same_scalar(a: Any, b: Any, where: str) -> None:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        assert math.isnan(b), where
    else:
        assert a == b and type(a) is type(b), f"{where}: {a!r} vs {b!r}"


def same_structure(ours: Any, theirs: Any, where: str = "obj") -> None:
    """Recursively equal, each side from either library."""
    if is_tensor(theirs):
        same_tensor(ours, theirs, where)
    elif isinstance(theirs, dict):
        assert type(ours).__name__ == type(theirs).__name__, f"{where}: {type(ours).__name__} vs {type(theirs).__name__}"
        assert list(ours) == list(theirs), f"{where}: keys {list(ours)} vs {list(theirs)}"
        assert getattr(ours, "_metadata", None) == getattr(theirs, "_metadata", None), f"{where}: _metadata"
        for k in theirs:
            same_structure(ours[k], theirs[k], f"{where}[{k!r}]")
    elif isinstance(theirs, (list, tuple)) and type(theirs).__name__ != "Size":
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same_structure(a, b, f"{where}[{i}]")
    elif type(theirs).__name__ in ("Size", "dtype", "device"):
        assert type(ours).__name__ == type(theirs).__name__ and str(ours) == str(theirs), f"{where}: {ours!r} vs {theirs!r}"
    else:
        _same_scalar(ours, theirs, where)


def tensors_in(obj: Any) -> List[Any]:
    """Every tensor reachable from ``obj``, in a fixed order."""
    if is_tensor(obj):
        return [obj]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in tensors_in(v)]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in tensors_in(v)]
    return []


def _partition(keys: List[Any]) -> Tuple[int, ...]:
    first: "OrderedDict[Any, int]" = OrderedDict()
    return tuple(first.setdefault(k, len(first)) for k in keys)


def same_sharing(ours: Any, theirs: Any) -> None:
    """Tensors share storage (and are the same object) exactly where they did on the other side."""
    a, b = tensors_in(ours), tensors_in(theirs)
    nonempty = [i for i, t in enumerate(b) if t.numel() > 0]
    assert _partition([storage_key(a[i]) for i in nonempty]) == _partition([storage_key(b[i]) for i in nonempty])
    assert _partition([id(t) for t in a]) == _partition([id(t) for t in b])

"""Turning lists of samples into batches: ``default_collate`` and ``default_convert``."""

from __future__ import annotations

import collections.abc
from typing import Any

from ... import _core
from ._worker_info import get_worker_info

Tensor = _core.Tensor


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data: Any) -> Any:
    """Converts NumPy arrays (and numbers inside containers) to tensors without batching."""
    t = type(data)
    if t.__module__ == "numpy" and t.__name__ == "ndarray" and data.dtype.kind not in "OSU":
        return _core.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {k: default_convert(v) for k, v in data.items()}
        return converted if type(data) is dict else type(data)(converted)
    if _is_namedtuple(data):
        return t(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: Any) -> Any:
    """Stacks tensors, arrays and numbers along a new first dim; recurses into dicts, tuples,
    named tuples and lists; strings stay lists."""
    elem = batch[0]
    t = type(elem)
    if isinstance(elem, Tensor):
        shapes = {tuple(b.shape) for b in batch}
        if len(shapes) > 1:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {sorted(shapes)} in a batch")
        if get_worker_info() is not None:
            # In a worker the batch is built straight into shared memory: the main process
            # maps it instead of receiving a copy.
            return _core._stack_shared(list(batch), 0)
        return _core.stack(list(batch), 0)
    if t.__module__ == "numpy" and t.__name__ in ("ndarray", "memmap"):
        if elem.dtype.kind in "OSU":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {elem.dtype}")
        return default_collate([_core.as_tensor(b) for b in batch])
    if t.__module__ == "numpy" and hasattr(elem, "shape") and elem.shape == ():
        return _core.tensor([b.item() for b in batch])
    if isinstance(elem, bool):
        return _core.tensor(batch, dtype=_core.bool)
    if isinstance(elem, float):
        return _core.tensor(batch, dtype=_core.float64)
    if isinstance(elem, int):
        return _core.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        return out if type(elem) is dict else t(out) if not isinstance(elem, collections.OrderedDict) else collections.OrderedDict(out)
    if _is_namedtuple(elem):
        return t(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        return [default_collate(list(s)) for s in transposed] if not isinstance(elem, tuple) else [default_collate(list(s)) for s in transposed]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {t}")

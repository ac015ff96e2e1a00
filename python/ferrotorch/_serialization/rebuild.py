"""Tensors rebuilt from a checkpoint's storage records: what PyTorch's ``torch._utils._rebuild_*``
functions do, onto ferrotorch tensors. Tensors that viewed one storage when saved view one
storage again (they share memory), with the saved offsets and strides."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, Optional, Sequence

from .. import _core

Tensor = _core.Tensor


def _ferrotorch() -> Any:
    import ferrotorch

    return ferrotorch


class LoadedStorage:
    """One storage record of a checkpoint: its bytes (on the CPU) and the device it belongs on.

    ``map_location`` callables receive one of these with the saved location, and return it,
    ``.cpu()``, ``.cuda(i)`` or ``.to(device)`` of it, as they would a PyTorch storage.
    """

    def __init__(self, raw: Tensor, device: Any, cache: Optional[Dict[Any, Tensor]] = None) -> None:
        self._raw = raw
        self.device = _ferrotorch().device(device)
        self._typed: Dict[Any, Tensor] = {} if cache is None else cache

    def nbytes(self) -> int:
        return int(self._raw.numel())

    def size(self) -> int:
        return self.nbytes()

    __len__ = size

    def to(self, device: Any = None, non_blocking: bool = False) -> "LoadedStorage":
        """The same bytes, to be placed on ``device``."""
        if device is None:
            return self
        target = _ferrotorch().device(device)
        if target == self.device:
            return self
        return LoadedStorage(self._raw, target)

    def cpu(self) -> "LoadedStorage":
        return self.to("cpu")

    def cuda(self, device: Any = None, non_blocking: bool = False) -> "LoadedStorage":
        if device is None:
            return self.to("cuda")
        return self.to(device if isinstance(device, (str, _ferrotorch().device)) else f"cuda:{int(device)}")

    def typed(self, dtype: Any) -> Tensor:
        """The whole record as a 1-D tensor of ``dtype`` on this storage's device (made once)."""
        flat = self._typed.get(dtype)
        if flat is None:
            n = self.nbytes() // dtype.itemsize
            flat = _core._storage_view(self._raw, [n], [1], 0, dtype)
            if self.device.type != "cpu":
                _check_device_available(self.device)
                flat = flat.to(self.device)
            self._typed[dtype] = flat
        return flat

    def __repr__(self) -> str:
        return f"LoadedStorage(nbytes={self.nbytes()}, device={self.device})"


class TypedRecord:
    """What a storage id in a checkpoint unpickles to: a loaded storage read as one dtype."""

    def __init__(self, storage: LoadedStorage, dtype: Any) -> None:
        self.storage = storage
        self.dtype = dtype

    @property
    def flat(self) -> Tensor:
        return self.storage.typed(self.dtype)


def _check_device_available(device: Any) -> None:
    ft = _ferrotorch()
    if device.type == "cuda" and not ft.cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    if device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"load: ferrotorch cannot place storages on device {device}")


def restore_location(storage: LoadedStorage, location: str, map_location: Any) -> LoadedStorage:
    """Where a storage saved at ``location`` goes, as PyTorch's ``map_location`` rules say."""
    if map_location is None:
        target: Any = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, bytes, _ferrotorch().device)):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
    elif callable(map_location):
        moved = map_location(storage, location)
        if moved is None:
            return restore_location(storage, location, None)
        if not isinstance(moved, LoadedStorage):
            raise TypeError(f"load: map_location returned {type(moved).__name__}, expected the storage it was given (or None)")
        return moved
    else:
        raise TypeError(f"load: map_location must be a str, torch.device, dict or callable, not {type(map_location).__name__}")
    try:
        device = _ferrotorch().device(target)
    except Exception:
        raise RuntimeError(f"don't know how to restore data location of a storage (tagged with {target})") from None
    _check_device_available(device)
    return storage.to(device)


def _layout_ints(what: str, values: Any) -> list:
    if not isinstance(values, (tuple, list)) or not all(type(v) is int and v >= 0 for v in values):
        raise RuntimeError(f"load: corrupt checkpoint: tensor {what} {values!r} is not a tuple of non-negative ints")
    return list(values)


def _view(storage: Any, storage_offset: Any, size: Sequence[int], stride: Sequence[int], dtype: Any = None) -> Tensor:
    if not isinstance(storage, TypedRecord):
        raise RuntimeError(f"load: corrupt checkpoint: expected a storage to rebuild a tensor from, got {type(storage).__name__}")
    if type(storage_offset) is not int or storage_offset < 0:
        raise RuntimeError(f"load: corrupt checkpoint: storage offset {storage_offset!r}")
    size, stride = _layout_ints("size", size), _layout_ints("stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"load: corrupt checkpoint: size {size} and stride {stride} differ in length")
    flat = storage.flat if dtype is None or dtype == storage.dtype else TypedRecord(storage.storage, dtype).flat
    return _core._storage_view(flat, size, stride, storage_offset)


def rebuild_tensor(storage: Any, storage_offset: int, size: Sequence[int], stride: Sequence[int]) -> Tensor:
    """``torch._utils._rebuild_tensor``: a view of ``storage`` with the saved layout."""
    return _view(storage, storage_offset, size, stride)


def rebuild_tensor_v2(
    storage: Any,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int],
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: the view, with ``requires_grad`` (hooks are never saved)."""
    t = _view(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_tensor_v3(
    storage: Any,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int],
    requires_grad: bool,
    backward_hooks: Any,
    dtype: Any,
    metadata: Any = None,
) -> Tensor:
    """``torch._utils._rebuild_tensor_v3``: an untyped storage read as ``dtype``."""
    t = _view(storage, storage_offset, size, stride, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _set_state(obj: Any, state: Any) -> Any:
    """Python attributes saved with a tensor (``_set_obj_state``); dunder names are refused."""
    if state is None:
        return obj
    dict_state, slots_state = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for part in (dict_state, slots_state):
        if not part:
            continue
        if not isinstance(part, dict):
            raise RuntimeError(f"load: corrupt checkpoint: invalid serialized state {state!r}")
        for k, v in part.items():
            if not isinstance(k, str) or k.startswith("__"):
                raise RuntimeError(f"load: refusing to set attribute {k!r} from a checkpoint")
            setattr(obj, k, v)
    return obj


def rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Any:
    """``torch._utils._rebuild_parameter``: a Parameter sharing ``data``'s storage."""
    from ..nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise RuntimeError(f"load: corrupt checkpoint: Parameter data is {type(data).__name__}, not a tensor")
    return Parameter(data, bool(requires_grad))


def rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any) -> Any:
    """``torch._utils._rebuild_parameter_with_state``: a Parameter with saved Python attributes."""
    return _set_state(rebuild_parameter(data, requires_grad, backward_hooks), state)


def rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Any:
    """``torch._tensor._rebuild_from_type_v2``: a tensor with Python attributes, or of a subclass."""
    from ..nn.parameter import Parameter

    ret = func(*args)
    if not isinstance(ret, Tensor):
        raise RuntimeError(f"load: corrupt checkpoint: {func!r} did not rebuild a tensor")
    if new_type is not type(ret):
        if isinstance(new_type, type) and issubclass(new_type, Parameter):
            ret = new_type(ret, ret.requires_grad)
        elif not (isinstance(new_type, type) and issubclass(new_type, Tensor) and isinstance(ret, new_type)):
            raise RuntimeError(f"load: ferrotorch cannot rebuild tensors of type {new_type!r}")
    return _set_state(ret, state)


def rebuild_device_tensor_from_cpu_tensor(data: Tensor, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """``torch._utils._rebuild_device_tensor_from_cpu_tensor``: ``data`` moved to ``device``."""
    target = _ferrotorch().device(device)
    _check_device_available(target)
    t = data.to(dtype).to(target)
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty_hooks() -> "OrderedDict[Any, Any]":
    return OrderedDict()

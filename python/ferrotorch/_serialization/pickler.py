"""Pickles objects as PyTorch's ``torch.save`` does: each tensor becomes a call to
``torch._utils._rebuild_tensor_v2`` over a storage id, each storage is written once as a record
whatever number of tensors view it, and ferrotorch's globals are written under PyTorch's names."""

from __future__ import annotations

import pickle
import sys
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from .. import _core
from . import torch_names as names

Tensor = _core.Tensor


class SavedStorage:
    """A storage about to be written: its record key, dtype, location and whole-storage tensor."""

    __slots__ = ("key", "dtype", "location", "flat")

    def __init__(self, key: str, dtype: Any, location: str, flat: Tensor) -> None:
        self.key = key
        self.dtype = dtype
        self.location = location
        self.flat = flat

    def persistent_id(self) -> Tuple[Any, ...]:
        numel = int(self.flat.numel())
        return ("storage", names.storage_class_global(self.dtype), self.key, self.location, numel)


class StorageTable:
    """Storages met while pickling, keyed by identity so shared storages are written once."""

    def __init__(self) -> None:
        self._by_identity: Dict[Any, SavedStorage] = {}
        self.storages: List[SavedStorage] = []

    def storage_of(self, t: Tensor) -> SavedStorage:
        nbytes = _core._storage_nbytes(t)
        # Empty storages may share an address; each gets its own record.
        identity: Any = (str(t.device), t.untyped_storage_ptr()) if nbytes else object()
        saved = self._by_identity.get(identity)
        if saved is None:
            item = t.element_size()
            flat = _core._storage_view(t, [nbytes // item], [1], 0)
            saved = SavedStorage(str(len(self.storages)), t.dtype, sys.intern(str(t.device)), flat)
            self._by_identity[identity] = saved
            self.storages.append(saved)
        elif saved.dtype != t.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return saved


def _strided() -> Any:
    import ferrotorch

    return ferrotorch.strided


def _python_state(t: Tensor) -> Optional[Dict[str, Any]]:
    state = getattr(t, "__dict__", None)
    return dict(state) if state else None


class TorchPickler(pickle._Pickler):  # type: ignore[name-defined]
    """The pure-Python pickler, so that globals can be written under PyTorch's names."""

    def __init__(self, file: Any, protocol: int, storages: StorageTable) -> None:
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, SavedStorage):
            return obj.persistent_id()
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, (names.TorchGlobal, _core.dtype)):
            return names.torch_name_of(obj).name  # type: ignore[union-attr]
        if obj is _strided():
            return (names.GET_LAYOUT, ("torch.strided",))
        if isinstance(obj, _core.device):
            return (names.TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def save_global(self, obj: Any, name: Optional[str] = None) -> None:
        target = names.torch_name_of(obj)
        if target is None:
            super().save_global(obj, name)
            return
        self.write(pickle.GLOBAL + f"{target.module}\n{target.name}\n".encode("utf-8"))
        self.memoize(obj)

    def _reduce_tensor(self, t: Tensor) -> Any:
        from ..nn.parameter import Parameter

        if type(t) is Parameter:
            data = _core._storage_view(t, list(t.shape), list(t.stride()), t.storage_offset())
            state = _python_state(t)
            if state:
                return (names.REBUILD_PARAMETER_WITH_STATE, (data, t.requires_grad, OrderedDict(), state))
            return (names.REBUILD_PARAMETER, (data, t.requires_grad, OrderedDict()))
        args = (
            self.storages.storage_of(t),
            t.storage_offset(),
            tuple(t.shape),
            tuple(t.stride()),
            bool(t.requires_grad),
            OrderedDict(),
        )
        state = _python_state(t)
        if type(t) is Tensor and not state:
            return (names.REBUILD_TENSOR_V2, args)
        return (names.REBUILD_FROM_TYPE_V2, (names.REBUILD_TENSOR_V2, type(t), args, state or {}))

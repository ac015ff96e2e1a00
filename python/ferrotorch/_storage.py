"""The memory under a tensor as an object: ``Tensor.untyped_storage()`` (bytes),
``Tensor.storage()`` (elements of the tensor's dtype), ``torch.is_storage``; and the tensor
attributes that talk about what a tensor is made of: ``Tensor.output_nr``,
``Tensor.as_subclass`` and the function form ``torch.resize_as_``.

A storage object keeps the tensor alive and reads/writes its memory through
``_core._storage_view`` (a detached view of the whole storage), so two views of one tensor
report the same ``data_ptr()`` and a write through the storage shows in every view."""

from __future__ import annotations

import warnings
from typing import Any, Iterator, List, Tuple, Union

from . import _core
from ._device_queries import _NamedProperty

Tensor = _core.Tensor


class _StorageBase:
    """What both storages share: the owning tensor and a flat view of its whole storage."""

    _owner: Tensor
    _dtype: Any

    def _flat(self) -> Tensor:
        n = _core._storage_nbytes(self._owner) // self.element_size()
        return _core._storage_view(self._owner, [n], [1], 0, self._dtype)

    def data_ptr(self) -> int:
        """The address of the storage's first byte (the same for every view of it)."""
        return self._owner.untyped_storage_ptr()

    def nbytes(self) -> int:
        """Bytes in the whole storage."""
        return _core._storage_nbytes(self._owner)

    def size(self) -> int:
        """Elements in the storage (bytes for an untyped storage)."""
        return self.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    @property
    def device(self) -> Any:
        return self._owner.device

    @property
    def is_cuda(self) -> bool:
        return self._owner.device.type == "cuda"

    def get_device(self) -> int:
        return self._owner.get_device()

    def is_shared(self) -> bool:
        return self._owner.is_shared()

    def is_pinned(self, device: Any = "cuda") -> bool:
        return self._owner.is_pinned()

    def tolist(self) -> List[Any]:
        """The storage's values as a Python list."""
        return self._flat().tolist()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        flat = self._flat()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(flat.numel())
            if step != 1:
                raise RuntimeError("slices are only supported in contiguous storages")
            return type(self)._wrap(flat[start:stop].clone(), self._dtype)
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self).__name__} with {type(idx).__name__}")
        n = flat.numel()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return flat[idx].item()

    def __setitem__(self, idx: Union[int, slice], value: Any) -> None:
        self._flat()[idx] = value

    def fill_(self, value: Any) -> "_StorageBase":
        """Sets every element (byte) to ``value``; returns the storage."""
        self._flat().fill_(value)
        return self

    def copy_(self, source: "_StorageBase", non_blocking: Any = None) -> "_StorageBase":
        """Copies ``source``'s bytes into this storage (same number of bytes)."""
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size mismatch: copy_ of a storage of {source.nbytes()} bytes into one of {self.nbytes()}")
        mine = _core._storage_view(self._owner, [self.nbytes()], [1], 0, _core.uint8)
        mine.copy_(_core._storage_view(source._owner, [source.nbytes()], [1], 0, _core.uint8))
        return self

    def clone(self) -> "_StorageBase":
        """A storage with a copy of the bytes."""
        return type(self)._wrap(self._flat().clone(), self._dtype)

    def cpu(self) -> "_StorageBase":
        return self if self.device.type == "cpu" else type(self)._wrap(self._flat().cpu(), self._dtype)

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        head = f"[torch.storage.{type(self).__name__}("
        return f"{body}\n{head}{self._describe()}) of size {self.size()}]"

    def _describe(self) -> str:
        return f"device={self.device}"

    @classmethod
    def _wrap(cls, t: Tensor, dtype: Any) -> "_StorageBase":
        raise NotImplementedError


class UntypedStorage(_StorageBase):
    """The bytes under a tensor (``Tensor.untyped_storage()``)."""

    def __init__(self, owner: Any = 0, *, device: Any = None) -> None:
        if not isinstance(owner, Tensor):  # UntypedStorage(nbytes): new zeroed bytes
            owner = _core.zeros(int(owner), dtype=_core.uint8, device=device)
        self._owner = owner.detach()
        self._dtype = _core.uint8

    @classmethod
    def _wrap(cls, t: Tensor, dtype: Any) -> "UntypedStorage":
        return cls(t)

    def element_size(self) -> int:
        return 1

    def untyped(self) -> "UntypedStorage":
        return self


class TypedStorage(_StorageBase):
    """The storage under a tensor read as elements of its dtype (``Tensor.storage()``;
    deprecated in PyTorch in favour of ``untyped_storage()``)."""

    def __init__(self, owner: Any = 0, dtype: Any = None, *, device: Any = None) -> None:
        if not isinstance(owner, Tensor):  # TypedStorage(size, dtype=...): new zeroed elements
            owner = _core.zeros(int(owner), dtype=dtype or _core.get_default_dtype(), device=device)
        self._owner = owner.detach()
        self._dtype = owner.dtype if dtype is None else dtype

    @classmethod
    def _wrap(cls, t: Tensor, dtype: Any) -> "TypedStorage":
        return cls(t, dtype)

    @property
    def dtype(self) -> Any:
        return self._dtype

    def element_size(self) -> int:
        return _core.empty(0, dtype=self._dtype).element_size()

    def untyped(self) -> UntypedStorage:
        """The same memory as bytes."""
        return UntypedStorage(self._owner)

    _untyped_storage = property(untyped)

    def _describe(self) -> str:
        return f"dtype={self._dtype}, device={self.device}"


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The bytes under ``self`` (all of its storage, not only the part it views)."""
    return UntypedStorage(self)


def storage(self: Tensor) -> TypedStorage:
    """The storage under ``self`` as elements of its dtype (deprecated, as in PyTorch)."""
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
        "storage class. This should only matter to you if you are using storages directly.  To access "
        "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
        UserWarning,
        stacklevel=2,
    )
    return TypedStorage(self)


def is_storage(obj: Any) -> bool:
    """True if ``obj`` is a storage (``untyped_storage()`` or ``storage()``)."""
    return isinstance(obj, _StorageBase)


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """An instance of ``cls`` (a Tensor subclass) over ``self``'s memory.

    The core makes the alias detached from autograd, so a tensor that requires grad is
    refused rather than silently cut from its graph (PyTorch links the two with an
    ``AliasBackward0`` node)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
            "Make sure your class inherits from Tensor."
        )
    if self.requires_grad and _core.is_grad_enabled():
        raise NotImplementedError(
            f"as_subclass({cls.__name__}) of a tensor that requires grad: ferrotorch's Tensor constructor "
            "detaches, so the alias would not carry gradients back"
        )
    return Tensor.__new__(cls, self)


def _output_nr(self: Tensor) -> int:
    # Every ferrotorch graph node has one output (multi-output ops give each output its own
    # node, whose next_functions entries say 0), so the index among the node's outputs is 0.
    return 0


output_nr = _NamedProperty(_output_nr, "output_nr", "The index of this tensor among its grad_fn's outputs.")


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``torch.resize_as_(input, the_template)``: ``input.resize_as_(the_template)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"resize_as_(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.resize_as_(the_template, memory_format=memory_format)


__all__: Tuple[str, ...] = ("UntypedStorage", "TypedStorage", "is_storage", "resize_as_")
METHODS: Tuple[Any, ...] = (untyped_storage, storage, as_subclass, output_nr)

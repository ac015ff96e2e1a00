"""Lazy modules: parameters whose shapes come from the first input (or from a loaded state_dict).

As in PyTorch, an ``UninitializedParameter`` is materialized in place: the same object takes
its memory (``.data`` rebinding) and becomes a ``Parameter``, so references held before the
first forward stay the module's parameters."""

from __future__ import annotations

from itertools import chain
from typing import Any, Dict, List, Optional, Sequence

from ... import _core
from ..parameter import Parameter

Tensor = _core.Tensor


class UninitializedParameter(Parameter):
    """A placeholder parameter (0 elements) whose shape a lazy module decides later."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        return Parameter.__new__(cls, _core.empty(0, dtype=dtype or _core.get_default_dtype()), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def detach(self) -> "UninitializedParameter":
        """Another placeholder (what state_dict() stores, so a lazy checkpoint stays lazy)."""
        return UninitializedParameter(False, dtype=self.dtype)

    def __deepcopy__(self, memo: dict) -> "UninitializedParameter":
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, proto: Any) -> Any:
        return (UninitializedParameter, (self.requires_grad, None, self.dtype))


class UninitializedBuffer(Tensor):
    """A placeholder buffer (0 elements) whose shape a lazy module decides later."""

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None, persistent: bool = True) -> "UninitializedBuffer":
        t = Tensor.__new__(cls, _core.empty(0, dtype=dtype or _core.get_default_dtype()))
        t.persistent = persistent
        return t

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None, persistent: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__

    def detach(self) -> "UninitializedBuffer":
        """Another placeholder (what state_dict() stores, so a lazy checkpoint stays lazy)."""
        return UninitializedBuffer(dtype=self.dtype, persistent=self.persistent)

    def __deepcopy__(self, memo: dict) -> "UninitializedBuffer":
        if id(self) not in memo:
            memo[id(self)] = UninitializedBuffer(dtype=self.dtype, persistent=self.persistent)
        return memo[id(self)]

    def __reduce_ex__(self, proto: Any) -> Any:
        return (UninitializedBuffer, (False, None, self.dtype, self.persistent))


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is still an uninitialized placeholder (parameter or buffer)."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """Mixed into a module with UninitializedParameters: the first forward calls
    ``initialize_parameters(*inputs)`` and then turns the module into ``cls_to_become``."""

    cls_to_become: Any = None
    _parameters: Dict[str, Any]
    _buffers: Dict[str, Any]

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module is still a placeholder."""
        return any(is_lazy(p) for p in chain(self._parameters.values(), self._buffers.values()))

    def _materialize(self, name: str, shape: Sequence[int]) -> None:
        if name in self._parameters:
            p = self._parameters[name]
            p.data = _core.empty(tuple(shape), dtype=p.dtype)
            p.__class__ = p.cls_to_become
        else:
            self._buffers[name] = _core.empty(tuple(shape), dtype=self._buffers[name].dtype)

    def _before_load_state_dict(self, state_dict: Dict[str, Any], prefix: str) -> Optional[List[str]]:
        # Loading a checkpoint into a lazy module takes the shapes from the checkpoint.
        for name, p in list(chain(self._parameters.items(), self._buffers.items())):
            value = state_dict.get(prefix + name)
            if is_lazy(p) and isinstance(value, Tensor) and not is_lazy(value):
                self._materialize(name, tuple(value.shape))
        parent = getattr(super(), "_before_load_state_dict", None)
        return parent(state_dict, prefix) if parent is not None else None

    def _apply(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        # .double(), .half(), .to(dtype) before the first forward: the placeholders stay
        # placeholders, of the new dtype (the base class would wrap them as plain Parameters).
        lazy = {k: p for k, p in chain(self._parameters.items(), self._buffers.items()) if is_lazy(p)}
        out = super()._apply(fn, *args, **kwargs)  # type: ignore[misc]
        for k, old in lazy.items():
            table = self._parameters if k in self._parameters else self._buffers
            new = table[k]
            if new is not old and not is_lazy(new):
                if isinstance(old, UninitializedParameter):
                    table[k] = UninitializedParameter(old.requires_grad, dtype=new.dtype)
                else:
                    table[k] = UninitializedBuffer(dtype=new.dtype, persistent=old.persistent)
        return out

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Gives the placeholders their shapes from the first inputs (each lazy module defines it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        # The first call: shapes from the inputs, then this module becomes cls_to_become.
        self._infer_parameters(*args, **kwargs)
        return self.forward(*args, **kwargs)

    def _infer_parameters(self, *args: Any, **kwargs: Any) -> None:
        self.initialize_parameters(*args, **kwargs)
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

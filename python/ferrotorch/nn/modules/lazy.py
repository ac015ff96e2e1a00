"""Lazy modules: parameters whose shapes come from the first input (or from a loaded state_dict).

PyTorch materializes an ``UninitializedParameter`` in place; a ferrotorch tensor cannot change
shape in place, so materializing puts a new ``Parameter`` in the module. Build optimizers after
the first forward (the "dry run" PyTorch's documentation asks for)."""

from __future__ import annotations

from typing import Any, Dict, Sequence

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


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is still an uninitialized placeholder."""
    return isinstance(param, UninitializedParameter)


class LazyModuleMixin:
    """Mixed into a module with UninitializedParameters: the first forward calls
    ``initialize_parameters(*inputs)`` and then turns the module into ``cls_to_become``."""

    cls_to_become: Any = None
    _parameters: Dict[str, Any]

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter of this module is still a placeholder."""
        return any(is_lazy(p) for p in self._parameters.values())

    def _materialize(self, name: str, shape: Sequence[int]) -> None:
        old = self._parameters[name]
        self._parameters[name] = Parameter(_core.empty(*shape, dtype=old.dtype), requires_grad=old.requires_grad)

    def _lazy_load_shapes(self, state_dict: Dict[str, Any], prefix: str) -> None:
        # Loading a checkpoint into a lazy module takes the shapes from the checkpoint.
        for name, p in list(self._parameters.items()):
            value = state_dict.get(prefix + name)
            if is_lazy(p) and isinstance(value, Tensor):
                self._materialize(name, tuple(value.shape))

    def _infer_parameters(self, *inputs: Any) -> None:
        self.initialize_parameters(*inputs)  # type: ignore[attr-defined]
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

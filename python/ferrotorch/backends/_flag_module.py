"""Modules whose attributes are checked switches (``torch.backends.cudnn.benchmark = True``),
as PyTorch's backend modules are: a module's class is swapped for one with properties, so
``import torch.backends.cudnn as cudnn`` and attribute assignment both work."""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any, Dict, Iterator


def bool_flag(name: str, setter_name: str, default: bool) -> property:
    """A bool attribute stored on the module; other types raise as PyTorch's setters do."""

    def get(mod: Any) -> bool:
        return bool(mod.__dict__["_flags"].get(name, default))

    def set_(mod: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(f"{setter_name} expects a bool, but got {type(value).__name__}")
        mod.__dict__["_flags"][name] = value

    return property(get, set_)


def install(module_name: str, cls: type) -> None:
    """Gives the module ``module_name`` the class ``cls`` (a ModuleType subclass)."""
    mod = sys.modules[module_name]
    mod.__dict__.setdefault("_flags", {})
    mod.__class__ = cls


@contextlib.contextmanager
def temporarily(mod: Any, values: Dict[str, Any]) -> Iterator[None]:
    """Sets the flags in ``values`` for the block and restores the previous ones."""
    old = {k: getattr(mod, k) for k in values}
    try:
        for k, v in values.items():
            setattr(mod, k, v)
        yield
    finally:
        for k, v in old.items():
            setattr(mod, k, v)


FlagModule = types.ModuleType

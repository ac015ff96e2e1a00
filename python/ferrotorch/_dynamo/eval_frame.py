"""``OptimizedModule``: what ``torch.compile`` returns for a module. It holds the module as
``_orig_mod`` (so its state_dict keys carry the ``_orig_mod.`` prefix, as PyTorch's do) and
runs it eagerly; attributes it lacks are the original module's."""

from __future__ import annotations

from typing import Any

from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A compiled module: runs ``_orig_mod`` as it is.

    >>> import ferrotorch as torch
    >>> m = torch.compile(torch.nn.Linear(2, 3))
    >>> sorted(m.state_dict())
    ['_orig_mod.bias', '_orig_mod.weight']
    """

    _orig_mod: Module

    def __init__(self, mod: Module, compile_options: Any = None) -> None:
        super().__init__()
        self._orig_mod = mod
        self._compile_options = compile_options
        self.training = mod.training

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        modules = self.__dict__.get("_modules")
        if not modules or "_orig_mod" not in modules:
            # Still being built: only what Module itself has.
            return super().__getattr__(name)
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

"""``torch._dynamo.config``: the settings programs touch. Nothing is traced here, so they
are kept for programs to read back; an unknown name is an AttributeError, as in PyTorch."""

from __future__ import annotations

import sys
import types
from typing import Any

_DEFAULTS = {
    "suppress_errors": False,
    "verbose": False,
    "cache_size_limit": 8,
    "recompile_limit": 8,
    "accumulated_cache_size_limit": 256,
    "accumulated_recompile_limit": 256,
    "optimize_ddp": True,
    "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False,
    "automatic_dynamic_shapes": True,
    "assume_static_by_default": True,
    "specialize_int": False,
    "inline_inbuilt_nn_modules": True,
    "dynamic_shapes": True,
    "error_on_recompile": False,
}


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name in _DEFAULTS:
            return self.__dict__.setdefault(name, _DEFAULTS[name])
        raise AttributeError(f"{__name__.replace('ferrotorch', 'torch')}.{name} does not exist")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _DEFAULTS and not name.startswith("__"):
            raise AttributeError(f"{__name__.replace('ferrotorch', 'torch')}.{name} does not exist")
        self.__dict__[name] = value


sys.modules[__name__].__class__ = _ConfigModule

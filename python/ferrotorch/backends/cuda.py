"""``torch.backends.cuda``: cuBLAS switches. ``matmul.allow_tf32`` is
``torch.get_float32_matmul_precision() != "highest"``, as in PyTorch."""

from __future__ import annotations

from typing import Any

from .. import _runtime_flags

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """Whether this build has the CUDA backend (the ``cuda`` cargo feature)."""
    from .. import _core

    return bool(_core._cuda_is_compiled())


def _reduced_precision(name: str, value: Any) -> Any:
    ok = isinstance(value, bool) or (isinstance(value, (tuple, list)) and all(isinstance(v, bool) for v in value))
    if not ok:
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
    return value


class cuBLASModule:
    """``torch.backends.cuda.matmul``."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {"allow_fp16_reduced_precision_reduction": True, "allow_bf16_reduced_precision_reduction": True})

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _runtime_flags.get_float32_matmul_precision() != "highest"
        if name in self._values:
            return self._values[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _runtime_flags.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._values:
            self._values[name] = _reduced_precision(name, value)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

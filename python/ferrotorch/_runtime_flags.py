"""Process-wide switches programs set at start-up: float32 matmul precision, deterministic
algorithms, warn-always, inter-op threads. The CPU kernels are deterministic and have no
reduced-precision float32 path, so these are recorded and reported, as PyTorch reports them."""

from __future__ import annotations

import os
import warnings
from typing import Union

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_warn_always_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_num_interop_threads",
    "set_warn_always",
    "use_deterministic_algorithms",
]

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest", "deterministic": False, "warn_only": False, "warn_always": False}
_interop = {"threads": os.cpu_count() or 1, "set": False}


def get_float32_matmul_precision() -> str:
    """``"highest"`` (default), ``"high"`` or ``"medium"``."""
    return str(_state["precision"])


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the internal precision of float32 matrix products; an unknown value warns and is
    ignored, as in PyTorch.

    >>> import ferrotorch as torch
    >>> torch.set_float32_matmul_precision("high")
    >>> torch.get_float32_matmul_precision()
    'high'
    >>> torch.set_float32_matmul_precision("highest")
    """
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            stacklevel=2,
        )
        return
    _state["precision"] = precision


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Asks for deterministic algorithms (every CPU kernel here already is)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not {type(warn_only).__name__}")
    _state["deterministic"] = mode
    _state["warn_only"] = warn_only if mode else False


def are_deterministic_algorithms_enabled() -> bool:
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return bool(_state["warn_only"])


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: Union[str, int]) -> None:
    """0/``"default"``, 1/``"warn"`` (deterministic, warn only) or 2/``"error"``."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    """Whether warnings PyTorch gives once should be given every time."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return bool(_state["warn_always"])


def get_num_interop_threads() -> int:
    """Threads for inter-op parallelism (ops run one after another here; the value is kept)."""
    return int(_interop["threads"])


def set_num_interop_threads(nthreads: int) -> None:
    if _interop["set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or set_num_interop_threads called")
    if nthreads <= 0:
        raise RuntimeError("Expected positive number of threads")
    _interop.update(threads=int(nthreads), set=True)

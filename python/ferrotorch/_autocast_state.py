"""The autocast state functions at ``torch.*`` (``is_autocast_enabled``, ``get_autocast_dtype``,
...). The state itself is per thread in the Rust core, where ops read it."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from . import _core

# PyTorch's device type names; only cpu and cuda have autocast here.
_DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu mtia privateuseone"
).split()
_OTHER_DEFAULT_DTYPES = {"hpu": "bfloat16", "xla": "bfloat16"}


def _check_device_type(fn: str, device_type: Any) -> bool:
    """True for cpu/cuda, False for PyTorch's other device types; raises as PyTorch does else."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")
    if device_type in ("cpu", "cuda"):
        return True
    if device_type.split(":")[0] in _DEVICE_TYPES:
        return False
    raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {device_type}")


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast exists for ``device_type`` here (cpu and cuda)."""
    return _check_device_type("is_autocast_available", device_type)


_CUDA_DEFAULT: Any = object()


def is_autocast_enabled(device_type: Any = _CUDA_DEFAULT) -> bool:
    """Whether autocast is on for ``device_type`` in this thread (CUDA when not given).

    >>> import ferrotorch as torch
    >>> with torch.autocast("cpu"):
    ...     torch.is_autocast_enabled("cpu")
    True
    """
    if device_type is _CUDA_DEFAULT:
        return _core._is_autocast_enabled("cuda")
    if not _check_device_type("is_autocast_enabled", device_type):
        return False
    return _core._is_autocast_enabled(device_type)


def set_autocast_enabled(device_type: Any, enabled: Optional[bool] = None) -> None:
    """Turns autocast on or off for ``device_type``; ``set_autocast_enabled(bool)`` is CUDA's."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    if not _check_device_type("set_autocast_enabled", device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    _core._set_autocast_enabled(device_type, bool(enabled))


def get_autocast_dtype(device_type: str) -> Any:
    """The lower-precision dtype of ``device_type``'s autocast (bfloat16 CPU, float16 CUDA)."""
    if not _check_device_type("get_autocast_dtype", device_type):
        return getattr(_core, _OTHER_DEFAULT_DTYPES.get(device_type, "float16"))
    return _core._get_autocast_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Sets the lower-precision dtype of ``device_type``'s autocast."""
    if not _check_device_type("set_autocast_dtype", device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    _core._set_autocast_dtype(device_type, dtype)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _core._is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _core._set_autocast_enabled("cpu", bool(enabled))


def get_autocast_cpu_dtype() -> Any:
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _core._get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _core._set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> Any:
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _core._get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype: Any) -> None:
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _core._set_autocast_dtype("cuda", dtype)


is_autocast_cache_enabled = _core.is_autocast_cache_enabled
set_autocast_cache_enabled = _core.set_autocast_cache_enabled
autocast_increment_nesting = _core.autocast_increment_nesting
autocast_decrement_nesting = _core.autocast_decrement_nesting
clear_autocast_cache = _core.clear_autocast_cache

__all__ = [
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_gpu_dtype",
]

"""``torch.autocast``: regions in which listed ops run in a lower-precision dtype (bfloat16 on
CPU by default, float16 on CUDA) and loss-like ops in float32, by PyTorch's op lists. The
state is per thread and per device type; it lives in the Rust core, where ops read it."""

from __future__ import annotations

import collections.abc
import functools
import warnings
from typing import Any, Callable, Optional, TypeVar

from .. import _autocast_state as _state
from .. import _core

F = TypeVar("F", bound=Callable[..., Any])

is_autocast_available = _state.is_autocast_available

__all__ = ["autocast", "autocast_decorator", "custom_bwd", "custom_fwd", "is_autocast_available"]


def autocast_decorator(autocast_instance: "autocast", func: F) -> F:
    """``func`` run inside ``autocast_instance`` on every call."""

    @functools.wraps(func)
    def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast  # type: ignore[return-value]


def _cuda_amp_unavailable() -> bool:
    from .. import cuda

    return not cuda.is_available()


class autocast:
    """Runs the region (or decorated function) in mixed precision.

    Args:
        device_type: ``"cpu"`` or ``"cuda"``.
        dtype: the lower-precision dtype (default ``torch.get_autocast_dtype(device_type)``).
        enabled: whether to autocast in the region (``False`` turns it off inside an outer one).
        cache_enabled: whether weight casts are reused within the region (default: the
            current ``torch.is_autocast_cache_enabled()``).

    >>> import ferrotorch as torch
    >>> a = torch.ones(2, 2)
    >>> with torch.autocast("cpu"):
    ...     (a @ a).dtype
    torch.bfloat16
    """

    def __init__(self, device_type: str, dtype: Optional[Any] = None, enabled: bool = True, cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = _state.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = _core.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            supported = (_core.bfloat16, _core.float16)
            if device_type == "cuda":
                if _cuda_amp_unavailable():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                    enabled = False
                elif self.fast_dtype == _core.bfloat16:
                    from .. import cuda

                    if not cuda.is_bf16_supported():
                        raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in supported:
                name = device_type.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                    f"{name} Autocast only supports dtypes of {', '.join(map(str, supported))} currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        self.prev_cache_enabled = _core.is_autocast_cache_enabled()
        self.prev = _core._is_autocast_enabled(self.device)
        self.prev_fastdtype = _core._get_autocast_dtype(self.device)
        _core._set_autocast_enabled(self.device, self._enabled)
        _core._set_autocast_dtype(self.device, self.fast_dtype)
        _core.autocast_increment_nesting()
        _core.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        # Leaving the outermost region drops the cached weight casts.
        if _core.autocast_decrement_nesting() == 0:
            _core.clear_autocast_cache()
        _core._set_autocast_enabled(self.device, self.prev)
        _core._set_autocast_dtype(self.device, self.prev_fastdtype)
        _core.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: F) -> F:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )
        return autocast_decorator(self, func)


def _cast(value: Any, device_type: str, dtype: Any) -> Any:
    """Floating tensors (not float64) on ``device_type`` in ``value``, nested containers
    included, cast to ``dtype``; everything else as it is."""
    if isinstance(value, _core.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != _core.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd: Optional[Callable[..., Any]] = None, *, device_type: str, cast_inputs: Optional[Any] = None) -> Any:
    """Decorates a custom ``Function.forward``: with ``cast_inputs``, inside an autocast region
    its floating inputs are cast to that dtype and it runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = _state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = _state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        in_region = _state.is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if not in_region:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd: Optional[Callable[..., Any]] = None, *, device_type: str) -> Any:
    """Decorates a custom ``Function.backward`` to run in the autocast state its forward saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd

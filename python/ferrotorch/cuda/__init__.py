"""``ferrotorch.cuda``: PyTorch's ``torch.cuda`` on ferrotorch's CUDA backend.

Everything initializes CUDA lazily, on first use; ``import ferrotorch`` never touches the
driver. Without CUDA (a build without the ``cuda`` feature, or no driver/device),
``is_available()`` is False, ``device_count()`` 0, seeding is silently ignored, the memory
counters read 0, and what needs a device raises RuntimeError, as PyTorch does.
"""

from __future__ import annotations

from . import amp, memory, random, streams
from ._device import (
    AcceleratorError,
    OutOfMemoryError,
    _CudaDeviceProperties,
    _get_device_index,
    _lazy_call,
    _lazy_init,
    current_device,
    device_count,
    get_arch_list,
    get_device_capability,
    get_device_name,
    get_device_properties,
    init,
    is_available,
    is_bf16_supported,
    is_initialized,
    set_device,
    synchronize,
)
from ._device import _DeviceContext as device
from ._device import _DeviceOf as device_of
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_memory_stats,
)
from .random import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .streams import Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream

device.__module__ = device_of.__module__ = __name__
for _cls in (Stream, Event, StreamContext):
    _cls.__module__ = __name__
del _cls

__all__ = [
    "AcceleratorError",
    "Event",
    "OutOfMemoryError",
    "Stream",
    "StreamContext",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "random",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "streams",
    "synchronize",
]

_unused = (_CudaDeviceProperties, _get_device_index, _lazy_call, _lazy_init)  # private, for tests and tools
del _unused

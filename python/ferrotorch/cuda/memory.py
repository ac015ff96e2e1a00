"""The CUDA caching allocator's statistics and controls (``torch.cuda.memory``)."""

from __future__ import annotations

import collections
import warnings
from typing import Any

from .. import _core
from ._device import Device, _get_device_index, _lazy_init, current_device, is_initialized

__all__ = [
    "empty_cache",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_memory_stats",
]


def _flat_stats(device: Device) -> list[tuple[str, int]]:
    """The backend's ``(key, value)`` counters; none before CUDA is initialized (as PyTorch)."""
    if not is_initialized():
        return []
    return list(_core._cuda_memory_stats(_get_device_index(device, optional=True)))


def memory_stats(device: Device = None) -> dict[str, Any]:
    """The allocator's statistics, e.g. ``"allocated_bytes.all.current"`` (empty before CUDA init)."""
    return collections.OrderedDict(sorted(_flat_stats(device)))


def memory_stats_as_nested_dict(device: Device = None) -> dict[str, Any]:
    """:func:`memory_stats` as nested dicts (``{"allocated_bytes": {"all": {"current": ...}}}``)."""
    nested: dict[str, Any] = {}
    for key, value in _flat_stats(device):
        *parents, leaf = key.split(".")
        node = nested
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return nested


def memory_allocated(device: Device = None) -> int:
    """Bytes currently held by tensors on the device."""
    return memory_stats(device=device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device: Device = None) -> int:
    """The peak of :func:`memory_allocated` since start or :func:`reset_peak_memory_stats`."""
    return memory_stats(device=device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device: Device = None) -> int:
    """Bytes the caching allocator holds from the driver (in use or cached)."""
    return memory_stats(device=device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device: Device = None) -> int:
    """The peak of :func:`memory_reserved` since start or :func:`reset_peak_memory_stats`."""
    return memory_stats(device=device).get("reserved_bytes.all.peak", 0)


def memory_cached(device: Device = None) -> int:
    """Deprecated; see :func:`memory_reserved`."""
    warnings.warn(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning, stacklevel=2
    )
    return memory_reserved(device=device)


def max_memory_cached(device: Device = None) -> int:
    """Deprecated; see :func:`max_memory_reserved`."""
    warnings.warn(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return max_memory_reserved(device=device)


def reset_peak_memory_stats(device: Device = None) -> None:
    """Resets the ``peak`` counters the allocator tracks."""
    idx = _get_device_index(device, optional=True)
    _lazy_init()
    _core._cuda_reset_peak_memory_stats(idx if idx >= 0 else current_device())


def reset_max_memory_allocated(device: Device = None) -> None:
    """Deprecated; calls :func:`reset_peak_memory_stats`, which resets all peaks."""
    warnings.warn(
        "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    return reset_peak_memory_stats(device=device)


def reset_max_memory_cached(device: Device = None) -> None:
    """Deprecated; calls :func:`reset_peak_memory_stats`, which resets all peaks."""
    warnings.warn(
        "torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    return reset_peak_memory_stats(device=device)


def empty_cache() -> None:
    """Returns the allocator's cached, unused memory to the driver (a no-op before CUDA init)."""
    if is_initialized():
        _core._cuda_empty_cache()


def mem_get_info(device: Device = None) -> tuple[int, int]:
    """``(free, total)`` bytes of device memory, as the driver reports them."""
    if device is None:
        device = current_device()
    idx = _get_device_index(device, optional=True)
    _lazy_init()
    free, total = _core._cuda_mem_get_info(idx)
    return int(free), int(total)


def _format_size(sz: int, pref_sz: float) -> str:
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return f"{sz:6d} {prefix}"


def _format_count(cnt: int, pref_cnt: float) -> str:
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return f"{cnt:7d} {prefix} "


def memory_summary(device: Device = None, abbreviated: bool = False) -> str:
    """A text table of :func:`memory_stats` (the layout of PyTorch's)."""
    idx = _get_device_index(device, optional=True)
    stats = memory_stats(device=idx)
    if "allocated_bytes.all.current" not in stats:
        # PyTorch fails the same way when CUDA was never initialized (no counters yet).
        raise KeyError("allocated_bytes.all.current")

    def get(key: str) -> int:
        return int(stats.get(key, 0))

    metrics = [
        ("allocated_bytes", "Allocated memory", _format_size),
        ("active_bytes", "Active memory", _format_size),
        ("requested_bytes", "Requested memory", _format_size),
        ("reserved_bytes", "GPU reserved memory", _format_size),
        ("inactive_split_bytes", "Non-releasable memory", _format_size),
        ("allocation", "Allocations", _format_count),
        ("active", "Active allocs", _format_count),
        ("segment", "GPU reserved segments", _format_count),
        ("inactive_split", "Non-releasable allocs", _format_count),
    ]
    lines = [
        "=" * 75,
        f" {'':16} PyTorch CUDA memory summary, device ID {idx:<17d} ",
        "-" * 75,
        f"  {'':9} CUDA OOMs: {get('num_ooms'):<12d} | {'':6} cudaMalloc retries: {get('num_alloc_retries'):<8d}  ",
        "=" * 75,
        "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ",
    ]
    for key, name, fmt in metrics:
        lines.append("-" * 75)
        subs = [("all", name)]
        if not abbreviated:
            subs += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
        pref: list[int] | None = None
        for sub, sub_name in subs:
            vals = [get(f"{key}.{sub}.{m}") for m in ("current", "peak", "allocated", "freed")]
            if pref is None:
                pref = vals
            cells = " | ".join(fmt(v, p) for v, p in zip(vals, pref))
            lines.append(f" {sub_name:<21} | {cells} ")
    lines.append("=" * 75)
    return "|" + "|\n|".join(lines) + "|\n"

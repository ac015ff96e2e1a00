"""The profiler's configuration types and device names: accepted with PyTorch's fields so
programs that build them run; ferrotorch records CPU op times and ignores GPU counters."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, List, Optional


class DeviceType(enum.IntEnum):
    """Device kinds as the profiler names them (PyTorch's c10 DeviceType numbering)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


@dataclass
class CuspyConfig:
    """Options of CUDA activity collection (no effect: ferrotorch records host op times)."""

    enable_cuda_sync_events: bool = False
    enable_environment_counters: bool = False
    enable_graph_dependencies: bool = False
    enable_event_node_ids: bool = False


@dataclass
class PerformanceMetricsConfig:
    """Hardware counters to sample (no effect: ferrotorch has no counter backend)."""

    metric_names: List[str]
    sampling_interval_ms: Optional[float] = None
    lookback_window_ms: Optional[float] = None


@dataclass
class ProfilerActivityConfig:
    """Per-activity collection settings (accepted; ferrotorch collects its CPU op events)."""

    activity_types: Optional[List[str]] = None
    profiler_configs: List[Any] = field(default_factory=list)


def kineto_available() -> bool:
    """Whether ``profile`` can trace: ferrotorch's recorder serves PyTorch's Kineto API."""
    return True

"""``torch.profiler``: time the ops a program runs (recorded in the Rust core), group them by
name, print PyTorch's table, write Chrome traces."""

from ..autograd.profiler import record_function
from ._configs import (
    CuspyConfig,
    DeviceType,
    PerformanceMetricsConfig,
    ProfilerActivityConfig,
    kineto_available,
)
from ._execution_trace import ExecutionTraceObserver
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "CuspyConfig",
    "DeviceType",
    "ExecutionTraceObserver",
    "PerformanceMetricsConfig",
    "ProfilerAction",
    "ProfilerActivity",
    "ProfilerActivityConfig",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

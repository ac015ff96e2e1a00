"""``torch.autograd.profiler``: ``record_function`` (a named range, as a context manager or a
decorator) and the classic ``profile`` context. The recording itself happens in the Rust core
(``ferrotorch::profiler``): ops, backward nodes and these ranges, while a profiler is on."""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Optional, TypeVar

from .. import _core
from .profiler_util import EventList, FunctionEventAvg, events_from_raw

__all__ = ["EventList", "emit_nvtx", "profile", "record_function"]

F = TypeVar("F", bound=Callable[..., Any])


class record_function:
    """Names a block (or every call of a decorated function) in the profiler's results.

    >>> import ferrotorch as torch
    >>> with torch.profiler.profile() as prof:
    ...     with torch.profiler.record_function("step"):
    ...         _ = torch.ones(2) + 1
    >>> [e.key for e in prof.key_averages() if e.key == "step"]
    ['step']
    """

    def __init__(self, name: str, args: Optional[str] = None) -> None:
        self.name = name
        self.args = args
        self.record: Any = None

    def __enter__(self) -> "record_function":
        self.record = _core._profiler_begin(self.name, None, True)
        return self

    def __exit__(self, *exc: Any) -> None:
        _core._profiler_end(self.record)
        self.record = None

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return func(*args, **kwargs)

        return wrapped  # type: ignore[return-value]


class profile:
    """The classic profiler context: records while inside, then ``key_averages()``,
    ``table()``, ``export_chrome_trace()`` and ``function_events`` describe the run."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: Optional[str] = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.acc_events = acc_events
        self.entered = False
        self._events: Optional[EventList] = None

    def __enter__(self) -> "profile":
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        _core._profiler_start(self.record_shapes)
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.enabled:
            return
        raw = _core._profiler_stop()
        events = events_from_raw(raw)
        if self.acc_events and self._events is not None:
            events = EventList(list(self._events) + list(events))
        self._events = events
        self.entered = False

    def _check_finished(self) -> EventList:
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self._events

    @property
    def function_events(self) -> EventList:
        return self._check_finished()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False) -> EventList:
        return self._check_finished().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_src_column_width: int = 75, max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: Optional[str] = None, top_level_events_only: bool = False, time_unit: Optional[str] = None) -> str:
        return self._check_finished().table(sort_by, row_limit, max_src_column_width, max_name_column_width, max_shapes_column_width, header, top_level_events_only, time_unit)

    def export_chrome_trace(self, path: str) -> None:
        self._check_finished().export_chrome_trace(path)

    def total_average(self) -> FunctionEventAvg:
        return self._check_finished().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finished().self_cpu_time_total

    def __str__(self) -> str:
        return self.table()


@contextlib.contextmanager
def emit_nvtx(enabled: bool = True, record_shapes: bool = False) -> Iterator[None]:
    """NVTX ranges for nvprof/Nsight; ferrotorch emits none, so this only runs the block."""
    yield

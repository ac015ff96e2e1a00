"""``torch.profiler.profile``: the profiler with schedules (``wait``/``warmup``/``active``
steps, ``prof.step()``), ``on_trace_ready`` callbacks, ``key_averages().table()`` and Chrome
traces. Ops are timed by the Rust core; only CPU activity is recorded."""

from __future__ import annotations

import gzip
import os
import socket
import time
import warnings
from enum import Enum
from typing import Any, Callable, Iterable, Optional, Set

from .. import _core
from ..autograd.profiler import record_function
from ..autograd.profiler_util import EventList, events_from_raw

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(Enum):
    """What a profiler records: CPU ops (CUDA kernels are not timed here)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(Enum):
    """What a schedule asks of the profiler at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> Set[ProfilerActivity]:
    """The activities this build can profile."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """After ``skip_first`` steps, cycles of ``wait`` idle, ``warmup`` and ``active`` recorded
    steps (the last one saves), ``repeat`` times (0: until the profiler stops)."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _record_always(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: Optional[str] = None, use_gzip: bool = False) -> Callable[["profile"], None]:
    """An ``on_trace_ready`` that writes ``<worker>.<time_ns>.pt.trace.json[.gz]`` into
    ``dir_name`` (TensorBoard's profiler plugin reads that directory)."""

    def handler_fn(prof: "profile") -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        path = os.path.join(dir_name, name)
        if not use_gzip:
            prof.export_chrome_trace(path)
            return
        tmp = path[:-3]
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as src, gzip.open(path, "wb") as dst:
            dst.write(src.read())
        os.remove(tmp)

    return handler_fn


class profile:
    """Profiles the block; with a ``schedule``, records only the steps it marks active and
    calls ``on_trace_ready(prof)`` at the end of each active span.

    >>> import ferrotorch as torch
    >>> from ferrotorch.profiler import profile, ProfilerActivity
    >>> with profile(activities=[ProfilerActivity.CPU]) as prof:
    ...     _ = torch.mm(torch.ones(2, 2), torch.ones(2, 2))
    >>> [e.count for e in prof.key_averages() if e.key == "aten::mm"]
    [1]
    """

    def __init__(
        self,
        *,
        activities: Optional[Iterable[ProfilerActivity]] = None,
        schedule: Optional[Callable[[int], ProfilerAction]] = None,
        on_trace_ready: Optional[Callable[..., Any]] = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: Optional[bool] = None,
        custom_trace_id_callback: Optional[Callable[[], str]] = None,
    ) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.execution_trace_observer = execution_trace_observer
        self.on_trace_ready = on_trace_ready
        self.schedule = schedule if schedule is not None else _record_always
        self.record_steps = schedule is not None
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.step_rec_fn: Optional[record_function] = None
        self._recording = False
        self._events: Optional[EventList] = None

    # -- the trace lifecycle a schedule drives --

    def _start_trace(self) -> None:
        _core._profiler_start(self.record_shapes or self.execution_trace_observer is not None)
        self._recording = True
        if self.execution_trace_observer is not None:
            self.execution_trace_observer.start()

    def _stop_trace(self) -> None:
        if not self._recording:
            return
        self._recording = False
        events = events_from_raw(_core._profiler_stop())
        if self.execution_trace_observer is not None:
            self.execution_trace_observer.stop()
            self.execution_trace_observer._add(events)
        if self.acc_events and self._events is not None:
            events = EventList(list(self._events) + list(events))
        self._events = events

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev: Optional[ProfilerAction], cur: Optional[ProfilerAction]) -> None:
        A = ProfilerAction
        saving = prev is A.RECORD_AND_SAVE
        recording = prev in (A.RECORD, A.RECORD_AND_SAVE)
        if prev is None:
            if cur in (A.RECORD, A.RECORD_AND_SAVE):
                self._start_trace()
            return
        if prev is A.RECORD and cur in (A.NONE, A.WARMUP):
            warnings.warn(f"Incorrect schedule: RECORD followed by {cur.name}", stacklevel=3)
        if prev is A.WARMUP and cur is A.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
        if saving or (recording and cur in (A.NONE, A.WARMUP, None)):
            self._stop_trace()
            if saving or cur is None:
                self._trace_ready()
        if cur in (A.RECORD, A.RECORD_AND_SAVE) and not self._recording:
            self._start_trace()

    # -- the public protocol --

    def start(self) -> None:
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._transit(None, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Marks the start of the next step (what the schedule counts)."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        if self.execution_trace_observer is not None:
            self.execution_trace_observer.cleanup()

    # -- results --

    def events(self) -> EventList:
        """Every recorded range of the last saved span."""
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting events")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False) -> EventList:
        """Per-name totals (per name and input shapes with ``group_by_input_shape``)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str) -> None:
        """Writes the recorded ranges as Chrome trace JSON."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        raise RuntimeError("export_stacks needs with_stack=True stacks, which ferrotorch does not record")

    def add_metadata(self, key: str, value: str) -> None:
        """Accepted for compatibility; the Chrome trace carries no extra metadata here."""

    def add_metadata_json(self, key: str, value: str) -> None:
        """Accepted for compatibility; the Chrome trace carries no extra metadata here."""



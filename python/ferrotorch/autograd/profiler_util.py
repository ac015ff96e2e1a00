"""Profiler results: timed ranges (``FunctionEvent``), their averages per name
(``FunctionEventAvg``), the list type with ``table()`` / ``key_averages()`` /
``export_chrome_trace()`` (``EventList``). Times are in microseconds, as PyTorch's."""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]

# (name, start_ns, duration_ns, thread, input shapes or None, user annotation) from the core.
RawEvent = Tuple[str, int, int, int, Optional[List[List[int]]], bool]


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us: float, total_us: float) -> str:
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


class FunctionEvent:
    """One timed range: an op, a backward node, or a ``record_function`` block."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float, input_shapes: Optional[List[List[int]]] = None, is_user_annotation: bool = False) -> None:
        self.id = id
        # Numbered step ranges share one name in tables; the trace keeps the number.
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.time_range = (start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children: List[FunctionEvent] = []
        self.cpu_parent: Optional[FunctionEvent] = None
        self.count = 1
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False
        self.device_type = "cpu"

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range[1] - self.time_range[0]

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))

    def __repr__(self) -> str:
        return f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"


class FunctionEventAvg:
    """The events of one name (and, if grouped so, one input shape signature) added up."""

    def __init__(self) -> None:
        self.key: Optional[str] = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: Optional[List[List[int]]] = None
        self.is_user_annotation = False
        self.node_id = -1
        self.is_async = False
        self.is_legacy = False
        self.device_type = "cpu"
        self.cpu_parent: Optional[FunctionEvent] = None

    def add(self, other: Any) -> "FunctionEventAvg":
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other: Any) -> "FunctionEventAvg":
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))

    def __repr__(self) -> str:
        return f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"


def events_from_raw(raw: Iterable[RawEvent]) -> "EventList":
    """FunctionEvents with their parents and children found by time containment per thread."""
    events = [
        FunctionEvent(i, name, thread, start / 1e3, (start + dur) / 1e3, shapes, user)
        for i, (name, start, dur, thread, shapes, user) in enumerate(raw)
    ]
    # Outer ranges first: by start, then the longer one.
    events.sort(key=lambda e: (e.thread, e.time_range[0], -e.cpu_time_total))
    open_ranges: Dict[int, List[FunctionEvent]] = {}
    for e in events:
        stack = open_ranges.setdefault(e.thread, [])
        while stack and stack[-1].time_range[1] <= e.time_range[0]:
            stack.pop()
        if stack and e.time_range[1] <= stack[-1].time_range[1]:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    events.sort(key=lambda e: (e.time_range[0], -e.cpu_time_total))
    for i, e in enumerate(events):
        e.id = i
    return EventList(events)


def _table(events: Sequence[Any], sort_by: Optional[str], row_limit: int, max_name_column_width: int, max_shapes_column_width: int, header: Optional[str], top_level_events_only: bool, time_unit: Optional[str], with_shapes: bool) -> str:
    if not events:
        return ""
    rows = list(events)
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    name_w = min(max(len(e.key) for e in rows) + 4, max_name_column_width)
    shapes_w = min(max(len(str(e.input_shapes)) for e in rows) + 4, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_w] + [12] * 6
    if with_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
    row_format = "".join("{:>" + str(w) + "}  " for w in widths)
    separator = "".join("-" * w + "  " for w in widths)
    line_length = sum(widths) + 2 * (len(widths) - 1)
    total_self = sum(e.self_cpu_time_total for e in rows)

    def fmt(us: float) -> str:
        scale = {"s": (1e6, "s"), "ms": (1e3, "ms"), "us": (1.0, "us")}.get(time_unit or "")
        return f"{us / scale[0]:.3f}{scale[1]}" if scale else _format_time(us)

    out: List[str] = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in rows:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key if len(e.key) < max_name_column_width - 3 else e.key[: max_name_column_width - 3] + "..."
        values = [name, _format_share(e.self_cpu_time_total, total_self), fmt(e.self_cpu_time_total), _format_share(e.cpu_time_total, total_self), fmt(e.cpu_time_total), fmt(e.cpu_time), e.count]
        if with_shapes:
            shapes = str(e.input_shapes)
            values.append(shapes if len(shapes) < max_shapes_column_width else shapes[: max_shapes_column_width - 3] + "...")
        out.append(row_format.format(*values))
    out += [separator, f"Self CPU time total: {_format_time(total_self)}"]
    return "\n".join(out) + "\n"


class EventList(list):
    """A list of events (or of averages) that prints as PyTorch's profiler table."""

    def __init__(self, *args: Any, with_shapes: bool = False, **kwargs: Any) -> None:
        super().__init__(*args)
        self._with_shapes = with_shapes

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_src_column_width: int = 75, max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: Optional[str] = None, top_level_events_only: bool = False, time_unit: Optional[str] = None) -> str:
        """The events as a text table (Name, Self CPU %, Self CPU, CPU total %, CPU total,
        CPU time avg, # of Calls; Input Shapes when grouped by shape), sorted by ``sort_by``
        (an attribute such as ``"cpu_time_total"`` or ``"self_cpu_time_total"``)."""
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header, top_level_events_only, time_unit, self._with_shapes)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False) -> "EventList":
        """One ``FunctionEventAvg`` per name (per name and input shapes when asked)."""
        groups: "OrderedDict[Tuple[str, str], FunctionEventAvg]" = OrderedDict()
        for e in self:
            key = (e.key, str(e.input_shapes) if group_by_input_shapes else "")
            groups.setdefault(key, FunctionEventAvg()).add(e)
        return EventList(groups.values(), with_shapes=group_by_input_shapes)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def export_chrome_trace(self, path: str) -> None:
        """Writes the events as Chrome trace JSON (``chrome://tracing``, Perfetto)."""
        pid = os.getpid()
        trace = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                raise RuntimeError("export_chrome_trace needs the events themselves, not their averages")
            args: Dict[str, Any] = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            trace.append(
                {
                    "ph": "X",
                    "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                    "name": e.trace_name,
                    "pid": pid,
                    "tid": e.thread,
                    "ts": e.time_range[0],
                    "dur": e.cpu_time_total,
                    "args": args,
                }
            )
        doc = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)

    def __str__(self) -> str:
        return self.table()

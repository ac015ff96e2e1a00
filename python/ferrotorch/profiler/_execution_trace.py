"""``ExecutionTraceObserver``: the ops a program ran, as a JSON graph of nodes (PyTorch's
execution-trace format: one node per op with its parent, name and input shapes), built from
the same Rust op recorder the profiler reads."""

from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable, List, Optional

from .. import _core
from ..autograd.profiler_util import events_from_raw

_SCHEMA = "1.1.1-chakra.0.0.4"


class ExecutionTraceObserver:
    """Records an execution trace between ``start()`` and ``stop()`` (or while attached to a
    ``profile(execution_trace_observer=...)``) and writes it to the registered file when
    ``unregister_callback()`` (or ``cleanup()``) runs."""

    def __init__(self) -> None:
        self._path: Optional[str] = None
        self._registered = False
        self._running = False
        self._owns_recorder = False
        self._nodes: List[dict] = []
        self._start_ts = 0.0

    @staticmethod
    def build_execution_trace_obs_from_env() -> Optional["ExecutionTraceObserver"]:
        """An observer writing to a temporary file when ENABLE_PYTORCH_EXECUTION_TRACE=1."""
        if os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE", "0") != "1":
            return None
        import tempfile

        fd, path = tempfile.mkstemp(prefix="ferrotorch_et_", suffix=".json")
        os.close(fd)
        return ExecutionTraceObserver().register_callback(path)

    def register_callback(self, output_file_path: str) -> "ExecutionTraceObserver":
        """Sets the output file; returns the observer."""
        if not self._registered:
            self._path = output_file_path
            self._registered = True
        return self

    def unregister_callback(self) -> None:
        """Stops recording if needed and writes the trace file."""
        if self._running:
            self.stop()
        if self._registered and self._path is not None:
            self._write()
        self._registered = False

    @property
    def is_registered(self) -> bool:
        return self._registered

    def is_running(self) -> bool:
        return self._running

    def start(self) -> None:
        """Starts capturing ops (it shares the profiler's recorder when a profile runs)."""
        if not self._registered or self._running:
            return
        self._start_ts = time.time() * 1e3
        self._running = True
        self._owns_recorder = not _core._profiler_enabled()
        if self._owns_recorder:
            _core._profiler_start(True)

    def stop(self) -> None:
        """Stops capturing and keeps the recorded ops."""
        if not self._running:
            return
        self._running = False
        if self._owns_recorder:
            self._add(events_from_raw(_core._profiler_stop()))

    def get_output_file_path(self) -> Optional[str]:
        return self._path

    def get_resources_dir(self, can_create: bool = False) -> Optional[str]:
        """The directory beside the trace for extra data (``<trace>_resources``)."""
        if self._path is None:
            return None
        path = os.path.splitext(self._path)[0] + "_resources"
        if can_create:
            os.makedirs(path, exist_ok=True)
        return path if os.path.isdir(path) else None

    def cleanup(self) -> None:
        self.unregister_callback()

    def _add(self, events: Iterable[Any]) -> None:
        """Turns profiler events into trace nodes, parents before children; node 1 is the
        process root that top-level ops hang from."""
        ids = {}
        for e in events:
            ids[id(e)] = len(self._nodes) + 2
            parent = getattr(e, "cpu_parent", None)
            self._nodes.append(
                {
                    "id": ids[id(e)],
                    "name": e.name,
                    "ctrl_deps": ids.get(id(parent), 1) if parent is not None else 1,
                    "inputs": {"values": [], "shapes": [list(s) for s in e.input_shapes], "types": []},
                    "outputs": {"values": [], "shapes": [], "types": []},
                    "attrs": [
                        {"name": "rf_id", "type": "uint64", "value": ids[id(e)]},
                        {"name": "tid", "type": "uint64", "value": e.thread},
                        {"name": "dur", "type": "float", "value": e.time_range[1] - e.time_range[0]},
                    ],
                }
            )

    def _write(self) -> None:
        root = {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 0, "inputs": {}, "outputs": {}, "attrs": []}
        trace = {
            "schema": _SCHEMA,
            "pid": os.getpid(),
            "time": time.strftime("%Y-%m-%d %H:%M:%S"),
            "start_ts": self._start_ts,
            "nodes": [root] + self._nodes,
            "finish_ts": time.time() * 1e3,
        }
        assert self._path is not None
        with open(self._path, "w") as f:
            json.dump(trace, f)

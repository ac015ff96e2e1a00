"""``SummaryWriter``: logs scalars, histograms and text for TensorBoard, one event file per
run directory (and one per series of ``add_scalars``), through tensorboard's EventFileWriter."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any, Dict, Optional, Sequence, Union

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes Event protos to one event file in ``log_dir``."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: Any, global_step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


class SummaryWriter:
    """Writes TensorBoard event files under ``log_dir`` (default
    ``runs/<Mon><DD>_<HH-MM-SS>_<hostname><comment>``).

    >>> from ferrotorch.utils.tensorboard import SummaryWriter  # doctest: +SKIP
    >>> with SummaryWriter("runs/demo") as w:  # doctest: +SKIP
    ...     w.add_scalar("loss", 0.5, global_step=1)
    """

    def __init__(self, log_dir: Optional[str] = None, comment: str = "", purge_step: Optional[int] = None, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: Optional[FileWriter] = None
        self.all_writers: Optional[Dict[str, FileWriter]] = None
        self.default_bins = _summary.tensorflow_bins()
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The run's writer, made again if the writer was closed."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # Tells TensorBoard to drop events of this run at or after purge_step.
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: Optional[int] = None, walltime: Optional[float] = None, new_style: bool = False, double_precision: bool = False) -> None:
        """One value of the series ``tag`` at ``global_step``."""
        summary = _summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: Dict[str, Any], global_step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        """Several series on one chart: each goes to its own run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        assert self.all_writers is not None
        for tag, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(path)
            if writer is None:
                writer = FileWriter(path, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[path] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: Optional[int] = None, bins: Union[str, Sequence[float]] = "tensorflow", walltime: Optional[float] = None, max_bins: Optional[int] = None) -> None:
        """A histogram of ``values``; ``bins`` is ``"tensorflow"`` or anything numpy.histogram takes."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(_summary.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        """Text (Markdown) under ``tag``."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    def flush(self) -> None:
        """Writes pending events of every run of this writer to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Flushes and closes every event file; a later add_* opens new ones."""
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

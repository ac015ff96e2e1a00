"""What a DataLoader worker knows about itself (``get_worker_info``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_current: list = [None]


def get_worker_info() -> Optional[WorkerInfo]:
    """Information about the current worker process, or None in the main process."""
    return _current[0]


def _set_worker_info(info: WorkerInfo) -> None:
    _current[0] = info

"""``ferrotorch.multiprocessing``: Python's ``multiprocessing`` with tensors that travel
between processes through shared memory.

Everything in ``multiprocessing`` is here under the same name (Process, Queue, Pool,
get_context, set_start_method ...). Sending a tensor through any of them moves its storage
into POSIX shared memory and sends a file descriptor: the receiver maps the same bytes, so
in-place changes are seen by both sides. Segments are unlinked as soon as they are
created, so nothing is left in /dev/shm, even when a process is killed; the memory is freed
when the last process mapping it lets go. Works with the fork, spawn and forkserver
start methods.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F403

from .. import _core
from .reductions import init_reductions
from .spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = [
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
    "check_shared_memory",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
    *multiprocessing.__all__,
]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def get_all_sharing_strategies() -> set:
    """The accepted sharing strategies. Both are served by descriptor passing: segments
    never get a lasting name, so "file_system" needs no cleanup daemon."""
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The current sharing strategy."""
    return _strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Sets the sharing strategy ("file_descriptor" or "file_system")."""
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"set_sharing_strategy: unknown strategy {new_strategy!r}; expected one of {sorted(_STRATEGIES)}")
    _strategy[0] = new_strategy


def check_shared_memory(nbytes: int) -> None:
    """Raises RuntimeError, saying how to enlarge /dev/shm, if it cannot hold ``nbytes``."""
    _core._check_shm_capacity(int(nbytes))


init_reductions()

"""``spawn``: start ``nprocs`` processes running ``fn(i, *args)`` and join them, turning a
failure in any of them into an exception in the parent (with the child's traceback)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import traceback
from typing import Any, Callable, List, Optional, Tuple


class ProcessException(Exception):
    """A spawned process failed."""

    def __init__(self, msg: str, error_index: int, pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: Optional[str] = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Callable[..., Any], i: int, args: Tuple[Any, ...], error_conn: Any) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_conn.send(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    """The processes started by ``start_processes``; ``join`` waits for them."""

    def __init__(self, processes: List[Any], error_conns: List[Any]) -> None:
        # Pipes rather than queues carry the tracebacks: they need no named semaphores.
        self.processes, self.error_conns = processes, error_conns
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> List[int]:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds; True once all processes finished successfully.
        A failed process stops the others and raises ProcessRaisedException or
        ProcessExitedException."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for s in ready:
            i = self.sentinels.pop(s)
            p = self.processes[i]
            p.join()
            if p.exitcode != 0 and failed is None:
                failed = i
        if failed is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        p = self.processes[failed]
        conn = self.error_conns[failed]
        if conn.poll():
            tb = conn.recv()
            raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n{tb}", failed, p.pid)
        code = p.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, p.pid, code, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {code}", failed, p.pid, code)


def start_processes(fn: Callable[..., Any], args: Tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn") -> Optional[ProcessContext]:
    """Starts ``nprocs`` processes running ``fn(i, *args)`` with the given start method."""
    ctx = multiprocessing.get_context(start_method)
    processes, conns = [], []
    for i in range(nprocs):
        reader, writer = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_wrap, args=(fn, i, args, writer), daemon=daemon)
        p.start()
        writer.close()
        processes.append(p)
        conns.append(reader)
    context = ProcessContext(processes, conns)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn: Callable[..., Any], args: Tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn") -> Optional[ProcessContext]:
    """``torch.multiprocessing.spawn``: ``start_processes`` with the spawn method by default."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)

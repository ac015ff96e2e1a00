"""``Work``: the handle of an operation in flight (``async_op=True``, ``isend``/``irecv``).

An operation is a generator over stages: it yields the MPI requests of a stage (first the
shape/dtype headers, then the data) and resumes when they complete. ``wait()`` drives it,
polling the requests against the group's timeout, so nothing ever blocks inside MPI.
"""

from __future__ import annotations

import os
import time
from datetime import timedelta
from typing import Any, Callable, Generator, List, Optional

from ._errors import DistBackendError

Steps = Generator[list, None, None]


class Work:
    """A collective or point-to-point operation that may still be running.

    ``wait()`` blocks until it is done (raising its error, if any); ``is_completed()``
    asks without blocking.
    """

    def __init__(self, group: Any, op_name: str, make_steps: Callable[["Work"], Steps], result: Optional[List[Any]] = None, ordered: bool = True, blocking: bool = False) -> None:
        self._group, self.op_name = group, op_name
        self._result = result if result is not None else []
        self._ordered = ordered  # collectives must post their data stage in call order
        self._blocking = blocking  # a blocking call runs its data stage with MPI's blocking collective
        self._requests: list = []
        self._started = False  # the header stage is posted at creation
        self._data_posted = False
        self._done = False
        self._error: Optional[BaseException] = None
        self._source_rank = -1
        self._future: Any = None
        self.waiting_on: Callable[[], List[int]] = lambda: []  # ranks a header stage still awaits
        self._steps = make_steps(self)
        group._track(self)
        self._advance()

    # -- driving ---------------------------------------------------------------------------
    def _advance(self) -> None:
        self._group._posting_blocking = self._blocking
        try:
            self._requests = self._steps.send(None)
            if self._started:
                self._data_posted = True
            self._started = True
        except StopIteration:
            self._finish(None)
        except BaseException as e:  # a mismatch found in the headers, or an engine error
            self._finish(e)
        finally:
            self._group._posting_blocking = False

    def _finish(self, error: Optional[BaseException]) -> None:
        self._done, self._error, self._requests = True, error, []
        self._group._forget(self)
        if self._future is not None and not self._future._done:
            self._future._complete(None if error else self._result, error)

    def _poll(self, may_post: bool) -> None:
        """Advances past every stage whose requests completed; posts data only if ``may_post``."""
        from mpi4py import MPI

        while not self._done and MPI.Request.Testall(self._requests):
            if not self._data_posted and not may_post:
                return
            self._advance()

    # -- PyTorch's Work API ----------------------------------------------------------------
    def is_completed(self) -> bool:
        """True once the operation finished (successfully or not); never blocks."""
        if not self._done:
            self._group._progress()
        return self._done

    def is_success(self) -> bool:
        """True if the operation completed without error."""
        return self.is_completed() and self._error is None

    def exception(self) -> Optional[BaseException]:
        """The error the operation ended with, if any."""
        return self._error

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        """Blocks until done; raises the operation's error, or DistBackendError past the timeout."""
        limit = self._group.timeout_s if timeout is None or timeout == timedelta(0) else timeout.total_seconds()
        start = time.monotonic()
        deadline = start + limit
        pause = 0.0
        with self._group.waiting(self):
            while not self._done:
                self._group._progress()
                if self._done:
                    break
                if time.monotonic() > deadline:
                    self._group._break()
                    raise DistBackendError(self._timeout_message(limit))
                # Poll hard at first (MPI advances nonblocking requests only inside calls),
                # yielding the core to other ranks; then back off so idle ranks sleep.
                waited = time.monotonic() - start
                if waited < 0.002:
                    continue
                if waited < 0.05:
                    os.sched_yield()
                else:
                    pause = min(pause * 2 or 1e-4, 2e-3)
                    time.sleep(pause)
        if self._error is not None:
            raise self._error
        return True

    def _timeout_message(self, limit: float) -> str:
        g = self._group
        missing = self.waiting_on() if not self._data_posted else []
        who = f"rank(s) {missing}" if missing else "the other ranks to finish the data exchange"
        return (
            f"ferrotorch.distributed: {self.op_name} on rank {g.global_rank} timed out after {limit:g} s "
            f"waiting for {who} (a rank died, hangs, or did not call {self.op_name}); the process group is now unusable"
        )

    def synchronize(self) -> None:
        """Same as ``wait()`` for CPU work."""
        self.wait()

    def result(self) -> List[Any]:
        """The output tensors of the operation."""
        self.wait()
        return self._result

    def get_future(self) -> Any:
        """A ``ferrotorch.futures.Future`` that completes with the output tensors (or the
        error) when this operation does; ``wait()`` on it drives the operation."""
        from ..futures import Future

        if self._future is None:
            fut: Future = Future()
            self._future = fut
            if self._done:
                fut._complete(None if self._error else self._result, self._error)
            else:

                def drive() -> None:
                    try:
                        self.wait()
                    except Exception as e:  # noqa: BLE001 - the Future carries it
                        if not fut._done:  # a timeout: the Work itself never finished
                            fut._complete(None, e)

                fut._drive, fut._poll = drive, self.is_completed
        return self._future

    def source_rank(self) -> int:
        """The rank a completed ``irecv`` received from."""
        self.wait()
        return self._source_rank


class CompletedWork(Work):
    """A Work that is already done (world size 1, or nothing to send)."""

    def __init__(self, result: Optional[List[Any]] = None) -> None:  # noqa: D107
        self._result = result or []
        self._done, self._error, self._data_posted, self._source_rank = True, None, True, -1
        self._future = None
        self.op_name = "noop"

    def is_completed(self) -> bool:
        return True

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        return True

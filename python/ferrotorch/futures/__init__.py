"""``ferrotorch.futures``: PyTorch's ``Future``, the handle of a value that arrives later.

``dist.all_reduce(t, async_op=True).get_future()`` returns one. Our distributed engine moves
data only when a rank polls it, so a Future tied to a Work completes (and runs its
callbacks) when some call waits on or polls the group, or when ``wait()`` is called on it.

>>> from ferrotorch.futures import Future
>>> f = Future()
>>> g = f.then(lambda fut: fut.value() + 1)
>>> f.set_result(1)
>>> g.wait()
2
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, Generic, List, Optional, TypeVar

T = TypeVar("T")
S = TypeVar("S")

__all__ = ["Future", "collect_all", "wait_all"]


class Future(Generic[T]):
    """A value (or error) that becomes available once; ``wait()`` returns it, ``then()``
    chains work on it, ``set_result``/``set_exception`` complete it."""

    def __init__(self, *, devices: Optional[List[Any]] = None) -> None:
        self._cond = threading.Condition()
        self._done = False
        self._value: Any = None
        self._error: Optional[BaseException] = None
        self._callbacks: List[Callable[["Future[T]"], None]] = []
        # Something that makes progress towards completion (a Work's wait), run by wait()/done().
        self._drive: Optional[Callable[[], None]] = None
        self._poll: Optional[Callable[[], None]] = None

    # -- asking ---------------------------------------------------------------------------
    def done(self) -> bool:
        """True once a result or an error is set; never blocks."""
        if not self._done and self._poll is not None:
            self._poll()
        return self._done

    def wait(self) -> T:
        """Blocks until the Future completes; returns its value or raises its error."""
        if not self._done and self._drive is not None:
            self._drive()
        with self._cond:
            while not self._done:
                self._cond.wait()
        return self.value()

    def value(self) -> T:
        """The value of a completed Future (raises its error); RuntimeError if not completed."""
        if not self._done:
            raise RuntimeError("Future.value(): the Future has not completed yet; call wait() first")
        if self._error is not None:
            raise self._error
        return self._value

    # -- completing -----------------------------------------------------------------------
    def set_result(self, result: T) -> None:
        """Completes the Future with ``result`` and runs its callbacks."""
        self._complete(result, None)

    def set_exception(self, result: T) -> None:
        """Completes the Future with the exception ``result``; ``wait()`` will raise it."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception: expected an exception, got {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, value: Any, error: Optional[BaseException]) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can only be marked completed once.")
            self._done, self._value, self._error = True, value, error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    # -- chaining -------------------------------------------------------------------------
    def add_done_callback(self, callback: Callable[["Future[T]"], None]) -> None:
        """Runs ``callback(self)`` once the Future completes (now, if it has); its errors are
        reported as warnings, as nothing waits on its result."""

        def guarded(fut: "Future[T]") -> None:
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001 - a callback's error must not break completion
                warnings.warn(f"Future.add_done_callback: the callback raised {type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)

        self._on_done(guarded)

    def then(self, callback: Callable[["Future[T]"], S]) -> "Future[S]":
        """A new Future holding ``callback(self)``, run once this one completes; an error in
        the callback completes the new Future with a RuntimeError that names it."""
        child: Future[S] = Future()
        child._drive, child._poll = self._quiet_drive, self.done

        def run(fut: "Future[T]") -> None:
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - handed to whoever waits on the child
                child.set_exception(RuntimeError(f"Got the following error when running the callback: {type(e).__name__}: {e}"))
                return
            child.set_result(result)

        self._on_done(run)
        return child

    def _on_done(self, cb: Callable[["Future[T]"], None]) -> None:
        with self._cond:
            if not self._done:
                self._callbacks.append(cb)
                return
        cb(self)

    def _quiet_drive(self) -> None:
        """Drives this Future to completion; its error stays in it (for chained Futures)."""
        if self._drive is not None and not self._done:
            self._drive()

    def __repr__(self) -> str:
        return f"<ferrotorch.futures.Future done={self._done}>"


def collect_all(futures: List[Future]) -> Future[List[Future]]:
    """A Future that completes, with the list ``futures``, once every one of them has (with
    the first error among them, if any)."""
    out: Future[List[Future]] = Future()
    futures = list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            error = next((f._error for f in futures if f._error is not None), None)
            out._complete(None if error else futures, error)

    def drive() -> None:
        for f in futures:
            f._quiet_drive()

    out._drive = drive
    out._poll = lambda: [f.done() for f in futures] and None
    if not futures:
        out.set_result([])
    for f in futures:
        f._on_done(one_done)
    return out


def wait_all(futures: List[Future]) -> List[Any]:
    """Waits for every Future and returns their values; raises the first error met."""
    collect_all(futures).wait()
    return [f.wait() for f in futures]

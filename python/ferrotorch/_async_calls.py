"""``torch.fork`` / ``torch.wait``, TorchScript's asynchronous calls, run eagerly: outside a
scripted function PyTorch runs the callee at once and wraps the result in a completed
``Future``, and ferrotorch does the same (its ``futures.Future``)."""

from __future__ import annotations

from typing import Any, Callable, Tuple

from .futures import Future


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """Calls ``func(*args, **kwargs)`` now; returns a completed Future holding its result."""
    fut: Future = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future: Future) -> Any:
    """The value of a Future (waits for it)."""
    if not isinstance(future, Future):
        raise TypeError(
            "wait(): incompatible function arguments. The following argument types are supported:\n"
            f"    1. (arg0: torch._C.Future) -> object\n\nInvoked with: {future!r}"
        )
    return future.wait()


__all__: Tuple[str, ...] = ("fork", "wait")
METHODS: Tuple[Any, ...] = ()

"""Grad-mode context managers and decorators: no_grad, enable_grad, set_grad_enabled,
inference_mode."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from . import _core

F = TypeVar("F", bound=Callable[..., Any])


class _DecoratorContextManager:
    """A context manager that can also decorate a function (a fresh instance per call)."""

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> "_DecoratorContextManager":
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disables gradient recording inside the block.

    >>> import ferrotorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __enter__(self) -> None:
        self.prev = _core.is_grad_enabled()
        _core._set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        _core._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enables gradient recording inside the block (for use inside ``no_grad``)."""

    def __enter__(self) -> None:
        self.prev = _core.is_grad_enabled()
        _core._set_grad_enabled(True)

    def __exit__(self, *exc: Any) -> None:
        _core._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off; takes effect immediately, and as a context manager restores
    the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _core.is_grad_enabled()
        self.mode = bool(mode)
        _core._set_grad_enabled(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _core._set_grad_enabled(self.prev)

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and ``is_inference_mode_enabled()`` reports True inside."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __call__(self, func: Any) -> Any:  # type: ignore[override]
        if isinstance(func, bool):
            return self.__class__(func)
        return super().__call__(func)

    def __enter__(self) -> None:
        self.prev = _core._enter_inference_mode(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _core._restore_inference_mode(self.prev)

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)


def is_inference(input: Any) -> bool:
    """Whether ``input`` is an inference tensor: allocated under ``inference_mode()``, or a
    view of such a tensor."""
    if not isinstance(input, _core.Tensor):
        kind = type(input)
        name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {name}")
    return input.is_inference()

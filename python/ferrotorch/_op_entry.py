"""The entry of ops written in Python: autocast casts their tensor arguments by the op's
policy (PyTorch's aten name), and the profiler times them, as the Rust bindings do for the ops
bound there. While neither is on, the cost is one call into Rust."""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, Union

from . import _core

F = TypeVar("F", bound=Callable[..., Any])
OpName = Union[str, Callable[..., Optional[str]]]

_AUTOCAST = 1
_PROFILER = 2


def _tensor_args(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[List[int], List[str], List[Any]]:
    Tensor = _core.Tensor
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    keys = [k for k, v in kwargs.items() if isinstance(v, Tensor)]
    return pos, keys, [args[i] for i in pos] + [kwargs[k] for k in keys]


def _run_autocast(name: str, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    pos, keys, tensors = _tensor_args(args, kwargs)
    cast = _core._autocast_inputs(name, *tensors) if tensors else None
    if cast is None:
        return fn(*args, **kwargs)
    new_args = list(args)
    for i, t in zip(pos, cast):
        new_args[i] = t
    new_kwargs = dict(kwargs)
    for k, t in zip(keys, cast[len(pos) :]):
        new_kwargs[k] = t
    # As PyTorch's autocast kernels do: the ops this one is made of are not cast again.
    state = _core._autocast_suspend()
    try:
        return fn(*new_args, **new_kwargs)
    finally:
        _core._autocast_restore(state)


def _run_hooked(hooks: int, name: Optional[str], fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if name is None:
        return fn(*args, **kwargs)
    if hooks & _PROFILER:
        shapes = [list(t.shape) for t in _tensor_args(args, kwargs)[2]]
        handle = _core._profiler_begin("aten::" + name, shapes)
        try:
            if hooks & _AUTOCAST:
                return _run_autocast(name, fn, args, kwargs)
            return fn(*args, **kwargs)
        finally:
            _core._profiler_end(handle)
    return _run_autocast(name, fn, args, kwargs)


def op_entry(name: OpName) -> Callable[[F], F]:
    """Marks ``fn`` as the op ``name`` for autocast and the profiler. ``name`` may be a callable
    of the op's arguments that returns the aten name, or None when this call is no such op."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def entry(*args: Any, **kwargs: Any) -> Any:
            hooks = _core._op_hooks()
            if not hooks:
                return fn(*args, **kwargs)
            op = name if isinstance(name, str) else name(*args, **kwargs)
            return _run_hooked(hooks, op, fn, args, kwargs)

        return entry  # type: ignore[return-value]

    return decorate

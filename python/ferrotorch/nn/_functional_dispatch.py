"""The ``__torch_function__`` protocol helpers ``torch.nn.functional`` exports, and two small
helpers of its own (``boolean_dispatch``, ``assert_int_or_pair``).

ferrotorch's ops do not dispatch on ``__torch_function__`` themselves; these let code written
against PyTorch's protocol (libraries' own functionals) ask whether an argument overrides and
hand the call to the override, as PyTorch's versions do."""

from __future__ import annotations

from typing import Any, Callable, Iterable, List

from .. import _core

Tensor = _core.Tensor


def _overrides(obj: Any) -> bool:
    """Whether ``obj``'s type brings its own ``__torch_function__`` (plain tensors and
    Parameters do not)."""
    kind = type(obj)
    if kind is Tensor:
        return False
    return getattr(kind, "__torch_function__", None) is not None


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """True if any of ``relevant_args`` implements ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(input: Any) -> bool:
    """``has_torch_function((input,))`` for one argument."""
    return _overrides(input)


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)`` with the arguments passed directly."""
    return any(_overrides(a) for a in args)


def _overloaded_args(relevant_args: Iterable[Any]) -> List[Any]:
    """One argument per overriding type, subclasses before their base classes, otherwise in
    the order they appear."""
    found: List[Any] = []
    types: List[type] = []
    for arg in relevant_args:
        kind = type(arg)
        if kind in types or not _overrides(arg):
            continue
        position = len(found)
        for i, other in enumerate(found):
            if issubclass(kind, type(other)):
                position = i
                break
        found.insert(position, arg)
        types.insert(position, kind)
    return found


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
    """Calls the ``__torch_function__`` of the overriding arguments in turn with
    ``(public_api, types, args, kwargs)``; returns the first result that is not
    ``NotImplemented``. TypeError when every override declines."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{getattr(public_api, '__module__', '')}.{getattr(public_api, '__name__', public_api)}".replace(
        "ferrotorch", "torch"
    )
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: {[type(a) for a in overloaded]}"
    )


def boolean_dispatch(
    arg_name: str,
    arg_index: int,
    default: bool,
    if_true: Callable[..., Any],
    if_false: Callable[..., Any],
    module_name: Any,
    func_name: str,
) -> Callable[..., Any]:
    """A function that calls ``if_true`` or ``if_false`` by the boolean argument ``arg_name``
    (keyword, or positional at ``arg_index``; ``default`` when absent), e.g. ``max_pool2d``
    dispatching on ``return_indices``."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
        fn.__qualname__ = func_name
    fn.__doc__ = if_true.__doc__ or if_false.__doc__
    return fn


def assert_int_or_pair(arg: Any, arg_name: str, message: str) -> None:
    """Asserts ``arg`` is an int or has two entries; ``message.format(arg_name)`` otherwise."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """``torch.conv_tbc`` (1-D convolution over (time, batch, channels) input) under F."""
    # Imported on call: torch.conv_tbc's module imports this package while it loads.
    from .._functional_aliases import conv_tbc as _conv_tbc

    return _conv_tbc(input, weight, bias, pad)


__all__ = [
    "conv_tbc",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "handle_torch_function",
    "boolean_dispatch",
    "assert_int_or_pair",
]

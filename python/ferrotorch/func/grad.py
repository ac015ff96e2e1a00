"""``torch.func.grad`` and ``grad_and_value``: the gradient of a scalar function as a function."""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _core
from .._grad_mode import enable_grad
from ..utils._pytree import tree_unflatten
from ._levels import (
    Argnums,
    Level,
    check_argnums,
    check_tensors,
    grads_of,
    replace_args,
    select_args,
    wrap_tree,
)

Tensor = _core.Tensor


def _split_aux(output: Any, has_aux: bool, api: str) -> Any:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def grad_and_value(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """Like :func:`grad`, and the function's value too: the wrapped function returns
    ``(gradient, value)``, or ``(gradient, (value, aux))`` with ``has_aux``.

    >>> import ferrotorch as torch
    >>> g, v = torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api = "grad_and_value(f)(*args)"
        check_argnums(argnums, len(args))
        level = Level(_core.is_grad_enabled())
        with enable_grad():
            diff_args, wrapped, spec = wrap_tree(select_args(args, argnums))
            level.own(wrapped)
            output = func(*replace_args(args, argnums, diff_args), **kwargs)
            output, aux = _split_aux(output, has_aux, api)
            if has_aux:
                check_tensors(aux, "Expected tensors, ")
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with {output.dim()} dims. "
                    "Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            grads = grads_of([output], wrapped, [_core.ones_like(output)], level.tracks([output]))
        grads = level.lift(tree_unflatten(grads, spec))
        value = level.lift(output)
        if has_aux:
            return grads, (value, level.lift(aux))
        return grads, value

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``func`` (which returns a scalar tensor) with respect to the
    positional argument(s) named by ``argnums``, as a function of the same arguments.
    Works under ``no_grad`` (the transform records what it needs), composes with itself and
    with :func:`vmap`, and leaves ``.grad`` of the inputs untouched.

    >>> import ferrotorch as torch
    >>> torch.func.grad(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = inner(*args, **kwargs)
        if has_aux:
            return grads, value[1]
        return grads

    return wrapper

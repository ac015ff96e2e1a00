"""``torch.func.vjp``: a function's output and a function that maps cotangents of the output
to cotangents of the inputs (vector-Jacobian products)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import _core
from .._grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from ._levels import Level, check_tensors, grads_of, wrap_tree

Tensor = _core.Tensor


def check_float_outputs(outputs: Any) -> None:
    for o in outputs:
        if not (o.dtype.is_floating_point or o.dtype.is_complex):
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype {o.dtype}")


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """Runs ``func(*primals)`` and returns ``(output, vjp_fn)`` (and ``aux`` with
    ``has_aux``); ``vjp_fn(cotangents)``, with cotangents shaped like the output, returns a
    tuple with one cotangent per primal. ``vjp_fn`` may be called many times.

    >>> import ferrotorch as torch
    >>> out, vjp_fn = torch.func.vjp(torch.sin, torch.tensor([0.0, 1.0]))
    >>> vjp_fn(torch.ones(2))
    (tensor([1.0000, 0.5403]),)
    """
    level = Level(_core.is_grad_enabled())
    with enable_grad():
        wrapped_primals, wrapped, primals_spec = wrap_tree(primals)
        level.own(wrapped)
        output = func(*wrapped_primals)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
            check_tensors(aux, "Expected tensors, ")
        flat_out = check_tensors(output, "vjp(f, *primals): expected f(*primals) to return only tensors, ")
        check_float_outputs(flat_out)
    _, out_spec = tree_flatten(output)
    outputs_tracked: Optional[bool] = None

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: Optional[bool] = None) -> Any:
        nonlocal outputs_tracked
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                f"the function. cotangents: {treespec_pprint(ct_spec)}, primal output: {treespec_pprint(out_spec)}"
            )
        check_float_outputs(flat_out)
        caller = Level(_core.is_grad_enabled())
        caller.private = level.private
        if create_graph is None:
            if outputs_tracked is None:
                outputs_tracked = level.tracks(flat_out)
            create_graph = caller.outer_grad_enabled and (outputs_tracked or caller.tracks(flat_ct))
        with enable_grad():
            grads = grads_of(flat_out, wrapped, flat_ct, create_graph)
        if not create_graph:
            grads = [g.detach() for g in grads]
        return caller.lift(tree_unflatten(grads, primals_spec))

    if has_aux:
        return level.lift(output), vjp_fn, level.lift(aux)
    return level.lift(output), vjp_fn

"""``torch.func.jacfwd``: the Jacobian column by column, one Jacobian-vector product per input
element (forward mode, computed by reverse mode twice as in :mod:`.jvp`)."""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Sequence

from .. import _core
from .._grad_mode import enable_grad
from ..utils._pytree import tree_flatten
from ._levels import Argnums, Level, check_argnums, check_tensors, replace_args, select_args, wrap_tree
from ._randomness import RandomnessGuard, check_mode
from .jacrev import assemble, basis_rows
from .jvp import linearized_jvps

Tensor = _core.Tensor


def jacobian_columns(outputs: Sequence[Tensor], inputs: Sequence[Tensor], create_graph: bool) -> List[List[Tensor]]:
    """d outputs[k] / d inputs[j], shaped ``outputs[k].shape + inputs[j].shape``."""
    push = linearized_jvps(outputs, inputs)
    blocks: List[List[Tensor]] = [[] for _ in outputs]
    for j, x in enumerate(inputs):
        zeros = [_core.zeros_like(y) for y in inputs]
        columns = []
        for e in basis_rows(x):
            tangents = list(zeros)
            tangents[j] = e
            columns.append(push(tangents, create_graph))
        for k, o in enumerate(outputs):
            shape = tuple(o.shape) + tuple(x.shape)
            if not columns:
                blocks[k].append(_core.zeros(shape, dtype=o.dtype))
            else:
                blocks[k].append(_core.stack([c[k] for c in columns], dim=-1).reshape(shape))
    return blocks


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the argument(s) named by ``argnums``, by
    forward mode; the same values and structure as :func:`jacrev`. ``randomness`` is as in
    :func:`vmap` ('error' refuses random operations in ``func``).

    >>> import ferrotorch as torch
    >>> torch.func.jacfwd(lambda x: x.sin())(torch.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        check_mode(randomness)
        check_argnums(argnums, len(args))
        level = Level(_core.is_grad_enabled())
        with enable_grad():
            diff_args, wrapped, in_spec = wrap_tree(select_args(args, argnums))
            level.own(wrapped)
            output = RandomnessGuard(randomness).call(func, *replace_args(args, argnums, diff_args), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) if has_aux is True")
                output, aux = output
                check_tensors(aux, "Expected tensors, ")
            flat_out = check_tensors(output, "jvp(f, primals, tangents): expected f(*primals) to return only tensors, ")
            blocks = jacobian_columns(flat_out, wrapped, level.tracks(flat_out))
        jac = level.lift(assemble(blocks, tree_flatten(output)[1], in_spec))
        return (jac, level.lift(aux)) if has_aux else jac

    return wrapper

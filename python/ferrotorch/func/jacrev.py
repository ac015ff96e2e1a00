"""``torch.func.jacrev``: the Jacobian by reverse mode, one vector-Jacobian product per output
element."""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional, Sequence

from .. import _core
from .._grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_unflatten
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
from .vjp import check_float_outputs

Tensor = _core.Tensor


def assemble(per_output: Sequence[Sequence[Tensor]], out_spec: Any, in_spec: Any) -> Any:
    """Blocks ``per_output[k][j]`` (d output k / d input j) as the tree PyTorch returns: the
    output's structure, and inside each output leaf the inputs' structure."""
    return tree_unflatten([tree_unflatten(list(blocks), in_spec) for blocks in per_output], out_spec)


def basis_rows(o: Tensor) -> Tensor:
    """The standard basis of ``o``'s space, one row per element, each shaped like ``o``."""
    n = o.numel()
    return _core.eye(n, dtype=o.dtype).reshape((n,) + tuple(o.shape))


def jacobian_rows(outputs: Sequence[Tensor], inputs: Sequence[Tensor], create_graph: bool) -> List[List[Tensor]]:
    """d outputs[k] / d inputs[j], shaped ``outputs[k].shape + inputs[j].shape``."""
    blocks: List[List[Tensor]] = []
    for o in outputs:
        shape = tuple(o.shape)
        if o.numel() == 0 or not o.requires_grad:
            blocks.append([_core.zeros(shape + tuple(x.shape), dtype=x.dtype) for x in inputs])
            continue
        rows: List[List[Tensor]] = [grads_of([o], inputs, [e], create_graph) for e in basis_rows(o)]
        blocks.append([_core.stack([r[j] for r in rows]).reshape(shape + tuple(x.shape)) for j, x in enumerate(inputs)])
    return blocks


def jacrev(
    func: Callable[..., Any],
    argnums: Argnums = 0,
    *,
    has_aux: bool = False,
    chunk_size: Optional[int] = None,
    _preallocate_and_copy: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the argument(s) named by ``argnums``, by
    reverse mode. For an output of shape ``O`` and an input of shape ``I`` the block has shape
    ``O + I``; pytrees of outputs and inputs give nested results (outputs outside).
    ``chunk_size`` is accepted; rows are computed one at a time.

    >>> import ferrotorch as torch
    >>> torch.func.jacrev(lambda x: x ** 2)(torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        check_argnums(argnums, len(args))
        level = Level(_core.is_grad_enabled())
        with enable_grad():
            diff_args, wrapped, in_spec = wrap_tree(select_args(args, argnums))
            level.own(wrapped)
            output = func(*replace_args(args, argnums, diff_args), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is True")
                output, aux = output
                check_tensors(aux, "Expected tensors, ")
            flat_out = check_tensors(output, "vjp(f, *primals): expected f(*primals) to return only tensors, ")
            check_float_outputs(flat_out)
            blocks = jacobian_rows(flat_out, wrapped, level.tracks(flat_out))
        jac = level.lift(assemble(blocks, tree_flatten(output)[1], in_spec))
        return (jac, level.lift(aux)) if has_aux else jac

    return wrapper

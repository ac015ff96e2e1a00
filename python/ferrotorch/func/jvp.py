"""``torch.func.jvp``: Jacobian-vector products (forward mode) computed by reverse mode twice.

For ``out = f(x)``, ``g(u) = J^T u`` is linear in the cotangent ``u``, and its vector-Jacobian
product with the tangent ``v`` is ``J v``: one backward with ``create_graph`` builds ``g`` as a
function of a dummy ``u``, a second backward through it gives the JVP.
"""

from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

from .. import _core
from .._grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_unflatten
from ._levels import Level, check_tensors, grads_of, wrap_input

Tensor = _core.Tensor


def _check_primals(primals: Any, tangents: Any) -> Tuple[List[Tensor], List[Tensor]]:
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For example, if "
            "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{p_spec} and tangents with structure {t_spec}"
        )
    if not flat_p:
        raise RuntimeError(f"{api}: Expected primals to contain at least one Tensor.")
    for p, t in zip(flat_p, flat_t):
        for x, what in ((p, "primals"), (t, "tangents")):
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {what} to only contain Tensors, got {type(x)}")
        if not (p.dtype.is_floating_point or p.dtype.is_complex):
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original "
                f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                f"forward gradient is of size {list(t.shape)}."
            )
    return flat_p, flat_t


def linearized_jvps(outputs: Sequence[Tensor], inputs: Sequence[Tensor]) -> Callable[..., List[Tensor]]:
    """A function mapping tangents of ``inputs`` to tangents of ``outputs`` (``J v``), and
    ``create_graph`` for the result; built once, callable for many tangents."""
    us = [_core.zeros_like(o).requires_grad_() if o.requires_grad else None for o in outputs]
    g = grads_of(outputs, inputs, us, create_graph=True)

    def apply(tangents: Sequence[Tensor], create_graph: bool) -> List[Tensor]:
        pairs = [(gi, t) for gi, t in zip(g, tangents) if gi.requires_grad]
        live = [u for u in us if u is not None]
        if not pairs or not live:
            return [_core.zeros_like(o) for o in outputs]
        gs, ts = zip(*pairs)
        jv = iter(grads_of(list(gs), live, [t.to(gi.dtype) for gi, t in pairs], create_graph))
        return [next(jv) if u is not None else _core.zeros_like(o) for o, u in zip(outputs, us)]

    return apply


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> Any:
    """Runs ``func(*primals)`` and returns ``(output, jvp_out)`` where ``jvp_out`` is the
    directional derivative of the output along ``tangents`` (``(output, jvp_out, aux)`` with
    ``has_aux``). ``strict`` is accepted and, as in PyTorch, changes nothing.

    >>> import ferrotorch as torch
    >>> torch.func.jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([2.0]),))
    (tensor([0.]), tensor([2.]))
    """
    flat_p, flat_t = _check_primals(primals, tangents)
    level = Level(_core.is_grad_enabled())
    with enable_grad():
        wrapped = [wrap_input(p) for p in flat_p]
        level.own(wrapped)
        output = func(*tree_unflatten(wrapped, tree_flatten(primals)[1]))
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
            check_tensors(aux, "Expected tensors, ")
        flat_out, out_spec = tree_flatten(output)
        check_tensors(output, "jvp(f, primals, tangents): expected f(*primals) to return only tensors, ")
        create = level.tracks(flat_out) or level.tracks(flat_t)
        tangents_out = linearized_jvps(flat_out, wrapped)(flat_t, create)
    result = (level.lift(output), level.lift(tree_unflatten(tangents_out, out_spec)))
    return result + (level.lift(aux),) if has_aux else result

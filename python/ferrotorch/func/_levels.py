"""How the reverse-mode transforms nest on one tape.

Each call of a transform differentiates with respect to its own fresh aliases of the inputs
(a "level"): an input that the caller already tracks is aliased with a view, so the outer
level's gradient still flows through; an untracked one becomes a private leaf. Results are
kept differentiable only when they depend on something the caller tracks (a leaf that is not
this level's), as functorch's results are lifted back to the caller's level; otherwise they are
returned detached, so that neither the private leaves nor their graphs leak out.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Sequence, Set, Tuple, Union

from .. import _core
from ..utils._pytree import tree_flatten, tree_map, tree_unflatten

Tensor = _core.Tensor
Argnums = Union[int, Tuple[int, ...]]


def check_argnums(argnums: Any, nargs: int) -> Tuple[int, ...]:
    """``argnums`` as a tuple of non-negative positions, with PyTorch's errors."""
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    items = (argnums,) if isinstance(argnums, int) else argnums
    if not items:
        raise RuntimeError("argnums must be non-empty")
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(out)


def select_args(args: Sequence[Any], argnums: Argnums) -> Any:
    """The argument(s) named by ``argnums``: one pytree for an int, a tuple for a tuple."""
    if isinstance(argnums, int):
        return args[argnums % len(args)]
    return tuple(args[a % len(args)] for a in argnums)


def replace_args(args: Sequence[Any], argnums: Argnums, new: Any) -> Tuple[Any, ...]:
    out = list(args)
    if isinstance(argnums, int):
        out[argnums % len(args)] = new
    else:
        for a, v in zip(argnums, new):
            out[a % len(args)] = v
    return tuple(out)


def wrap_input(t: Any) -> Tensor:
    """This level's differentiable alias of an input tensor."""
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)
    return t.detach().requires_grad_()


def wrap_tree(tree: Any) -> Tuple[Any, List[Tensor], Any]:
    """``tree`` with every leaf wrapped, the flat list of wrapped leaves, and the tree's spec."""
    leaves, spec = tree_flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
    wrapped = [wrap_input(x) for x in leaves]
    return tree_unflatten(wrapped, spec), wrapped, spec


class Level:
    """One transform call: its private inputs and whether the caller records gradients."""

    def __init__(self, outer_grad_enabled: bool) -> None:
        self.outer_grad_enabled = outer_grad_enabled
        self.private: Set[int] = set()

    def own(self, tensors: Iterable[Tensor]) -> None:
        self.private.update(t._cdata() for t in tensors if t.grad_fn is None)

    def tracks(self, tensors: Iterable[Any]) -> bool:
        """True when the caller can differentiate some of ``tensors``: grad mode was on at the
        call and their graph reaches a leaf that is not this level's."""
        if not self.outer_grad_enabled:
            return False
        seen: Set[Any] = set()
        stack: List[Any] = []
        for t in tensors:
            if not isinstance(t, Tensor) or not t.requires_grad:
                continue
            if t.grad_fn is None:
                if t._cdata() not in self.private:
                    return True
                continue
            stack.append(t.grad_fn)
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            for nxt, _ in node.next_functions:
                if nxt is None:
                    continue
                variable = getattr(nxt, "variable", None)
                if variable is not None:
                    if variable._cdata() not in self.private:
                        return True
                elif nxt not in seen:
                    stack.append(nxt)
        return False

    def lift(self, tree: Any) -> Any:
        """``tree`` with each tensor kept if the caller tracks it, else detached."""
        return tree_map(lambda t: t if not isinstance(t, Tensor) or self.tracks([t]) else t.detach(), tree)


def check_tensors(tree: Any, what: str) -> List[Any]:
    """The leaves of ``tree``, which must all be tensors (``what`` prefixes the error)."""
    leaves, _ = tree_flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{what}got unsupported type {type(leaf)}")
    return leaves


def grads_of(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Any],
    create_graph: bool,
) -> List[Tensor]:
    """``autograd.grad`` that gives zeros (not errors) for inputs or outputs that are not
    connected, as the transforms do; keeps the graph for later calls."""
    from ..autograd import grad as autograd_grad

    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad and g is not None]
    if not pairs or not inputs:
        return [_core.zeros_like(x) for x in inputs]
    outs, gouts = zip(*pairs)
    return list(
        autograd_grad(
            list(outs),
            list(inputs),
            list(gouts),
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
            materialize_grads=True,
        )
    )

"""Nested Python containers (tuples, lists, dicts, namedtuples) as trees whose leaves are
everything else, as ``torch.utils._pytree``: function transforms flatten their inputs and
outputs to lists of leaves and rebuild them with the same structure.

>>> from ferrotorch.utils._pytree import tree_flatten, tree_unflatten
>>> leaves, spec = tree_flatten({"a": 1, "b": (2, [3])})
>>> leaves
[1, 2, 3]
>>> tree_unflatten([x * 10 for x in leaves], spec)
{'a': 10, 'b': (20, [30])}
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from typing import Any, Callable, Iterator, List, Optional, Tuple


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _node_kind(obj: Any) -> Optional[type]:
    """The container type that makes ``obj`` an inner node, or None for a leaf."""
    if _is_namedtuple(obj):
        return type(obj)
    for kind in (OrderedDict, defaultdict, dict, list, tuple):
        if type(obj) is kind:
            return kind
    return None


class TreeSpec:
    """The shape of a tree: the container type, its context (dict keys, namedtuple class) and
    one spec per child. A leaf's spec is ``LeafSpec()`` (printed ``*``)."""

    def __init__(self, type: Any, context: Any, children_specs: List["TreeSpec"]) -> None:
        self.type = type
        self.context = context
        self.children_specs = children_specs
        self.num_leaves: int = sum(c.num_leaves for c in children_specs)

    @property
    def num_children(self) -> int:
        return len(self.children_specs)

    def is_leaf(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.is_leaf() == other.is_leaf()
            and self.type is other.type
            and self.context == other.context
            and self.children_specs == other.children_specs
        )

    def __hash__(self) -> int:
        return hash((self.type, repr(self.context), tuple(self.children_specs)))

    def _type_name(self) -> str:
        return "namedtuple" if _is_namedtuple_type(self.type) else self.type.__name__

    def __repr__(self, indent: int = 0) -> str:
        # The same text as PyTorch's, since it appears in vmap's error messages.
        inner = indent + 2
        children = [c.__repr__(inner) for c in self.children_specs]
        body = (",\n" + " " * inner).join(children)
        return f"TreeSpec({self._type_name()}, {self.context}, [{body}])"


def _is_namedtuple_type(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


class LeafSpec(TreeSpec):
    """The spec of a leaf."""

    def __init__(self) -> None:
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self) -> bool:
        return True

    def __repr__(self, indent: int = 0) -> str:
        return "*"


def _children(obj: Any, kind: type) -> Tuple[List[Any], Any]:
    if issubclass(kind, dict):
        keys = list(obj.keys())
        context: Any = keys if kind is not defaultdict else (obj.default_factory, keys)
        return [obj[k] for k in keys], context
    if _is_namedtuple_type(kind):
        return list(obj), kind
    return list(obj), None


# The walkers below are module-level functions, not recursive closures: a recursive closure is
# a reference cycle that would keep the leaves (tensors and their graphs) alive until gc runs.


def _flatten_into(node: Any, leaves: List[Any]) -> TreeSpec:
    kind = _node_kind(node)
    if kind is None:
        leaves.append(node)
        return LeafSpec()
    kids, context = _children(node, kind)
    return TreeSpec(kind, context, [_flatten_into(k, leaves) for k in kids])


def tree_flatten(tree: Any) -> Tuple[List[Any], TreeSpec]:
    """The leaves of ``tree`` in order, and its spec."""
    leaves: List[Any] = []
    spec = _flatten_into(tree, leaves)
    return leaves, spec


def _build(spec: TreeSpec, it: Iterator[Any]) -> Any:
    if spec.is_leaf():
        return next(it)
    kids = [_build(c, it) for c in spec.children_specs]
    if spec.type is defaultdict:
        factory, keys = spec.context
        return defaultdict(factory, zip(keys, kids))
    if issubclass(spec.type, dict):
        return spec.type(zip(spec.context, kids))
    if _is_namedtuple_type(spec.type):
        return spec.type(*kids)
    return spec.type(kids)


def tree_unflatten(leaves: List[Any], spec: TreeSpec) -> Any:
    """Rebuilds a tree with ``spec``'s structure from its leaves."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a pytree that holds {spec.num_leaves} items ({spec}).")
    return _build(spec, iter(leaves))


def tree_leaves(tree: Any) -> List[Any]:
    """The leaves of ``tree`` in order."""
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> TreeSpec:
    """The spec of ``tree``."""
    return tree_flatten(tree)[1]


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``fn`` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def _broadcast_into(p: Any, s: TreeSpec, out: List[Any]) -> bool:
    kind = _node_kind(p)
    if kind is None:
        out.extend([p] * s.num_leaves)
        return True
    if s.is_leaf() or kind is not s.type:
        return False
    if issubclass(kind, dict):
        keys = s.context[1] if kind is defaultdict else s.context
        if set(p.keys()) != set(keys):
            return False
        return all(_broadcast_into(p[k], c, out) for k, c in zip(keys, s.children_specs))
    kids = list(p)
    if len(kids) != s.num_children:
        return False
    return all(_broadcast_into(k, c, out) for k, c in zip(kids, s.children_specs))


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> Optional[List[Any]]:
    """Expands ``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) to one
    value per leaf of ``spec``; None when ``prefix`` is not a prefix of ``spec``. Dicts are
    matched by key."""
    out: List[Any] = []
    return out if _broadcast_into(prefix, spec, out) else None


def treespec_pprint(spec: TreeSpec) -> str:
    """A short Python-like picture of a spec, leaves as ``*``: ``(*, [*, *])``."""
    if spec.is_leaf():
        return "*"
    kids = [treespec_pprint(c) for c in spec.children_specs]
    if issubclass(spec.type, dict):
        keys = spec.context[1] if spec.type is defaultdict else spec.context
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys, kids)) + "}"
    if spec.type is list:
        return "[" + ", ".join(kids) + "]"
    if spec.type is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    return f"{spec.type.__name__}(" + ", ".join(kids) + ")"


__all__ = [
    "LeafSpec",
    "TreeSpec",
    "broadcast_prefix",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "treespec_pprint",
]

"""``torch.nn.modules.utils``: the argument-tuple helpers layers use (``_pair`` and kin) and
``consume_prefix_in_state_dict_if_present``, which programs call to strip the ``module.`` or
``_orig_mod.`` prefix that DataParallel and torch.compile wrappers put on state_dict keys."""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Dict, List, Sequence, Tuple

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], Tuple[Any, ...]]:
    """A parser that keeps an iterable as a tuple and repeats a single value ``n`` times."""

    def parse(x: Any) -> Tuple[Any, ...]:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return (x,) * n

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Sequence[Any], n: int) -> Tuple[Any, ...]:
    """``t`` reversed with each element repeated ``n`` times, the layout F.pad takes."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: Sequence[int]) -> Any:
    """An output size whose ``None`` entries take the matching trailing input sizes."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: Dict[str, Any], prefix: str) -> None:
    """Strips ``prefix`` from the keys of ``state_dict`` that start with it, in place, and from
    the keys of its ``_metadata`` (the module named by the prefix itself becomes ``""``)."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    bare = prefix.replace(".", "")
    renamed: List[str] = [k for k in metadata if k and (k == bare or k.startswith(prefix))]
    for key in renamed:
        metadata[key[len(prefix) :]] = metadata.pop(key)

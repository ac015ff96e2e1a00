"""``torch.func.rearrange``: einops-style reordering (``"b (h w) c -> b c h w"``) as one
reshape, one permute and one reshape."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple, Union

from .. import _core

Tensor = _core.Tensor
Groups = List[List[str]]


class DimensionBindError(Exception):
    """Axis sizes that cannot be bound (PyTorch's ``functorch.dim.DimensionBindError``)."""


def _parse(side: str, pattern: str) -> Groups:
    """The axis groups of one side: names, ``(a b)`` compositions, ``...`` and ``1``/``()``."""
    groups: Groups = []
    current: Union[List[str], None] = None
    for token in side.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if current is not None:
                raise ValueError(f"rearrange: nested parentheses in pattern '{pattern}'")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"rearrange: unbalanced parentheses in pattern '{pattern}'")
            groups.append(current)
            current = None
        else:
            if not (token == "..." or token == "1" or token.isidentifier()):
                raise ValueError(f"rearrange: invalid axis name '{token}' in pattern '{pattern}'")
            names = [] if token == "1" else ["(...)" if token == "..." and current is not None else token]
            if current is None:
                groups.append(names)
            else:
                current.extend(names)
    if current is not None:
        raise ValueError(f"rearrange: unbalanced parentheses in pattern '{pattern}'")
    return groups


def _sizes(left: Groups, shape: Sequence[int], known: Dict[str, int], pattern: str) -> Dict[str, int]:
    """The size of every elementary axis on the left, inferring at most one per group."""
    if len(left) != len(shape):
        raise ValueError(f"rearrange: pattern '{pattern}' expects {len(left)} dims, but the input has {len(shape)}")
    sizes = dict(known)
    for group, dim in zip(left, shape):
        unknown = [n for n in group if n not in sizes]
        product = 1
        for n in group:
            if n in sizes:
                product *= sizes[n]
        if len(unknown) > 1:
            raise DimensionBindError(f"rearrange: could not infer sizes for {unknown} in pattern '{pattern}'")
        if unknown:
            if product == 0 or dim % product:
                raise DimensionBindError(f"rearrange: cannot divide axis of length {dim} into {group} in pattern '{pattern}'")
            sizes[unknown[0]] = dim // product
        elif product != dim:
            raise DimensionBindError(f"rearrange: shape mismatch, {dim} != {product} for {group} in pattern '{pattern}'")
    return sizes


def rearrange(tensor: Union[Tensor, Sequence[Tensor]], pattern: str, **axes_lengths: int) -> Tensor:
    """Reorders, merges and splits axes as ``einops.rearrange``: a sequence of tensors is
    stacked first; ``...`` stands for any number of axes.

    >>> import ferrotorch as torch
    >>> torch.func.rearrange(torch.zeros(2, 3, 4), "b h w -> b (h w)").shape
    torch.Size([2, 12])
    """
    if not isinstance(tensor, Tensor):
        tensor = _core.stack(list(tensor))
    if pattern.count("->") != 1:
        raise ValueError(f"rearrange: pattern '{pattern}' must contain one '->'")
    left_s, right_s = pattern.split("->")
    left, right = _parse(left_s, pattern), _parse(right_s, pattern)
    shape = tuple(tensor.shape)
    ellipsis = sum(g.count("...") + g.count("(...)") for g in left)
    if ellipsis > 1 or sum(g.count("...") + g.count("(...)") for g in right) != ellipsis:
        raise ValueError(f"rearrange: '...' must appear once on both sides or not at all in '{pattern}'")
    if ellipsis:
        at = next(i for i, g in enumerate(left) if "..." in g)
        if left[at] != ["..."]:
            raise ValueError(f"rearrange: '...' cannot be inside parentheses on the left of '{pattern}'")
        n_ell = len(shape) - (len(left) - 1)
        if n_ell < 0:
            raise ValueError(f"rearrange: pattern '{pattern}' expects at least {len(left) - 1} dims, but the input has {len(shape)}")
        names = [f"...{i}" for i in range(n_ell)]
        left = left[:at] + [[n] for n in names] + left[at + 1 :]
        # A bare '...' keeps its axes apart; '(...)' merges them into one.
        expanded: Groups = []
        for g in right:
            if g == ["..."]:
                expanded.extend([n] for n in names)
            else:
                expanded.append(sum((names if n == "(...)" else [n] for n in g), []))
        right = expanded
    left_names = [n for g in left for n in g]
    right_names = [n for g in right for n in g]
    if sorted(left_names) != sorted(right_names) or len(set(left_names)) != len(left_names):
        raise ValueError(f"rearrange: identifiers on the two sides of '{pattern}' differ or repeat")
    sizes = _sizes(left, shape, axes_lengths, pattern)
    flat: Tuple[int, ...] = tuple(sizes[n] for n in left_names)
    order = [left_names.index(n) for n in right_names]
    out_shape = []
    for g in right:
        size = 1
        for n in g:
            size *= sizes[n]
        out_shape.append(size)
    return tensor.reshape(flat).permute(order).reshape(out_shape)

"""``torch.empty_permuted``: an uninitialised tensor of logical shape ``size`` whose memory is
laid out in the order ``physical_layout`` (outermost dim first), e.g. ``(0, 2, 3, 1)`` for a
channels-last NCHW tensor. It is a contiguous tensor of the physical shape, permuted back."""

from __future__ import annotations

from typing import Any, Sequence, Tuple

from . import _core

Tensor = _core.Tensor


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An empty tensor of shape ``size`` whose strides follow ``physical_layout``."""
    size = tuple(int(s) for s in size)
    perm = tuple(int(p) for p in physical_layout)
    if len(size) != len(perm):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}"
        )
    n = len(size)
    norm = list(perm)
    for i, p in enumerate(norm):
        if not 0 <= p < n:  # PyTorch takes no negative dims here
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {n - 1}, but got {p} at index {i}).  "
                "NB: negative dims not currently supported; file an issue if you want it."
            )
    if len(set(norm)) != n:
        raise RuntimeError("Duplicate dim not allowed")
    phys = _core.empty(tuple(size[p] for p in norm), dtype=dtype, device=device)
    inverse = [0] * n
    for i, p in enumerate(norm):
        inverse[p] = i
    out = phys.permute(inverse) if n else phys
    return out.requires_grad_(True) if requires_grad else out


__all__: Tuple[str, ...] = ("empty_permuted",)
METHODS: Tuple[Any, ...] = ()

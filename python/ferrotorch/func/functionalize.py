"""``torch.func.functionalize`` and ``debug_unwrap``: transforms whose eager result is the
function's own (ferrotorch runs mutations eagerly and has no wrapper tensors to unwrap)."""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _core


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``func`` with the same results: PyTorch removes intermediate mutations for its graph
    compilers; eager execution already gives the values that removal preserves."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
            "Valid options are:\n     remove='mutations': all inplace and out= operators will be removed "
            "from the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing operators "
            "{view} will be replaced with their non-aliasing counterparts, {view}_copy.\n"
        )

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapped


def debug_unwrap(tensor: _core.Tensor, *, recurse: bool = True) -> _core.Tensor:
    """The tensor itself: ferrotorch's transforms work on plain tensors."""
    return tensor

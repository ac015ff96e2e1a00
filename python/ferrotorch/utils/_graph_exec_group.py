"""``GraphExecGroup``: backward calls made under one instance share the recomputation of each
checkpointed block, which then runs at most once for all of them (for instance the separate
input-gradient and weight-gradient passes of pipeline schedules)."""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional

_state = threading.local()


class GraphExecGroup:
    """Any checkpointed regions that backward reaches under the same instance of this context
    manager are recomputed at most once, however many backward calls there are. The calls
    should cover non-overlapping parts of the backward graph. Affects only
    ``checkpoint(..., use_reentrant=False)``; a no-op otherwise. Groups do not nest.

    >>> import ferrotorch as torch
    >>> from ferrotorch.utils.checkpoint import GraphExecGroup, checkpoint
    >>> w = torch.ones(2, requires_grad=True)
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = checkpoint(lambda a: (a * w).sin(), x, use_reentrant=False).sum()
    >>> with GraphExecGroup():
    ...     gx, = torch.autograd.grad(y, x, retain_graph=True)
    ...     gw, = torch.autograd.grad(y, w)
    """

    def __init__(self) -> None:
        # Each checkpointed block's rerun (its inputs and outputs), by the block's token.
        self._recomputed: Dict[object, Any] = {}

    def __enter__(self) -> "GraphExecGroup":
        current = GraphExecGroup._get_current_group()
        if current is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {current}")
        _state.group = self
        return self

    def __exit__(self, *args: object) -> None:
        _state.group = None
        self._recomputed.clear()

    @classmethod
    def _get_current_group(cls) -> Optional["GraphExecGroup"]:
        """The group entered on this thread, if any."""
        return getattr(_state, "group", None)

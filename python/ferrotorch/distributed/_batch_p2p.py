"""``P2POp`` and ``batch_isend_irecv``: a list of sends and receives started together.

Every send and receive here is nonblocking on its own, so starting them one after the
other cannot deadlock, whatever order the ranks list them in.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from .. import _core
from ._mpi_group import ProcessGroup
from ._point_to_point import irecv, isend
from ._work import Work

Tensor = _core.Tensor


class P2POp:
    """One point-to-point operation for ``batch_isend_irecv``: ``op`` is ``isend`` or
    ``irecv``, ``peer`` the global rank (or ``group_peer`` the rank in ``group``)."""

    def __init__(self, op: Callable[..., Optional[Work]], tensor: Tensor, peer: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0, group_peer: Optional[int] = None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        if peer is None and group_peer is None:
            raise ValueError("P2POp: one of peer or group_peer must be given")
        if peer is not None and group_peer is not None:
            raise ValueError("P2POp: peer and group_peer are mutually exclusive")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer

    def __repr__(self) -> str:
        peer = f"peer={self.peer}" if self.peer is not None else f"group_peer={self.group_peer}"
        return f"P2POp({self.op.__name__}, tensor of shape {list(self.tensor.shape)}, {peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list: List[P2POp]) -> List[Work]:
    """Starts every operation of ``p2p_op_list`` and returns their Works (wait on each)."""
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    if not p2p_op_list:
        raise IndexError("batch_isend_irecv: p2p_op_list is empty; it needs at least one P2POp")
    groups = {id(p.group) for p in p2p_op_list}
    if len(groups) > 1:
        raise ValueError("All ops need to use the same group.")
    works: List[Any] = []
    for p in p2p_op_list:
        w = p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if w is not None:
            works.append(w)
    return works

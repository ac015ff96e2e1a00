"""``send``/``recv`` and their nonblocking forms ``isend``/``irecv``.

A small header (sender, dtype, shape) goes ahead of the data, so the receiver can name a
mismatch and ``recv(src=None)`` learns who sent.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Tuple

import numpy as np

from .. import _core
from ._buffers import as_buffer, check_cpu_tensor
from ._init import resolve_group
from ._mpi_group import ProcessGroup, _describe, tensor_meta
from ._work import Work

Tensor = _core.Tensor
_MAX_DIMS = 10


def _check_tag(tag: Any, op_name: str) -> int:
    if not isinstance(tag, int) or tag < 0 or tag > 32767:
        raise ValueError(f"{op_name}: tag must be an int in [0, 32767], got {tag!r}")
    return tag


def _peer(pg: ProcessGroup, rank: Optional[int], group_rank: Optional[int], op_name: str, arg: str) -> Optional[int]:
    if group_rank is not None:
        return group_rank
    if rank is None:
        return None
    return pg.group_rank(rank, op_name, arg)


def _start(tensor: Tensor, group: Optional[ProcessGroup], tag: Any, rank: Optional[int], group_rank: Optional[int], op_name: str, arg: str) -> Optional[Tuple[ProcessGroup, int, Optional[int]]]:
    """The checks both directions share: ``(group, tag, peer)``, or None on a non-member."""
    pg = resolve_group(group, op_name)
    if pg is None:
        return None
    pg.check_usable(op_name)
    check_cpu_tensor(tensor, op_name)
    tag = _check_tag(tag, op_name)
    return pg, tag, _peer(pg, rank, group_rank, op_name, arg)


def _header(pg: ProcessGroup, t: Tensor) -> np.ndarray:
    dtype, shape = tensor_meta(t)
    h = np.zeros(3 + _MAX_DIMS, np.int64)
    h[:3] = (pg.rank(), dtype, len(shape))
    h[3 : 3 + min(len(shape), _MAX_DIMS)] = shape[:_MAX_DIMS]
    return h


def isend(tensor: Tensor, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0, group_dst: Optional[int] = None) -> Optional[Work]:
    """Starts sending ``tensor`` to rank ``dst``; the returned Work's ``wait()`` finishes it."""
    name = "isend"
    started = _start(tensor, group, tag, dst, group_dst, name, "dst")
    if started is None:
        return None
    pg, tag, peer = started
    if peer is None:
        raise ValueError(f"{name}: dst must be given")
    if peer == pg.rank():
        raise ValueError(f"{name}: Invalid destination rank: should not be the same as the rank of the current process.")

    def steps(work: Work) -> Iterator[list]:
        buf = as_buffer(tensor, False)
        header = _header(pg, tensor)
        work.waiting_on = lambda: [pg.global_ranks[peer]]
        yield [pg._p2p_header_comm.Isend(header, peer, tag), pg._p2p_comm.Isend(buf.raw(), peer, tag)]

    return Work(pg, f"send to rank {pg.global_ranks[peer]}", steps, [tensor], ordered=False)


def irecv(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0, group_src: Optional[int] = None) -> Optional[Work]:
    """Starts receiving into ``tensor`` from rank ``src`` (any rank when None)."""
    name = "irecv"
    started = _start(tensor, group, tag, src, group_src, name, "src")
    if started is None:
        return None
    pg, tag, peer = started
    from mpi4py import MPI

    def steps(work: Work) -> Iterator[list]:
        header = np.zeros(3 + _MAX_DIMS, np.int64)
        source = MPI.ANY_SOURCE if peer is None else peer
        work.waiting_on = lambda: list(pg.global_ranks) if peer is None else [pg.global_ranks[peer]]
        yield [pg._p2p_header_comm.Irecv(header, source, tag)]
        sender = int(header[0])
        mine = _header(pg, tensor)
        if np.any(header[1:] != mine[1:]):
            nd = min(int(header[2]), _MAX_DIMS)
            raise RuntimeError(
                f"ferrotorch.distributed: recv on rank {pg.global_rank}: rank {pg.global_ranks[sender]} sent a tensor of "
                f"{_describe(header[3 : 3 + nd], int(header[1]))}, the receiving tensor has "
                f"{_describe(tuple(tensor.shape), int(mine[1]))}"
            )
        buf = as_buffer(tensor, False)
        yield [pg._p2p_comm.Irecv(buf.raw(), sender, tag)]
        buf.finish()
        work._source_rank = pg.global_ranks[sender]

    return Work(pg, f"recv from rank {'any' if peer is None else pg.global_ranks[peer]}", steps, [tensor], ordered=False)


def send(tensor: Tensor, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0, group_dst: Optional[int] = None) -> None:
    """Sends ``tensor`` to rank ``dst`` and returns once the engine has taken it."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0, group_src: Optional[int] = None) -> int:
    """Receives into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source_rank

"""The NCCL side of a process group (``backend="nccl"``): CUDA tensors go to an NCCL
communicator (rust/core/src/cuda/nccl.rs) whose unique id rank 0 sends over MPI. The
collectives are queued on the device's current stream; the call returns once that stream
has finished them (``async_op=True`` returns a completed Work)."""

from __future__ import annotations

import os
from typing import Any, List, Optional

from .. import _core
from ._reduce_op import RedOpType
from ._work import CompletedWork, Work

Tensor = _core.Tensor
_OPS = {RedOpType.SUM: "sum", RedOpType.AVG: "avg", RedOpType.PRODUCT: "product", RedOpType.MIN: "min", RedOpType.MAX: "max"}


def _device_index(device_id: Any) -> int:
    if device_id is None:
        count = _core._cuda_device_count()
        return int(os.environ.get("LOCAL_RANK", "0")) % max(count, 1)
    if isinstance(device_id, int):
        return device_id
    index = getattr(device_id, "index", None)
    return 0 if index is None else int(index)


def _op_name(op: RedOpType, op_name: str) -> str:
    if op not in _OPS:
        raise ValueError(f"{op_name}: the nccl backend has no ReduceOp.{op.name}")
    return _OPS[op]


class NcclBackend:
    """The NCCL communicator of one process group, with the collectives CUDA tensors take."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def _done(self, outputs: List[Tensor], async_op: bool) -> Optional[Work]:
        self.comm.synchronize()
        return CompletedWork(outputs) if async_op else None

    def all_reduce(self, t: Tensor, op: RedOpType, async_op: bool) -> Optional[Work]:
        self.comm.all_reduce(t, _op_name(op, "all_reduce"))
        return self._done([t], async_op)

    def broadcast(self, t: Tensor, root: int, async_op: bool) -> Optional[Work]:
        self.comm.broadcast(t, root)
        return self._done([t], async_op)

    def reduce(self, t: Tensor, root: int, op: RedOpType, async_op: bool) -> Optional[Work]:
        self.comm.reduce(t, root, _op_name(op, "reduce"))
        return self._done([t], async_op)

    def all_gather_into_tensor(self, out: Tensor, inp: Tensor, async_op: bool) -> Optional[Work]:
        self.comm.all_gather(inp, out)
        return self._done([out], async_op)

    def all_gather(self, outs: List[Tensor], t: Tensor, async_op: bool) -> Optional[Work]:
        flat = _core.empty((len(outs) * t.numel(),), dtype=t.dtype, device=t.device)
        self.comm.all_gather(t.contiguous(), flat)
        for i, o in enumerate(outs):
            o.copy_(flat[i * t.numel() : (i + 1) * t.numel()].reshape(tuple(t.shape)))
        return self._done(outs, async_op)

    def reduce_scatter_tensor(self, out: Tensor, inp: Tensor, op: RedOpType, async_op: bool) -> Optional[Work]:
        self.comm.reduce_scatter(inp, out, _op_name(op, "reduce_scatter_tensor"))
        return self._done([out], async_op)


def attach_nccl(pg: Any, device_id: Any) -> None:
    """Creates the group's NCCL communicator: rank 0 makes the id, MPI carries it."""
    from ._collectives import broadcast

    uid = _core.zeros(128, dtype=_core.uint8)
    if pg.rank() == 0:
        uid = _core.tensor(list(_core._nccl_unique_id()), dtype=_core.uint8)
    broadcast(uid, src=pg.global_ranks[0], group=pg)
    comm = _core._NcclComm(_device_index(device_id), bytes(uid.tolist()), pg.rank(), pg.size())
    pg.nccl = NcclBackend(comm)

"""Collectives: ``all_reduce``, ``broadcast``, ``reduce``, ``all_gather``(``_into_tensor``),
``reduce_scatter``(``_tensor``), ``gather``, ``scatter``, ``barrier`` (all_to_all: _all_to_all.py).

Each checks its arguments locally, then the group exchanges headers (every rank must call
the same collective with the same shape and dtype) and posts the MPI request on the
tensors' own memory. CUDA tensors go to NCCL when the group has it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from .. import _core
from ._buffers import as_buffer, check_cpu_tensor, copy_into
from ._init import resolve_group
from ._mpi_group import ProcessGroup, tensor_meta
from ._mpi_ops import check_reduction, mpi_op
from ._reduce_op import RedOpType, ReduceOp, as_red_op
from ._work import Work

Tensor = _core.Tensor


def _mpi() -> Any:
    from mpi4py import MPI

    return MPI


def _is_cuda(t: Any) -> bool:
    return isinstance(t, Tensor) and t.device.type == "cuda"


def _nccl(pg: ProcessGroup, op_name: str) -> Any:
    if pg.nccl is None:
        raise ValueError(f"{op_name}: CUDA tensors need init_process_group(backend='nccl'); this group runs {pg.backend} on CPU tensors")
    return pg.nccl


def _root(pg: ProcessGroup, rank: Optional[int], group_rank: Optional[int], op_name: str, arg: str) -> int:
    if group_rank is not None:
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"{op_name}: group_{arg}={group_rank} is outside the group (size {pg.size()})")
        return group_rank
    return pg.group_rank(0 if rank is None else rank, op_name, arg)


def _same_as(ts: List[Any], like: Tensor, op_name: str, arg: str) -> None:
    for i, t in enumerate(ts):
        check_cpu_tensor(t, op_name, f"{arg}[{i}]")
        if t.dtype != like.dtype or tuple(t.shape) != tuple(like.shape):
            raise RuntimeError(
                f"{op_name}: {arg}[{i}] has shape {list(t.shape)} and dtype {t.dtype}, the tensor has "
                f"shape {list(like.shape)} and dtype {like.dtype}; they must match"
            )


def _count(ts: Optional[List[Any]], pg: ProcessGroup, op_name: str, arg: str) -> List[Any]:
    if not isinstance(ts, (list, tuple)) or len(ts) != pg.size():
        n = len(ts) if isinstance(ts, (list, tuple)) else ts
        raise RuntimeError(f"{op_name}: {arg} must be a list of {pg.size()} tensors (the group size), got {n!r}")
    return list(ts)


def _root_and_list(pg: ProcessGroup, tensor: Tensor, items: Optional[List[Any]], rank: Optional[int], group_rank: Optional[int], op_name: str, arg: str, list_arg: str, role: str) -> Tuple[int, List[Any]]:
    """The root of gather/scatter and, on the root, its list (one tensor like ``tensor`` per
    rank); other ranks must not pass one."""
    root = _root(pg, rank, group_rank, op_name, arg)
    check_cpu_tensor(tensor, op_name)
    if pg.rank() == root:
        listed = _count(items, pg, op_name, list_arg)
        _same_as(listed, tensor, op_name, list_arg)
        return root, listed
    if items:
        raise ValueError(f"Argument ``{list_arg}`` must NOT be specified on non-{role} ranks.")
    return root, []


def _avg(arr: np.ndarray, op: RedOpType, size: int) -> None:
    if op == RedOpType.AVG:
        arr /= size


def all_reduce(tensor: Tensor, op: Any = ReduceOp.SUM, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Reduces ``tensor`` across all ranks in place: every rank ends with the result."""
    name = "all_reduce"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    op = as_red_op(op, name)
    if _is_cuda(tensor):
        return _nccl(pg, name).all_reduce(tensor, op, async_op)
    check_cpu_tensor(tensor, name)
    check_reduction(op, tensor.dtype, name)

    def data() -> Iterator[list]:
        buf = as_buffer(tensor, True)
        yield pg.post("Allreduce", _mpi().IN_PLACE, buf.array, mpi_op(op, tensor.dtype == _core.bool))
        _avg(buf.array, op, pg.size())
        buf.finish()

    return pg.submit(name, tensor_meta(tensor), 0, data, [tensor], async_op)


def broadcast(tensor: Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, async_op: bool = False, group_src: Optional[int] = None) -> Optional[Work]:
    """Copies ``tensor`` of rank ``src`` into ``tensor`` on every other rank."""
    name = "broadcast"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    root = _root(pg, src, group_src, name, "src")
    if _is_cuda(tensor):
        return _nccl(pg, name).broadcast(tensor, root, async_op)
    check_cpu_tensor(tensor, name)

    def data() -> Iterator[list]:
        buf = as_buffer(tensor, False)
        yield pg.post("Bcast", buf.raw(), root)
        if pg.rank() != root:
            buf.finish()

    return pg.submit(name, tensor_meta(tensor), root, data, [tensor], async_op)


def reduce(tensor: Tensor, dst: Optional[int] = None, op: Any = ReduceOp.SUM, group: Optional[ProcessGroup] = None, async_op: bool = False, group_dst: Optional[int] = None) -> Optional[Work]:
    """Reduces ``tensor`` across ranks into ``tensor`` of rank ``dst`` (others keep theirs)."""
    name = "reduce"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    op = as_red_op(op, name)
    root = _root(pg, dst, group_dst, name, "dst")
    if _is_cuda(tensor):
        return _nccl(pg, name).reduce(tensor, root, op, async_op)
    check_cpu_tensor(tensor, name)
    check_reduction(op, tensor.dtype, name)

    def data() -> Iterator[list]:
        buf = as_buffer(tensor, True)
        MPI = _mpi()
        mop = mpi_op(op, tensor.dtype == _core.bool)
        if pg.rank() == root:
            yield pg.post("Reduce", MPI.IN_PLACE, buf.array, mop, root)
            _avg(buf.array, op, pg.size())
            buf.finish()
        else:
            yield pg.post("Reduce", buf.array, None, mop, root)

    return pg.submit(name, tensor_meta(tensor), root, data, [tensor], async_op)


def all_gather(tensor_list: List[Tensor], tensor: Tensor, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Fills ``tensor_list[i]`` with ``tensor`` of rank i, on every rank."""
    name = "all_gather"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    outs = _count(tensor_list, pg, name, "tensor_list")
    if _is_cuda(tensor):
        return _nccl(pg, name).all_gather(outs, tensor, async_op)
    check_cpu_tensor(tensor, name)
    _same_as(outs, tensor, name, "tensor_list")

    def data() -> Iterator[list]:
        send = as_buffer(tensor, False)
        n = send.array.size
        recv = np.empty(n * pg.size(), send.array.dtype)
        yield pg.post("Allgather", send.raw(), recv.view(np.uint8))
        for i, out in enumerate(outs):
            copy_into(out, recv[i * n : (i + 1) * n])

    return pg.submit(name, tensor_meta(tensor), 0, data, outs, async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Gathers every rank's ``input_tensor`` into ``output_tensor``, concatenated (or stacked) along dim 0."""
    name = "all_gather_into_tensor"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    if _is_cuda(input_tensor):
        return _nccl(pg, name).all_gather_into_tensor(output_tensor, input_tensor, async_op)
    check_cpu_tensor(output_tensor, name, "output_tensor")
    check_cpu_tensor(input_tensor, name, "input_tensor")
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"{name}: output tensor must have the same type as input tensor ({output_tensor.dtype} vs {input_tensor.dtype})")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise RuntimeError(
            f"{name}: output tensor size must be equal to world_size times input tensor size "
            f"(output {list(output_tensor.shape)}, input {list(input_tensor.shape)}, world size {pg.size()})"
        )

    def data() -> Iterator[list]:
        send, out = as_buffer(input_tensor, False), as_buffer(output_tensor, False)
        yield pg.post("Allgather", send.raw(), out.raw())
        out.finish()

    return pg.submit(name, tensor_meta(input_tensor), 0, data, [output_tensor], async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: Any = ReduceOp.SUM, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Reduces ``input`` across ranks and leaves block i (of world_size equal blocks along dim 0) on rank i."""
    name = "reduce_scatter_tensor"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    op = as_red_op(op, name)
    if _is_cuda(input):
        return _nccl(pg, name).reduce_scatter_tensor(output, input, op, async_op)
    check_cpu_tensor(output, name, "output")
    check_cpu_tensor(input, name, "input")
    check_reduction(op, input.dtype, name)
    if output.dtype != input.dtype:
        raise RuntimeError(f"{name}: input tensor must have the same type as output tensor ({input.dtype} vs {output.dtype})")
    if input.numel() != output.numel() * pg.size():
        raise RuntimeError(
            f"{name}: input tensor must be the same size as output size times world size "
            f"(input {list(input.shape)}, output {list(output.shape)}, world size {pg.size()})"
        )

    def data() -> Iterator[list]:
        send, out = as_buffer(input, True), as_buffer(output, True)
        mop = mpi_op(op, input.dtype == _core.bool)
        yield pg.post("Reduce_scatter_block", send.array.reshape(-1), out.array.reshape(-1), mop)
        _avg(out.array, op, pg.size())
        out.finish()

    return pg.submit(name, tensor_meta(input), 0, data, [output], async_op)


def reduce_scatter(output: Tensor, input_list: List[Tensor], op: Any = ReduceOp.SUM, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Reduces ``input_list[i]`` across ranks into ``output`` of rank i."""
    name = "reduce_scatter"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    ins = _count(input_list, pg, name, "input_list")
    check_cpu_tensor(output, name, "output")
    _same_as(ins, output, name, "input_list")
    stacked = _core.stack([t.detach() for t in ins]) if ins else output
    return reduce_scatter_tensor(output, stacked, op, pg, async_op)


def gather(tensor: Tensor, gather_list: Optional[List[Tensor]] = None, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, async_op: bool = False, group_dst: Optional[int] = None) -> Optional[Work]:
    """Collects every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    name = "gather"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    root, outs = _root_and_list(pg, tensor, gather_list, dst, group_dst, name, "dst", "gather_list", "destination")
    is_root = pg.rank() == root

    def data() -> Iterator[list]:
        send = as_buffer(tensor, False)
        n = send.array.size
        recv = np.empty(n * pg.size(), send.array.dtype) if is_root else None
        yield pg.post("Gather", send.raw(), None if recv is None else recv.view(np.uint8), root)
        if recv is not None:
            for i, out in enumerate(outs):
                copy_into(out, recv[i * n : (i + 1) * n])

    return pg.submit(name, tensor_meta(tensor), root, data, outs, async_op)


def scatter(tensor: Tensor, scatter_list: Optional[List[Tensor]] = None, src: Optional[int] = None, group: Optional[ProcessGroup] = None, async_op: bool = False, group_src: Optional[int] = None) -> Optional[Work]:
    """Sends ``scatter_list[i]`` of rank ``src`` into ``tensor`` of rank i."""
    name = "scatter"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    root, ins = _root_and_list(pg, tensor, scatter_list, src, group_src, name, "src", "scatter_list", "source")
    is_root = pg.rank() == root

    def data() -> Iterator[list]:
        out = as_buffer(tensor, False)
        send = np.concatenate([as_buffer(t, False).array.reshape(-1) for t in ins]) if is_root else None
        yield pg.post("Scatter", None if send is None else send.view(np.uint8), out.raw(), root)
        out.finish()

    return pg.submit(name, tensor_meta(tensor), root, data, [tensor], async_op)


def barrier(group: Optional[ProcessGroup] = None, async_op: bool = False, device_ids: Optional[List[int]] = None, timeout: Optional[timedelta] = None) -> Optional[Work]:
    """Returns once every rank of the group reached it (or raises past the timeout)."""
    name = "barrier"
    pg = resolve_group(group, name)
    if pg is None:
        return None

    def data() -> Iterator[list]:
        yield []  # the header exchange already met every rank

    work = pg.submit(name, (-1, ()), 0, data, [], True)
    if async_op:
        return work
    assert work is not None
    work.wait(timeout)
    return None

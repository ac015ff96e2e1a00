"""``all_to_all`` and ``all_to_all_single``: rank i sends its piece j to rank j.

Pieces may differ in size from peer to peer, so the shape header cannot check them: the
ranks first gather every rank's send and receive counts, and all raise the same error,
naming both ranks, when what one sends is not what the other expects.
"""

from __future__ import annotations

from typing import Iterator, List, Optional

import numpy as np

from .. import _core
from ._buffers import as_buffer, check_cpu_tensor, copy_into
from ._init import resolve_group
from ._mpi_group import ProcessGroup, tensor_meta
from ._work import Work

Tensor = _core.Tensor


def _check_dtypes(tensors: List[Tensor]) -> None:
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypes: found {tensors[0].dtype} and {t.dtype}")


def _exchange(pg: ProcessGroup, op_name: str, sends: List[int], recvs: List[int], item: int, send: np.ndarray, recv: np.ndarray) -> Iterator[list]:
    """The data stage: every rank's counts (in elements) first, checked pairwise, then the
    exchange itself on byte buffers."""
    p = pg.size()
    mine = np.array(sends + recvs, np.int64)
    table = np.zeros((p, 2 * p), np.int64)
    yield pg.post("Allgather", mine, table)
    for i in range(p):
        for j in range(p):
            if table[i, j] != table[j, p + i]:
                gi, gj = pg.global_ranks[i], pg.global_ranks[j]
                raise RuntimeError(
                    f"ferrotorch.distributed: {op_name} on rank {pg.global_rank}: rank {gi} sends {table[i, j]} elements "
                    f"to rank {gj}, which expects {table[j, p + i]} from it; the split sizes must agree across ranks"
                )
    sc, rc = [s * item for s in sends], [r * item for r in recvs]
    sd, rd = [int(x) for x in np.cumsum([0] + sc[:-1])], [int(x) for x in np.cumsum([0] + rc[:-1])]
    yield pg.post("Alltoallv", [send.view(np.uint8), (sc, sd)], [recv.view(np.uint8), (rc, rd)])


def all_to_all(output_tensor_list: List[Tensor], input_tensor_list: List[Tensor], group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Sends ``input_tensor_list[j]`` to rank j, which receives it in ``output_tensor_list[i]``
    (i the sender); pieces may have different sizes for different peers."""
    name = "all_to_all"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    p = pg.size()
    for arg, ts in (("output", output_tensor_list), ("input", input_tensor_list)):
        if not isinstance(ts, (list, tuple)) or len(ts) != p:
            n = len(ts) if isinstance(ts, (list, tuple)) else type(ts).__name__
            raise RuntimeError(f"{name}: {arg} tensor list size {n} does not match world size {p}")
        for i, t in enumerate(ts):
            check_cpu_tensor(t, name, f"{arg}_tensor_list[{i}]")
    outs, ins = list(output_tensor_list), list(input_tensor_list)
    _check_dtypes(outs + ins)

    def data() -> Iterator[list]:
        arrays = [as_buffer(t, False).array.reshape(-1) for t in ins]
        send = np.concatenate(arrays) if arrays else np.zeros(0)
        recv = np.empty(sum(t.numel() for t in outs), send.dtype)
        yield from _exchange(pg, name, [t.numel() for t in ins], [t.numel() for t in outs], send.dtype.itemsize, send, recv)
        off = 0
        for t in outs:
            copy_into(t, recv[off : off + t.numel()])
            off += t.numel()

    return pg.submit(name, (tensor_meta(ins[0])[0], ()), 0, data, outs, async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Optional[List[int]] = None, input_split_sizes: Optional[List[int]] = None, group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Splits ``input`` along dim 0 and sends piece i to rank i; ``output`` receives the pieces in rank order."""
    name = "all_to_all_single"
    pg = resolve_group(group, name)
    if pg is None:
        return None
    check_cpu_tensor(output, name, "output")
    check_cpu_tensor(input, name, "input")
    _check_dtypes([output, input])
    if not input.is_contiguous():  # as PyTorch (the output may be a view)
        raise ValueError(f"Tensors must be contiguous: {name} got a non-contiguous input of shape {list(input.shape)}; pass input.contiguous()")
    p = pg.size()

    def splits(sizes: Optional[List[int]], t: Tensor, arg: str) -> List[int]:
        rows = t.shape[0] if t.ndim else 1
        if not sizes:
            if rows % p:
                raise RuntimeError(f"{name}: {arg} has {rows} rows (dim 0), which does not divide equally across group size {p}; pass {arg}_split_sizes")
            return [rows // p] * p
        if len(sizes) != p or sum(sizes) != rows:
            raise RuntimeError(f"{name}: {arg}_split_sizes {list(sizes)} doesn't match total dim 0 size {rows} (it needs {p} entries)")
        return [int(s) for s in sizes]

    ins, outs = splits(input_split_sizes, input, "input"), splits(output_split_sizes, output, "output")

    def row_numel(t: Tensor) -> int:
        return t.numel() // t.shape[0] if t.ndim and t.shape[0] else int(np.prod(t.shape[1:])) if t.ndim else 1

    n_in, n_out = row_numel(input), row_numel(output)

    def data() -> Iterator[list]:
        send, out = as_buffer(input, False), as_buffer(output, False)
        yield from _exchange(pg, name, [s * n_in for s in ins], [s * n_out for s in outs], send.array.dtype.itemsize, send.array.reshape(-1), out.array.reshape(-1))
        out.finish()

    return pg.submit(name, (tensor_meta(input)[0], ()), 0, data, [output], async_op)

"""Collectives over picklable Python objects, built on the tensor collectives (so they share
their checks and timeouts): each object travels as a uint8 tensor, padded to the longest.
``weights_only`` is accepted for PyTorch's signature; objects are plain pickles here."""

from __future__ import annotations

import pickle
from typing import Any, List, Optional, Sequence

import numpy as np

from .. import _core
from ._collectives import _root, all_gather, broadcast, gather, scatter
from ._init import resolve_group
from ._mpi_group import ProcessGroup
from ._point_to_point import recv, send

Tensor = _core.Tensor


def _to_bytes(obj: Any) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), np.uint8)


def _padded(data: np.ndarray, size: int) -> Tensor:
    out = np.zeros(size, np.uint8)
    out[: data.size] = data
    return _core.from_numpy(out)


def _all_lengths(n: int, pg: ProcessGroup) -> List[int]:
    sizes = [_core.zeros(1, dtype=_core.int64) for _ in range(pg.size())]
    all_gather(sizes, _core.tensor([n], dtype=_core.int64), pg)
    return [int(s.item()) for s in sizes]


def all_gather_object(object_list: List[Any], obj: Any, group: Optional[ProcessGroup] = None, weights_only: bool = False) -> None:
    """Fills ``object_list[i]`` with ``obj`` of rank i (objects must be picklable)."""
    pg = resolve_group(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have {pg.size()} entries (the group size), got {len(object_list)}")
    data = _to_bytes(obj)
    lengths = _all_lengths(data.size, pg)
    chunks = [_core.zeros(max(lengths), dtype=_core.uint8) for _ in lengths]
    all_gather(chunks, _padded(data, max(lengths)), pg)
    for i, (c, n) in enumerate(zip(chunks, lengths)):
        object_list[i] = pickle.loads(np.asarray(c)[:n].tobytes())


def gather_object(obj: Any, object_gather_list: Optional[List[Any]] = None, dst: Optional[int] = None, group: Optional[ProcessGroup] = None, group_dst: Optional[int] = None, weights_only: bool = False) -> None:
    """On rank ``dst``, fills ``object_gather_list[i]`` with ``obj`` of rank i; other ranks
    pass no list."""
    name = "gather_object"
    pg = resolve_group(group, name)
    if pg is None:
        return
    root = _root(pg, dst, group_dst, name, "dst")
    is_root = pg.rank() == root
    if is_root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        n = None if object_gather_list is None else len(object_gather_list)
        raise ValueError(f"{name}: object_gather_list must be a list of {pg.size()} entries (the group size) on the destination rank, got {n!r}")
    if not is_root and object_gather_list is not None:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    data = _to_bytes(obj)
    lengths = _all_lengths(data.size, pg)
    chunks = [_core.zeros(max(lengths), dtype=_core.uint8) for _ in lengths] if is_root else None
    gather(_padded(data, max(lengths)), chunks, group=pg, group_dst=root)
    if is_root:
        assert chunks is not None and object_gather_list is not None
        for i, (c, n) in enumerate(zip(chunks, lengths)):
            object_gather_list[i] = pickle.loads(np.asarray(c)[:n].tobytes())


def broadcast_object_list(object_list: List[Any], src: Optional[int] = None, group: Optional[ProcessGroup] = None, device: Any = None, group_src: Optional[int] = None, weights_only: bool = False) -> None:
    """Replaces ``object_list``'s entries with those of rank ``src`` (same length on every rank)."""
    name = "broadcast_object_list"
    pg = resolve_group(group, name)
    if pg is None:
        return
    root = _root(pg, src, group_src, name, "src")
    is_root = pg.rank() == root
    mine = _to_bytes(list(object_list)) if is_root else np.zeros(0, np.uint8)
    size = _core.tensor([mine.size], dtype=_core.int64)
    broadcast(size, group=pg, group_src=root)
    payload = _core.from_numpy(mine.copy()) if is_root else _core.zeros(int(size.item()), dtype=_core.uint8)
    broadcast(payload, group=pg, group_src=root)
    values = pickle.loads(np.asarray(payload).tobytes())
    if len(values) != len(object_list):
        raise ValueError(f"{name}: rank {pg.global_ranks[root]} sent {len(values)} objects, this rank's list has {len(object_list)}")
    object_list[:] = values


def scatter_object_list(scatter_object_output_list: List[Any], scatter_object_input_list: Optional[Sequence[Any]] = None, src: Optional[int] = None, group: Optional[ProcessGroup] = None, group_src: Optional[int] = None, weights_only: bool = False) -> None:
    """Puts ``scatter_object_input_list[i]`` of rank ``src`` into
    ``scatter_object_output_list[0]`` of rank i."""
    name = "scatter_object_list"
    pg = resolve_group(group, name)
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = _root(pg, src, group_src, name, "src")
    is_root = pg.rank() == root
    if is_root and (scatter_object_input_list is None or len(scatter_object_input_list) != pg.size()):
        n = None if scatter_object_input_list is None else len(scatter_object_input_list)
        raise ValueError(f"{name}: scatter_object_input_list must have {pg.size()} entries (the group size) on the source rank, got {n!r}")
    datas = [_to_bytes(o) for o in scatter_object_input_list] if is_root and scatter_object_input_list is not None else []
    longest = _core.tensor([max((d.size for d in datas), default=0)], dtype=_core.int64)
    broadcast(longest, group=pg, group_src=root)
    width = int(longest.item())
    length, chunk = _core.zeros(1, dtype=_core.int64), _core.zeros(width, dtype=_core.uint8)
    scatter(length, [_core.tensor([d.size], dtype=_core.int64) for d in datas] or None, group=pg, group_src=root)
    scatter(chunk, [_padded(d, width) for d in datas] or None, group=pg, group_src=root)
    scatter_object_output_list[0] = pickle.loads(np.asarray(chunk)[: int(length.item())].tobytes())


def send_object_list(object_list: Sequence[Any], dst: Optional[int] = None, group: Optional[ProcessGroup] = None, device: Any = None, group_dst: Optional[int] = None, use_batch: bool = False, weights_only: bool = False) -> None:
    """Sends the objects of ``object_list`` to rank ``dst`` (which calls ``recv_object_list``
    with a list of the same length)."""
    datas = [_to_bytes(o) for o in object_list]
    send(_core.tensor([d.size for d in datas], dtype=_core.int64), dst, group, group_dst=group_dst)
    payload = np.concatenate(datas) if datas else np.zeros(0, np.uint8)
    send(_core.from_numpy(payload.copy()), dst, group, group_dst=group_dst)


def recv_object_list(object_list: List[Any], src: Optional[int] = None, group: Optional[ProcessGroup] = None, device: Any = None, group_src: Optional[int] = None, use_batch: bool = False, weights_only: bool = False) -> int:
    """Receives ``len(object_list)`` objects from rank ``src`` (any rank when None) into
    ``object_list``; returns the sender's rank."""
    sizes = _core.zeros(len(object_list), dtype=_core.int64)
    sender = recv(sizes, src, group, group_src=group_src)
    lengths = [int(s) for s in np.asarray(sizes)]
    payload = _core.zeros(sum(lengths), dtype=_core.uint8)
    recv(payload, sender, group)
    raw, off = np.asarray(payload).tobytes(), 0
    for i, n in enumerate(lengths):
        object_list[i] = pickle.loads(raw[off : off + n])
        off += n
    return sender

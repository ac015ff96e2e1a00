"""Collectives over picklable Python objects, built on the tensor collectives (so they share
their checks and timeouts): each object travels as a uint8 tensor, padded to the longest."""

from __future__ import annotations

import pickle
from typing import Any, List, Optional

import numpy as np

from .. import _core
from ._collectives import all_gather, broadcast
from ._init import resolve_group
from ._mpi_group import ProcessGroup


def _to_bytes(obj: Any) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), np.uint8)


def _gather_bytes(data: np.ndarray, pg: ProcessGroup) -> List[bytes]:
    n = pg.size()
    sizes = [_core.zeros(1, dtype=_core.int64) for _ in range(n)]
    all_gather(sizes, _core.tensor([data.size], dtype=_core.int64), pg)
    lengths = [int(s.item()) for s in sizes]
    padded = np.zeros(max(lengths), np.uint8)
    padded[: data.size] = data
    chunks = [_core.zeros(max(lengths), dtype=_core.uint8) for _ in range(n)]
    all_gather(chunks, _core.from_numpy(padded), pg)
    return [np.asarray(c)[:length].tobytes() for c, length in zip(chunks, lengths)]


def all_gather_object(object_list: List[Any], obj: Any, group: Optional[ProcessGroup] = None) -> None:
    """Fills ``object_list[i]`` with ``obj`` of rank i (objects must be picklable)."""
    pg = resolve_group(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have {pg.size()} entries (the group size), got {len(object_list)}")
    for i, raw in enumerate(_gather_bytes(_to_bytes(obj), pg)):
        object_list[i] = pickle.loads(raw)


def broadcast_object_list(object_list: List[Any], src: Optional[int] = None, group: Optional[ProcessGroup] = None, device: Any = None) -> None:
    """Replaces ``object_list``'s entries with those of rank ``src`` (same length on every rank)."""
    pg = resolve_group(group, "broadcast_object_list")
    if pg is None:
        return
    root = 0 if src is None else src
    mine = _to_bytes(list(object_list)) if pg.global_rank == root else np.zeros(0, np.uint8)
    size = _core.tensor([mine.size], dtype=_core.int64)
    broadcast(size, root, pg)
    payload = _core.zeros(int(size.item()), dtype=_core.uint8)
    if pg.global_rank == root:
        payload = _core.from_numpy(mine.copy())
    broadcast(payload, root, pg)
    values = pickle.loads(np.asarray(payload).tobytes())
    if len(values) != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {root} sent {len(values)} objects, this rank's list has {len(object_list)}")
    object_list[:] = values

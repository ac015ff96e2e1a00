"""``monitored_barrier``: a barrier whose rank 0 names the ranks that did not arrive.

Every other rank reports to rank 0 and waits for its acknowledgement; past the timeout,
rank 0 raises naming the first missing rank (or all of them with ``wait_all_ranks``).
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any, List, Optional, Union

import numpy as np

from ._init import resolve_group
from ._mpi_group import ProcessGroup

_ARRIVE_TAG, _ACK_TAG = 8, 9


def _seconds(timeout: Union[timedelta, float, None], pg: ProcessGroup) -> float:
    if timeout is None:
        return pg.timeout_s
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"monitored_barrier: timeout must be a datetime.timedelta or a number of seconds, got {type(timeout).__name__}")


def _poll(pg: ProcessGroup, requests: List[Any], deadline: float) -> bool:
    """True once every request completed; False past the deadline (other ops keep moving)."""
    from mpi4py import MPI

    pause = 0.0
    while not MPI.Request.Testall(requests):
        pg._progress()
        if time.monotonic() > deadline:
            return False
        pause = min(pause * 2 or 1e-5, 2e-3)
        time.sleep(pause)
    return True


def monitored_barrier(group: Optional[ProcessGroup] = None, timeout: Union[timedelta, float, None] = None, wait_all_ranks: bool = False) -> None:
    """Like ``barrier``, but rank 0 raises a RuntimeError naming the rank(s) that did not
    reach it within ``timeout`` (every missing one if ``wait_all_ranks``)."""
    pg = resolve_group(group, "monitored_barrier")
    if pg is None:
        return
    pg.check_usable("monitored_barrier")
    limit = _seconds(timeout, pg)
    if pg.size() == 1:
        return
    deadline = time.monotonic() + limit
    comm, me = pg._header_comm, pg.rank()
    ms = int(round(limit * 1000))
    if me != 0:
        token = np.zeros(1, np.int64)
        arrive = comm.Isend(np.array([me], np.int64), 0, _ARRIVE_TAG)
        if not _poll(pg, [arrive, comm.Irecv(token, 0, _ACK_TAG)], deadline):
            pg._broken = "monitored_barrier timed out"
            raise RuntimeError(
                f"Rank {pg.global_rank} successfully reached monitoredBarrier, but received errors while waiting for send/recv "
                f"from rank {pg.global_ranks[0]} (no answer in {ms} ms). Please check rank {pg.global_ranks[0]} logs for faulty rank."
            )
        return
    tokens = np.zeros(pg.size(), np.int64)
    recvs = {r: comm.Irecv(tokens[r : r + 1], r, _ARRIVE_TAG) for r in range(1, pg.size())}
    for r, req in recvs.items():  # one at a time, so without wait_all_ranks the first missing rank is named
        if not _poll(pg, [req], deadline):
            missing = [pg.global_ranks[q] for q, rq in recvs.items() if q >= r and not rq.Test()]
            pg._broken = "monitored_barrier timed out"
            if wait_all_ranks:
                raise RuntimeError(f"[Rank {pg.global_rank}]: Ranks {', '.join(map(str, missing))} failed to pass monitoredBarrier in {ms} ms")
            raise RuntimeError(f"[Rank {pg.global_rank}]: Rank {pg.global_ranks[r]} failed to pass monitoredBarrier in {ms} ms")
    acks = [comm.Isend(np.zeros(1, np.int64), r, _ACK_TAG) for r in range(1, pg.size())]
    _poll(pg, acks, deadline + limit)

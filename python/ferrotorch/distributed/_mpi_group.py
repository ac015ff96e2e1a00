"""A process group on MPI: one communicator per group (duplicated for headers and for
point-to-point traffic, so user messages never meet internal ones), the list of operations
in flight, and the header exchange that checks every rank called the same collective with
the same shapes and dtypes before any data moves."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from ._errors import DistBackendError
from ._work import Work

_HEADER_TAG = 7
_MAX_DIMS = 10
_HEADER_LEN = 7 + _MAX_DIMS  # seq, op, dtype, root, ndim, numel, dims..., blocking

_OPS = [
    "barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
    "reduce_scatter_tensor", "reduce_scatter", "gather", "scatter", "all_to_all_single", "all_to_all",
]
_DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex64", "complex128", "uint16", "uint32", "uint64",
]

# The operation this process is blocked in: a SIGTERM from the launcher (another rank died)
# turns into an error that names it instead of a silent exit.
_current_wait: List[Any] = []


def _describe(shape: Sequence[int], dtype: int) -> str:
    name = _DTYPES[dtype] if 0 <= dtype < len(_DTYPES) else "?"
    return f"shape {[int(s) for s in shape]} and dtype torch.{name}"


def tensor_meta(t: Optional[Any]) -> tuple:
    """(dtype code, shape) of a tensor, as the header carries them."""
    if t is None:
        return (-1, ())
    return (_DTYPES.index(str(t.dtype).removeprefix("torch.")), tuple(t.shape))


class ProcessGroup:
    """A set of ranks that run collectives together, over an MPI communicator.

    ``rank()`` and ``size()`` are this process's rank in the group and the group's size.
    """

    def __init__(self, comm: Any, global_ranks: List[int], timeout_s: float, backend: str) -> None:
        self._comm = comm
        self._header_comm = comm.Dup()
        self._p2p_comm = comm.Dup()
        self._p2p_header_comm = comm.Dup()
        self._rank, self._size = comm.Get_rank(), comm.Get_size()
        self.global_ranks = list(global_ranks)
        self.global_rank = self.global_ranks[self._rank]
        self.timeout_s = timeout_s
        self.backend = backend
        self._seq = 0
        self._pending: List[Work] = []
        self._broken: Optional[str] = None
        self.nccl: Any = None  # the NCCL communicator for CUDA tensors, when the backend has one
        self._posting_blocking = False

    # -- identity --------------------------------------------------------------------------
    def rank(self) -> int:
        """This process's rank in the group."""
        return self._rank

    def size(self) -> int:
        """How many ranks the group has."""
        return self._size

    def name(self) -> str:
        """The backend name."""
        return self.backend

    def group_rank(self, global_rank: int, op_name: str, arg: str) -> int:
        """The group rank of ``global_rank``; ValueError when it is not a member."""
        if not isinstance(global_rank, int) or global_rank not in self.global_ranks:
            raise ValueError(f"{op_name}: {arg}={global_rank!r} is not a rank of this group (ranks {self.global_ranks})")
        return self.global_ranks.index(global_rank)

    def __repr__(self) -> str:
        return f"<ProcessGroup backend={self.backend} rank={self._rank} size={self._size}>"

    # -- operations in flight -------------------------------------------------------------
    def _track(self, work: Work) -> None:
        self._pending.append(work)

    def _forget(self, work: Work) -> None:
        if work in self._pending:
            self._pending.remove(work)

    def _progress(self) -> None:
        """Polls every pending operation; collectives post their data stage in call order,
        so all ranks issue MPI's collectives in the same order."""
        blocked = False
        for w in list(self._pending):
            w._poll(may_post=not (blocked and w._ordered))
            if w._ordered and not w._done and not w._data_posted:
                blocked = True

    def post(self, name: str, *args: Any) -> list:
        """Starts MPI's ``name`` collective: blocking for a blocking call (MPI's tuned
        algorithms; every rank's header has arrived, so all are in it), else its nonblocking
        form, whose request the Work polls."""
        if self._posting_blocking:
            getattr(self._comm, name)(*args)
            return []
        return [getattr(self._comm, "I" + name[0].lower() + name[1:])(*args)]

    def _break(self) -> None:
        self._broken = "a previous operation timed out"

    def check_usable(self, op_name: str) -> None:
        """Raises if an earlier failure left the group unusable."""
        if self._broken is not None:
            raise DistBackendError(f"{op_name}: this process group cannot be used: {self._broken}")

    @contextlib.contextmanager
    def waiting(self, work: Work) -> Iterator[None]:
        _current_wait.append((work, self))
        try:
            yield
        finally:
            _current_wait.pop()

    def wait_all(self) -> None:
        for w in list(self._pending):
            w.wait()

    # -- the header exchange ----------------------------------------------------------------
    def submit(self, op_name: str, meta: tuple, root: int, data_steps: Any, result: Optional[list] = None, async_op: bool = False) -> Optional[Work]:
        """Runs a collective: headers first (checked on every rank), then ``data_steps()``,
        a generator over the data stage's requests. Returns a Work if ``async_op``."""
        self.check_usable(op_name)
        self._seq += 1
        seq = self._seq

        def steps(work: Work) -> Iterator[list]:
            if self._size > 1:
                yield from self._exchange_headers(work, op_name, seq, meta, root)
            yield from data_steps()

        work = Work(self, op_name, steps, result, blocking=not async_op)
        if async_op:
            return work
        work.wait()
        return None

    def _exchange_headers(self, work: Work, op_name: str, seq: int, meta: tuple, root: int) -> Iterator[list]:
        dtype, shape = meta
        mine = np.zeros(_HEADER_LEN, np.int64)
        mine[:6] = (seq, _OPS.index(op_name), dtype, root, len(shape), int(np.prod(shape)) if shape else 1)
        mine[6 : 6 + min(len(shape), _MAX_DIMS)] = shape[:_MAX_DIMS]
        mine[-1] = work._blocking
        theirs = np.zeros((self._size, _HEADER_LEN), np.int64)
        sends, recvs = [], {}
        for r in range(self._size):
            if r != self._rank:
                sends.append(self._header_comm.Isend(mine, r, _HEADER_TAG))
                recvs[r] = self._header_comm.Irecv(theirs[r], r, _HEADER_TAG)
        work.waiting_on = lambda: [self.global_ranks[r] for r, q in recvs.items() if not q.Test()]
        yield sends + list(recvs.values())
        for r in recvs:
            self._check_header(op_name, r, mine, theirs[r])
        # MPI never matches a blocking collective with a nonblocking one: if any rank called
        # this one with async_op=True, all post the nonblocking form.
        if not all(theirs[r][-1] for r in recvs):
            work._blocking = self._posting_blocking = False

    def _check_header(self, op_name: str, r: int, mine: np.ndarray, theirs: np.ndarray) -> None:
        me, other = self.global_rank, self.global_ranks[r]
        where = f"ferrotorch.distributed: {op_name} on rank {me}"
        if theirs[0] != mine[0] or theirs[1] != mine[1]:
            their_op = _OPS[theirs[1]] if 0 <= theirs[1] < len(_OPS) else "?"
            raise RuntimeError(
                f"{where}: rank {other} called {their_op} (its collective #{theirs[0]}) while this rank called "
                f"{op_name} (#{mine[0]}); all ranks must call the same collectives in the same order"
            )
        if theirs[2] != mine[2] or theirs[4] != mine[4] or theirs[5] != mine[5] or np.any(theirs[6:-1] != mine[6:-1]):
            nd_t, nd_m = min(int(theirs[4]), _MAX_DIMS), min(int(mine[4]), _MAX_DIMS)
            raise RuntimeError(
                f"{where}: rank {other} passed a tensor of {_describe(theirs[6 : 6 + nd_t], int(theirs[2]))}, "
                f"this rank one of {_describe(mine[6 : 6 + nd_m], int(mine[2]))}; all ranks must pass the same shape and dtype"
            )
        if theirs[3] != mine[3]:
            raise RuntimeError(
                f"{where}: rank {other} used root rank {self.global_ranks[theirs[3]]}, this rank "
                f"{self.global_ranks[mine[3]]}; all ranks must name the same src/dst"
            )

    # -- teardown ---------------------------------------------------------------------------
    def free(self) -> None:
        """Releases the communicators (after the operations in flight finish)."""
        if self._broken is None:
            with contextlib.suppress(Exception):
                self.wait_all()
        for c in (self._header_comm, self._p2p_comm, self._p2p_header_comm):
            with contextlib.suppress(Exception):
                c.Free()


def install_termination_handler() -> None:
    """On SIGTERM (mpirun ending the job after a rank died) raise an error that names the
    operation this rank is waiting in, instead of vanishing silently."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: Any) -> None:
        if _current_wait:
            work, group = _current_wait[-1]
            raise DistBackendError(
                f"ferrotorch.distributed: {work.op_name} on rank {group.global_rank} was interrupted: the launcher is "
                "ending the job because another rank failed (see its report above)"
            )
        signal.signal(signal.SIGTERM, previous if callable(previous) else signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_term)
    _abort_job_on_uncaught_error()


def _abort_job_on_uncaught_error() -> None:
    """An uncaught exception on one rank ends every rank (as torchrun does): left alone, MPI
    would keep the others running until they finish or time out."""
    previous_hook = sys.excepthook

    def hook(kind: Any, value: Any, tb: Any) -> None:
        previous_hook(kind, value, tb)
        sys.stderr.flush()
        from mpi4py import MPI

        MPI.COMM_WORLD.Abort(1)

    sys.excepthook = hook


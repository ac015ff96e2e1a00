"""Pickling of tensors between processes: a tensor travels as a shared-memory descriptor.

Registered with ``multiprocessing``'s ForkingPickler (used by Queue, Pipe, Pool and the
arguments of spawned processes), so sending a tensor moves its storage into shared memory
(as PyTorch does) and the receiver maps the same bytes instead of unpickling a copy.
"""

from __future__ import annotations

import os
import resource
import secrets
import sys
import threading
import time
import types
from multiprocessing import util
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any, Callable, Tuple

from .. import _core

Tensor = _core.Tensor
_raised_fd_limit = [False]


def _raise_fd_limit() -> None:
    # Every shared storage in flight holds a descriptor; the default soft limit (1024) is
    # what makes PyTorch users meet "received 0 items of ancdata".
    if _raised_fd_limit[0]:
        return
    _raised_fd_limit[0] = True
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else max(soft, 65536), hard))
        except (ValueError, OSError):
            pass


# A sender's exit waits this long for receivers to take the descriptors it handed out.
HANDOFF_WAIT_SECONDS = 10.0


def _pending_handoffs() -> int:
    from multiprocessing import resource_sharer

    sharer = resource_sharer._resource_sharer
    with sharer._lock:
        return len(sharer._cache)


def _wait_for_handoffs() -> None:
    # A descriptor queued for another process is served by this process's resource sharer;
    # exiting before the receiver took it would leave the receiver with nothing to map.
    deadline = time.monotonic() + HANDOFF_WAIT_SECONDS
    parent = os.getppid()
    waited = False
    while _pending_handoffs() and time.monotonic() < deadline and os.getppid() == parent:
        waited = True
        time.sleep(0.005)
    if waited:
        # The last descriptor leaves the cache before it is sent: let that send finish.
        time.sleep(0.05)


def _listen_in_abstract_namespace(sharer: Any) -> None:
    """Starts ``sharer``'s listener on a Linux abstract socket (called by its ``register``).

    The stock listener is a socket file that multiprocessing unlinks at exit priority 0,
    while a queue's feeder thread may still be pickling tensors: a receiver arriving after
    that found no socket, and a descriptor pickled during that window was lost. An abstract
    socket has no file; it lives exactly as long as this process keeps it open.
    """
    from multiprocessing import process
    from multiprocessing.connection import Listener

    assert sharer._listener is None, "Already have Listener"
    address = f"\0ferrotorch-{os.getpid()}-{secrets.token_hex(8)}"
    sharer._listener = Listener(address, "AF_UNIX", backlog=128, authkey=process.current_process().authkey)
    sharer._address = sharer._listener.address
    thread = threading.Thread(target=sharer._serve, daemon=True)
    thread.start()
    sharer._thread = thread


def _use_abstract_sockets() -> None:
    from multiprocessing import resource_sharer

    if sys.platform.startswith("linux"):
        sharer = resource_sharer._resource_sharer
        sharer._start = types.MethodType(_listen_in_abstract_namespace, sharer)


class _ExitHook:
    """Holds the exit wait of this process; re-registered in forked children, whose
    finalizers multiprocessing clears at start."""

    def register(self) -> None:
        # Below the priority of the queues' feeder-thread flush (-5), so it runs after it:
        # the flush is where queued tensors are pickled.
        util.Finalize(None, _wait_for_handoffs, exitpriority=-10)


_exit_hook = _ExitHook()


def _install_exit_hook() -> None:
    _exit_hook.register()
    util.register_after_fork(_exit_hook, _ExitHook.register)


def _receive_fd(dup_fd: Any) -> int:
    try:
        return dup_fd.detach()
    except (ConnectionError, FileNotFoundError, EOFError, OSError) as e:
        raise RuntimeError(
            "ferrotorch.multiprocessing: could not receive a shared tensor: the sending process exited "
            f"before the tensor was taken ({e}). Receive tensors (e.g. queue.get()) before joining the sender."
        ) from e


def rebuild_tensor(cls: type, dup_fd: Any, nbytes: int, dtype: Any, shape: Tuple[int, ...], strides: Tuple[int, ...], offset: int, requires_grad: bool) -> Tensor:
    """Maps a tensor sent by another process (the receiving side of ``reduce_tensor``)."""
    _raise_fd_limit()
    t = _core._from_shared_fd(_receive_fd(dup_fd), nbytes, dtype, list(shape), list(strides), offset)
    if cls is not Tensor:
        from ..nn.parameter import Parameter

        if issubclass(cls, Parameter):
            return cls(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(t: Tensor) -> Tuple[Callable[..., Tensor], Tuple[Any, ...]]:
    """Moves ``t``'s storage into shared memory and pickles a descriptor to it."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
            "support crossing process boundaries. If you just want to transfer the data, call detach() on "
            "the tensor before serializing (e.g., putting it on the queue)."
        )
    _raise_fd_limit()
    fd, nbytes = _core._shared_handle(t)
    return rebuild_tensor, (type(t), DupFd(fd), nbytes, t.dtype, tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.requires_grad)


def init_reductions() -> None:
    """Registers the tensor reductions with multiprocessing (done on import of ferrotorch)."""
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    _use_abstract_sockets()
    _install_exit_hook()

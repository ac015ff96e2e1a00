"""``DataLoader``: batches from a dataset, in the main process or in worker processes.

Workers receive batch indices on per-worker queues and send collated batches back on one
result queue. A worker builds each batch directly in shared memory, so the main process
maps it instead of unpickling a copy (see ferrotorch.multiprocessing). Batches are yielded
in sampler order whatever the number of workers, so the same seed gives the same batches
for any ``num_workers``. A worker exception is re-raised in the main process with the
worker's traceback; a worker that dies is reported (with its exit code or signal) within
a poll interval instead of hanging.
"""

from __future__ import annotations

import itertools
import multiprocessing as python_mp
import queue
import signal
import sys
import time
import traceback
from typing import Any, Callable, Dict, Iterator, List, Optional

from ... import _core
from ... import multiprocessing as _ft_mp  # noqa: F401  (registers the tensor reductions)
from . import _pinning
from ._worker_info import WorkerInfo, _set_worker_info, get_worker_info
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]

_POLL_SECONDS = 0.1
# Room asked of /dev/shm per batch in flight before any worker starts; a batch that does
# not fit later fails in the worker with the same advice (its pages are reserved up front).
_MIN_SHM_PER_BATCH = 1 << 20


class _ExceptionWrapper:
    def __init__(self, where: str) -> None:
        self.exc_type = sys.exc_info()[0]
        self.msg = f"Caught {self.exc_type.__name__} {where}.\nOriginal {''.join(traceback.format_exception(*sys.exc_info()))}"

    def reraise(self) -> None:
        try:
            err = self.exc_type(self.msg)
        except Exception:
            err = RuntimeError(self.msg)
        raise err


def _seed_worker(seed: int) -> None:
    _core.manual_seed(seed)
    import random

    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % 2**32)


def _worker_loop(dataset: Any, index_queue: Any, result_queue: Any, collate_fn: Callable, auto_collation: bool, drop_last: bool, worker_id: int, num_workers: int, seed: int, init_fn: Optional[Callable], is_iterable: bool, batch_size: Optional[int]) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # One kernel thread per worker: the workers are the parallelism (as in PyTorch).
        _core._set_num_threads(1)
        _seed_worker(seed)
        _set_worker_info(WorkerInfo(worker_id, num_workers, seed, dataset))
        if init_fn is not None:
            init_fn(worker_id)
        epoch, it = None, None
        while True:
            task = index_queue.get()
            if task is None:
                break
            task_epoch, idx, indices = task
            if task_epoch != epoch:
                # A new pass (persistent workers): iterable datasets start over.
                epoch = task_epoch
                it = iter(dataset) if is_iterable else None
            try:
                if is_iterable:
                    items = list(itertools.islice(it, batch_size if auto_collation else 1))
                    if not items or (auto_collation and drop_last and len(items) < batch_size):
                        result_queue.put((epoch, idx, StopIteration(), worker_id))
                        continue
                    data = collate_fn(items) if auto_collation else collate_fn(items[0])
                elif auto_collation:
                    data = collate_fn([dataset[i] for i in indices])
                else:
                    data = collate_fn(dataset[indices])
            except Exception:
                data = _ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            result_queue.put((epoch, idx, data, worker_id))
            del data
    except KeyboardInterrupt:
        pass


class DataLoader:
    """Iterates over a dataset in batches (PyTorch's arguments and defaults)."""

    def __init__(self, dataset: Any, batch_size: Optional[int] = 1, shuffle: Optional[bool] = None, sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0, collate_fn: Optional[Callable] = None, pin_memory: bool = False, drop_last: bool = False, timeout: float = 0, worker_init_fn: Optional[Callable] = None, multiprocessing_context: Any = None, generator: Any = None, *, prefetch_factor: Optional[int] = None, persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.worker_init_fn, self.multiprocessing_context, self.generator = worker_init_fn, multiprocessing_context, generator
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.persistent_workers = persistent_workers
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler/batch_sampler option")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._is_iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last, self.sampler, self.batch_sampler = batch_size, drop_last, sampler, batch_sampler
        self._auto_collation = batch_sampler is not None or (self._is_iterable and batch_size is not None)
        self.collate_fn = collate_fn or (default_collate if self._auto_collation else default_convert)

    def __len__(self) -> int:
        if self._is_iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    def _index_iter(self) -> Iterator[Any]:
        if self._is_iterable:
            return itertools.count()
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> Iterator[Any]:
        # A seed is drawn for each new iterator, workers or not, so the sampler sees the same
        # RNG state; kept workers are not re-seeded, so later passes draw none (as in PyTorch).
        if self.num_workers == 0:
            self._draw_base_seed()
            return self._single_process()
        if self.persistent_workers:
            it = getattr(self, "_workers_iter", None)
            if it is None or it.done:
                it = self._workers_iter = _MultiProcessIter(self, self._draw_base_seed())
            else:
                it._start_pass()
            return it
        return _MultiProcessIter(self, self._draw_base_seed())

    def _draw_base_seed(self) -> int:
        return int(_core.randint(0, 2**62, (1,), generator=self.generator).item())

    def _single_process(self) -> Iterator[Any]:
        pinning = self.pin_memory and _pinning.pinning_available()
        for batch in self._single_process_batches():
            yield _pinning.pin(batch) if pinning else batch

    def _single_process_batches(self) -> Iterator[Any]:
        if self._is_iterable:
            it = iter(self.dataset)
            if not self._auto_collation:
                for item in it:
                    yield self.collate_fn(item)
                return
            while True:
                items = list(itertools.islice(it, self.batch_size))
                if not items or (self.drop_last and len(items) < self.batch_size):
                    return
                yield self.collate_fn(items)
        for indices in self._index_iter():
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in indices])
            else:
                yield self.collate_fn(self.dataset[indices])


class _MultiProcessIter:
    """Drives the worker processes: one pass over the data, or every pass when the loader
    keeps its workers (``persistent_workers``)."""

    def __init__(self, loader: DataLoader, base_seed: int) -> None:
        self.loader = loader
        self.done = False
        self.workers: List[Any] = []
        self.index_queues: List[Any] = []
        n = loader.num_workers
        prefetch = loader.prefetch_factor or 2
        available = _core._shm_available()
        if sys.platform.startswith("linux") and available is None:
            raise RuntimeError("DataLoader: /dev/shm is missing, and worker processes send batches through shared memory. Mount a tmpfs on /dev/shm or use num_workers=0.")
        _core._check_shm_capacity(n * prefetch * _MIN_SHM_PER_BATCH)
        ctx = loader.multiprocessing_context
        if isinstance(ctx, str):
            ctx = python_mp.get_context(ctx)
        ctx = ctx or python_mp.get_context()
        self.result_queue = ctx.Queue()
        for w in range(n):
            iq = ctx.Queue()
            p = ctx.Process(target=_worker_loop, args=(loader.dataset, iq, self.result_queue, loader.collate_fn, loader._auto_collation, loader.drop_last, w, n, base_seed + w, loader.worker_init_fn, loader._is_iterable, loader.batch_size), daemon=True)
            p.start()
            self.index_queues.append(iq)
            self.workers.append(p)
        self.epoch = -1
        self._start_pass()

    def _start_pass(self) -> None:
        """Starts a pass over the sampler; results of an abandoned pass are dropped."""
        self.epoch += 1
        self.pinning = self.loader.pin_memory and _pinning.pinning_available()
        self.indices = self.loader._index_iter()
        self.send_idx = 0
        self.rcvd_idx = 0
        self.buffer: Dict[int, Any] = {}
        self.outstanding = 0
        self.exhausted_workers: set = set()
        self.pass_done = False
        for _ in range(len(self.workers) * (self.loader.prefetch_factor or 2)):
            self._send()

    def _send(self) -> None:
        if self.done or self.pass_done:
            return
        live = [w for w in range(len(self.workers)) if w not in self.exhausted_workers]
        if not live:
            return
        try:
            indices = next(self.indices)
        except StopIteration:
            return
        w = live[self.send_idx % len(live)] if self.loader._is_iterable else self.send_idx % len(self.workers)
        self.index_queues[w].put((self.epoch, self.send_idx, indices))
        self.send_idx += 1
        self.outstanding += 1

    def __iter__(self) -> "_MultiProcessIter":
        return self

    def __len__(self) -> int:
        return len(self.loader)

    def _check_workers(self) -> None:
        for w, p in enumerate(self.workers):
            if not p.is_alive():
                code = p.exitcode
                how = f"killed by signal: {signal.Signals(-code).name}" if code is not None and code < 0 else f"exited unexpectedly with exit code {code}"
                pid = p.pid
                self._shutdown()
                raise RuntimeError(f"DataLoader worker (pid {pid}) is {how}. Worker {w} died; a killed worker is often out of memory or out of shared memory.")

    def _get(self) -> Any:
        waited = 0.0
        while True:
            try:
                return self.result_queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                waited += _POLL_SECONDS
                self._check_workers()
                if self.loader.timeout and waited >= self.loader.timeout:
                    self._shutdown()
                    raise RuntimeError(f"DataLoader timed out after {self.loader.timeout} seconds")
            except (RuntimeError, ConnectionError, EOFError, OSError):
                # A worker that dies while its batch is handed over breaks the handoff:
                # report the death (its exit may take a moment to be seen) over the symptom.
                for _ in range(20):
                    self._check_workers()
                    time.sleep(0.05)
                raise

    def __next__(self) -> Any:
        if self.done:
            raise StopIteration
        while True:
            if self.rcvd_idx in self.buffer:
                data = self.buffer.pop(self.rcvd_idx)
                self.rcvd_idx += 1
                self._send()
                if isinstance(data, StopIteration):
                    continue
                if isinstance(data, _ExceptionWrapper):
                    self._shutdown()
                    data.reraise()
                return _pinning.pin(data) if self.pinning else data
            if self.outstanding == 0:
                self._end_pass()
                raise StopIteration
            epoch, idx, data, w = self._get()
            if epoch != self.epoch:
                continue
            self.outstanding -= 1
            if isinstance(data, StopIteration) and self.loader._is_iterable:
                self.exhausted_workers.add(w)
            self.buffer[idx] = data

    def _end_pass(self) -> None:
        self.pass_done = True
        if not self.loader.persistent_workers:
            self._shutdown()

    def _shutdown(self) -> None:
        if self.done:
            return
        self.done = True
        self.buffer = {}
        for q in self.index_queues:
            try:
                q.put(None)
            except Exception:
                pass
        for p in self.workers:
            p.join(timeout=1.0)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        for q in self.index_queues + [self.result_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown()
        except Exception:
            pass

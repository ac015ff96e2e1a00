"""The gradient reducer behind DistributedDataParallel: parameters are packed into buckets
(in reverse registration order, roughly the order backward produces their gradients); a
hook after each parameter's gradient accumulation copies it into its bucket, and buckets
start their asynchronous summing all-reduces as soon as they are full, in bucket order (so
every rank, and a joined rank shadowing them, issues the same sequence) while backward goes
on. When the last bucket is started, the reducer waits for all and writes the sums divided
by the world size (or, under ``join(divide_by_initial_world_size=False)``, by the number of
ranks still training) back into ``.grad``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ... import _core
from ...distributed import ReduceOp, Work, all_reduce

Tensor = _core.Tensor
FIRST_BUCKET_BYTES = 1024 * 1024  # the first bucket is small, so communication starts early


class _Bucket:
    def __init__(self, indices: List[int], params: Sequence[Tensor]) -> None:
        self.indices = indices
        self.sizes = [params[i].numel() for i in indices]
        self.offsets = list(np.cumsum([0] + self.sizes[:-1]))
        self.flat = _core.zeros(sum(self.sizes), dtype=params[indices[0]].dtype)
        self.view = np.asarray(self.flat)  # the bucket's memory, written by grad copies
        self.pending = 0
        self.work: Any = None


def _bucket_indices(params: Sequence[Tensor], cap_bytes: int) -> List[List[int]]:
    """Parameter indices grouped into buckets of at most ``cap_bytes`` per dtype."""
    buckets: List[List[int]] = []
    open_by_dtype: Dict[Any, List[int]] = {}
    size_by_dtype: Dict[Any, int] = {}
    limit = min(FIRST_BUCKET_BYTES, cap_bytes)
    for i in reversed(range(len(params))):
        p = params[i]
        nbytes = p.numel() * p.element_size()
        cur = open_by_dtype.setdefault(p.dtype, [])
        if cur and size_by_dtype[p.dtype] + nbytes > limit:
            buckets.append(cur)
            cur = open_by_dtype[p.dtype] = []
            size_by_dtype[p.dtype] = 0
            limit = cap_bytes
        cur.append(i)
        size_by_dtype[p.dtype] = size_by_dtype.get(p.dtype, 0) + nbytes
    buckets.extend(b for b in open_by_dtype.values() if b)
    return buckets


class Reducer:
    """Averages the gradients of ``params`` across ``group`` during backward."""

    def __init__(self, params: List[Tensor], group: Any, cap_bytes: int, find_unused: bool) -> None:
        self.params, self.group, self.find_unused = params, group, find_unused
        self.buckets = [_Bucket(ix, params) for ix in _bucket_indices(params, cap_bytes)]
        self.where = {}  # param index -> (bucket, position in bucket)
        for b in self.buckets:
            for pos, i in enumerate(b.indices):
                self.where[i] = (b, pos)
        self.ready = [False] * len(params)
        self.used = np.ones(len(params), np.uint8)
        # The last all-reduced used-parameter flags: a joined rank contributes these (as
        # PyTorch's does), so a parameter used in the last iteration stays "used" for it.
        self.global_used = np.zeros(len(params), np.uint8)
        self.expect_backward = False  # a forward ran and its reduction has not finished
        self.next_bucket = 0  # buckets start in index order
        self.active_ranks: Optional[Work] = None  # under join: how many ranks still train
        self.grad_seen = False  # a backward delivered gradients for the pending reduction
        self.enabled = True  # False inside no_sync(): gradients only accumulate
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i)) for i, p in enumerate(params)]

    def _hook(self, i: int) -> Any:
        def on_grad_accumulated(_: Tensor) -> None:
            if self.enabled and self.expect_backward:
                self.grad_seen = True
            self.mark_ready(i)

        return on_grad_accumulated

    # -- one iteration ------------------------------------------------------------------------
    def prepare_for_backward(self, outputs: Any) -> None:
        """Called by forward when gradients will be synchronized in the coming backward."""
        if self.expect_backward and self.grad_seen:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. "
                "This error indicates that your module has parameters that were not used in producing loss. "
                "You can enable unused parameter detection by passing the keyword argument "
                "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`."
            )
        self.ready = [False] * len(self.params)
        self.next_bucket = 0
        self.grad_seen = False
        for b in self.buckets:
            b.pending, b.work = len(b.indices), None
        self.expect_backward = True
        if self.find_unused:
            reached = _reachable_leaves(outputs)
            self.used = np.array([_leaf_key(p) in reached for p in self.params], np.uint8)
            for i, u in enumerate(self.used):
                if not u:
                    self.mark_ready(i)

    def mark_ready(self, i: int) -> None:
        if not self.enabled or not self.expect_backward or self.ready[i]:
            return
        self.ready[i] = True
        b, pos = self.where[i]
        off, n = b.offsets[pos], b.sizes[pos]
        g = self.params[i].grad
        if g is None or not self.used[i]:
            b.view[off : off + n] = 0
        else:
            b.view[off : off + n] = np.asarray(g.detach()).reshape(-1)
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            nb = self.buckets[self.next_bucket]
            nb.work = all_reduce(nb.flat, ReduceOp.SUM, group=self.group, async_op=True)
            self.next_bucket += 1
            if self.next_bucket == len(self.buckets):
                self.finalize()
                return
        self.group._progress()  # lets requests in flight move while backward runs

    def set_active_ranks(self, work: Optional[Work], divide_by_initial_world_size: bool) -> None:
        """Under join: the all-reduce counting the ranks that still train divides the
        gradients, unless they are divided by the initial world size."""
        self.active_ranks = None if divide_by_initial_world_size else work

    def _divisor(self) -> float:
        if self.active_ranks is None:
            return float(self.group.size())
        return float(self.active_ranks.result()[0].item())

    def finalize(self) -> None:
        """Waits for every bucket and writes the averaged gradients into ``.grad``."""
        globally_used = self.used
        if self.find_unused:
            flags = _core.from_numpy(self.used.copy())
            all_reduce(flags, ReduceOp.MAX, group=self.group)
            globally_used = self.global_used = np.asarray(flags).copy()
        divisor = self._divisor()
        for b in self.buckets:
            b.work.wait()
            for pos, i in enumerate(b.indices):
                p = self.params[i]
                off, n = b.offsets[pos], b.sizes[pos]
                avg = b.view[off : off + n] / divisor
                if p.grad is not None:
                    np.asarray(p.grad.detach()).reshape(-1)[:] = avg
                elif globally_used[i]:
                    p.grad = _core.from_numpy(avg.copy()).reshape(tuple(p.shape))
        self.expect_backward = False

    def shadow_backward(self) -> None:
        """On a joined rank: the collectives of one backward, contributing zero gradients."""
        for b in self.buckets:
            all_reduce(_core.zeros_like(b.flat), ReduceOp.SUM, group=self.group)
        if self.find_unused:
            flags = _core.from_numpy(self.global_used.copy())
            all_reduce(flags, ReduceOp.MAX, group=self.group)
            self.global_used = np.asarray(flags).copy()

    def remove_hooks(self) -> None:
        for h in self.handles:
            h.remove()
        self.handles = []


def _leaf_key(t: Tensor) -> tuple:
    return (t.data_ptr(), tuple(t.shape), t.dtype)


def _reachable_leaves(outputs: Any) -> set:
    """Keys of the leaves the autograd graph of ``outputs`` reaches."""
    roots: List[Any] = []
    stack: List[Any] = [outputs]
    while stack:  # tensors inside nested outputs (tuples, lists, dicts)
        o = stack.pop()
        if isinstance(o, Tensor):
            roots.append(o)
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
    keys, seen = set(), set()
    nodes = [t.grad_fn for t in roots if t.grad_fn is not None]
    keys.update(_leaf_key(t) for t in roots if t.grad_fn is None and t.requires_grad)
    while nodes:
        n = nodes.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        var: Optional[Tensor] = getattr(n, "variable", None)
        if var is not None:
            keys.add(_leaf_key(var))
        nodes.extend(f for f, _ in n.next_functions if f is not None)
    return keys

"""``DistributedDataParallel``: one model replica per process, gradients averaged across
processes during backward, so every replica takes the same optimizer step."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

import numpy as np

from ... import _core
from ... import distributed as dist
from ...distributed.algorithms.join import Join, Joinable, JoinHook
from ..modules.module import Module
from ._reducer import Reducer

Tensor = _core.Tensor


def _broadcast_coalesced(tensors: List[Tensor], group: Any, src: int = 0) -> None:
    """Copies the values of group rank ``src`` into ``tensors`` on every rank: one broadcast per dtype."""
    by_dtype: dict = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for same in by_dtype.values():
        flat = _core.cat([t.detach().reshape(-1) for t in same]) if same else None
        dist.broadcast(flat, group=group, group_src=src)
        values, off = np.asarray(flat), 0
        for t in same:
            n = t.numel()
            t.detach().copy_(_core.from_numpy(values[off : off + n].copy()).reshape(tuple(t.shape)))
            off += n


class DistributedDataParallel(Module, Joinable):
    """Wraps ``module`` so that ``backward()`` averages gradients across the process group.

    At construction, rank 0's parameters and buffers are copied to every rank. Parameters go
    into buckets of ``bucket_cap_mb`` MiB (25 by default); as soon as the gradients of a
    bucket are accumulated during backward, its all-reduce starts asynchronously, overlapping
    with the rest of backward. Inside ``no_sync()`` gradients only accumulate locally; the
    next synchronized backward averages the sum. With ``find_unused_parameters=True``,
    parameters that the forward output does not depend on count as zero gradients.
    ``state_dict()`` keys carry the ``module.`` prefix, as PyTorch's. ``join()`` lets ranks
    with fewer batches than the others finish early (see ``distributed.algorithms.Join``).
    ``static_graph`` is accepted; it changes nothing here, as buckets are fixed anyway.

    >>> # ddp = DistributedDataParallel(model); loss_fn(ddp(x), y).backward(); opt.step()
    """

    def __init__(
        self,
        module: Module,
        device_ids: Optional[List[Any]] = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: Optional[bool] = None,
        init_sync: bool = True,
        process_group: Any = None,
        bucket_cap_mb: Optional[float] = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params: Any = None,
        param_to_hook_all_reduce: Any = None,
        mixed_precision: Any = None,
        device_mesh: Any = None,
        skip_all_reduce_unused_params: bool = False,
    ) -> None:
        super().__init__()
        Joinable.__init__(self)
        group = process_group if process_group is not None else dist.group.WORLD
        if group is None:
            raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
        self.module = module
        self.process_group = group
        self.device_ids = device_ids
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        params: List[Tensor] = []
        for p in module.parameters():
            if p.requires_grad and all(p is not q for q in params):
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.")
        self._ddp_params = params
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        if init_sync:
            _broadcast_coalesced([*module.parameters(), *module.buffers()], group)
        self.reducer = Reducer(params, group, self.bucket_bytes_cap, find_unused_parameters)
        self._divide_by_initial_world_size = True

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        active = Join.notify_join_context(self)
        self.reducer.set_active_ranks(active, self._divide_by_initial_world_size)
        if self._will_sync_module_buffers():
            # Under join, rank 0 may have stopped training: the highest rank still training leads.
            src = self._find_common_rank(self.process_group.rank(), True) if self._join_config.enable else 0
            _broadcast_coalesced(list(self.module.buffers()), self.process_group, src)
        if self._join_config.enable:
            self._check_global_requires_backward_grad_sync(is_joined_rank=False)
        out = self.module(*inputs, **kwargs)
        self.reducer.enabled = self.require_backward_grad_sync
        syncing = _core.is_grad_enabled() and self.require_backward_grad_sync
        if syncing:
            self.reducer.prepare_for_backward(out)
        self.require_forward_param_sync = syncing
        return out

    # -- join: uneven inputs ----------------------------------------------------------------
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True, throw_on_early_termination: bool = False) -> Join:
        """A ``Join`` context for this model alone: ranks that run out of batches shadow the
        gradient all-reduces of the others. With ``divide_by_initial_world_size`` (default)
        gradients are divided by the world size, else by the number of ranks still training."""
        return Join([self], enable, throw_on_early_termination, divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook that shadows this model's forward and backward collectives on a joined rank."""
        return _DDPJoinHook(self, divide_by_initial_world_size=kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self) -> Any:
        """The device of the model's parameters (where the join all-reduces run)."""
        return self._ddp_params[0].device

    @property
    def join_process_group(self) -> Any:
        """The process group this model averages over."""
        return self.process_group

    def _will_sync_module_buffers(self) -> bool:
        return self.require_forward_param_sync and self.broadcast_buffers and any(True for _ in self.module.buffers())

    def _find_common_rank(self, input_rank: int, rank_cond: bool) -> int:
        """The highest group rank among those where ``rank_cond`` holds."""
        rank = _core.tensor([input_rank if rank_cond else -1])
        dist.all_reduce(rank, op=dist.ReduceOp.MAX, group=self.process_group)
        if rank.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process.")
        return int(rank.item())

    def _check_global_requires_backward_grad_sync(self, is_joined_rank: bool) -> Any:
        flag = _core.ones(1) if not is_joined_rank and self.require_backward_grad_sync else _core.zeros(1)
        return dist.all_reduce(flag, group=self.process_group, async_op=True)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within this context, backward accumulates gradients locally without communicating;
        the first backward after it averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def __del__(self) -> None:
        reducer = self.__dict__.get("reducer")
        if reducer is not None:
            with contextlib.suppress(Exception):
                reducer.remove_hooks()


class _DDPJoinHook(JoinHook):
    """Shadows a DistributedDataParallel iteration on a rank that ran out of inputs."""

    def __init__(self, ddp: DistributedDataParallel, divide_by_initial_world_size: bool) -> None:
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self) -> None:
        ddp = self.ddp
        if ddp._will_sync_module_buffers():
            src = ddp._find_common_rank(ddp.process_group.rank(), False)
            _broadcast_coalesced(list(ddp.module.buffers()), ddp.process_group, src)
        work = ddp._check_global_requires_backward_grad_sync(is_joined_rank=True)
        should_sync = work.result()[0].item() != 0
        ddp.require_forward_param_sync = should_sync
        if should_sync:
            ddp.reducer.shadow_backward()

    def post_hook(self, is_last_joiner: bool) -> None:
        """The ranks that trained longest hold the final model: every rank copies it."""
        ddp = self.ddp
        src = ddp._find_common_rank(ddp.process_group.rank(), is_last_joiner)
        _broadcast_coalesced([*ddp.module.parameters(), *ddp.module.buffers()], ddp.process_group, src)

"""``DistributedDataParallel``: one model replica per process, gradients averaged across
processes during backward, so every replica takes the same optimizer step."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

import numpy as np

from ... import _core
from ... import distributed as dist
from ..modules.module import Module
from ._reducer import Reducer

Tensor = _core.Tensor


def _broadcast_coalesced(tensors: List[Tensor], group: Any) -> None:
    """Copies rank 0's values into ``tensors`` on every rank: one broadcast per dtype."""
    by_dtype: dict = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for same in by_dtype.values():
        flat = _core.cat([t.detach().reshape(-1) for t in same]) if same else None
        dist.broadcast(flat, src=dist.get_global_rank(group, 0), group=group)
        values, off = np.asarray(flat), 0
        for t in same:
            n = t.numel()
            t.detach().copy_(_core.from_numpy(values[off : off + n].copy()).reshape(tuple(t.shape)))
            off += n


class DistributedDataParallel(Module):
    """Wraps ``module`` so that ``backward()`` averages gradients across the process group.

    At construction, rank 0's parameters and buffers are copied to every rank. Parameters go
    into buckets of ``bucket_cap_mb`` MiB (25 by default); as soon as the gradients of a
    bucket are accumulated during backward, its all-reduce starts asynchronously, overlapping
    with the rest of backward. Inside ``no_sync()`` gradients only accumulate locally; the
    next synchronized backward averages the sum. With ``find_unused_parameters=True``,
    parameters that the forward output does not depend on count as zero gradients.
    ``state_dict()`` keys carry the ``module.`` prefix, as PyTorch's.

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

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                _broadcast_coalesced(buffers, self.process_group)
        out = self.module(*inputs, **kwargs)
        self.reducer.enabled = self.require_backward_grad_sync
        if _core.is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(out)
        return out

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

"""nn.DataParallel as PyTorch runs it on a machine without GPUs: a wrapper that calls its module
directly (state_dict keys gain the ``module.`` prefix, as users of checkpoints expect)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .module import Module


class DataParallel(Module):
    """Splits batches across GPUs in PyTorch; with no GPU (ferrotorch is CPU-only) it runs
    ``module`` as it is, as PyTorch's does when no device is available.

    >>> import ferrotorch as torch
    >>> list(torch.nn.DataParallel(torch.nn.Linear(2, 1)).state_dict())
    ['module.weight', 'module.bias']
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        # Without an accelerator PyTorch ignores device_ids/output_device/dim and keeps none.
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)

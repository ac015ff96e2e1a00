"""``torch.func.replace_all_batch_norm_modules_``: batch norm without running statistics, so
that vmap over a model does not write to shared buffers."""

from __future__ import annotations

from typing import Any


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Sets ``running_mean``/``running_var``/``num_batches_tracked`` to None and
    ``track_running_stats`` to False on every batch-norm module under ``root``; returns root."""
    from ..nn.modules.normalization import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root

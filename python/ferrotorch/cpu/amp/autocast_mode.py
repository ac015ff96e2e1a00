"""``torch.cpu.amp.autocast``: ``torch.amp.autocast("cpu", ...)`` under its deprecated name."""

from __future__ import annotations

import warnings
from typing import Any

from ... import _core
from ...amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):
    """Deprecated: use ``torch.amp.autocast("cpu", ...)``."""

    def __init__(self, enabled: bool = True, dtype: Any = _core.bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

"""``torch.cuda.amp.autocast`` and ``custom_fwd``/``custom_bwd``: deprecated CUDA spellings."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

from ... import _core
from ...amp import autocast_mode

__all__ = ["autocast", "custom_bwd", "custom_fwd"]


class autocast(autocast_mode.autocast):
    """Deprecated: use ``torch.amp.autocast("cuda", ...)``."""

    def __init__(self, enabled: bool = True, dtype: Any = _core.float16, cache_enabled: bool = True) -> None:
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd: Optional[Callable[..., Any]] = None, *, cast_inputs: Optional[Any] = None) -> Any:
    """Deprecated: use ``torch.amp.custom_fwd(device_type="cuda", ...)``."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return autocast_mode.custom_fwd(fwd=fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable[..., Any]) -> Any:
    """Deprecated: use ``torch.amp.custom_bwd(device_type="cuda")``."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return autocast_mode.custom_bwd(bwd, device_type="cuda")

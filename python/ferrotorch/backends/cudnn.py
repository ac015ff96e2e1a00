"""``torch.backends.cudnn``: cuDNN's switches. ferrotorch's CUDA backend has no cuDNN, so
``is_available()`` is False; the switches keep PyTorch's defaults and accept PyTorch's values."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from . import _flag_module

__all__ = ["flags", "is_available", "version"]


def is_available() -> bool:
    """False: no cuDNN here."""
    return False


def version() -> Optional[int]:
    """None: no cuDNN here."""
    return None


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False, allow_tf32: bool = True, fp32_precision: str = "none", depthwise_kernel: str = "auto") -> Iterator[None]:
    """Sets the cuDNN switches for the block."""
    import sys

    with _flag_module.temporarily(sys.modules[__name__], {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic, "allow_tf32": allow_tf32}):
        yield


class _CudnnModule(_flag_module.FlagModule):
    enabled = _flag_module.bool_flag("enabled", "set_enabled_cudnn", True)
    benchmark = _flag_module.bool_flag("benchmark", "set_benchmark_cudnn", False)
    deterministic = _flag_module.bool_flag("deterministic", "set_deterministic_cudnn", False)
    # PyTorch's setter names cuBLAS here; kept so messages match.
    allow_tf32 = _flag_module.bool_flag("allow_tf32", "set_allow_tf32_cublas", True)
    benchmark_limit: Any = 10


_flag_module.install(__name__, _CudnnModule)

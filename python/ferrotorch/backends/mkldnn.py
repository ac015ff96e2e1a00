"""``torch.backends.mkldnn``: oneDNN's switches. ferrotorch has its own CPU kernels and no
oneDNN, so ``is_available()`` is False; the switches keep PyTorch's defaults."""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

from . import _flag_module

__all__ = ["flags", "is_available"]


def is_available() -> bool:
    """False: no oneDNN here."""
    return False


@contextlib.contextmanager
def flags(enabled: bool = False, deterministic: bool = False, allow_tf32: bool = True, fp32_precision: str = "none") -> Iterator[None]:
    """Sets the oneDNN switches for the block."""
    with _flag_module.temporarily(sys.modules[__name__], {"enabled": enabled, "deterministic": deterministic}):
        yield


class _MkldnnModule(_flag_module.FlagModule):
    enabled = _flag_module.bool_flag("enabled", "set_enabled_mkldnn", True)
    deterministic = _flag_module.bool_flag("deterministic", "set_deterministic_mkldnn", False)


_flag_module.install(__name__, _MkldnnModule)

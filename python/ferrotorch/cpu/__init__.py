"""``torch.cpu``: the CPU counterparts of ``torch.cuda``'s device functions (for
device-agnostic code) and ``torch.cpu.amp``."""

from __future__ import annotations

from typing import Any

from . import amp

__all__ = ["amp", "current_device", "device_count", "is_available", "is_initialized", "set_device", "synchronize"]


def is_available() -> bool:
    """Always True."""
    return True


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU ops finish before they return."""


def device_count() -> int:
    """One CPU device."""
    return 1


def set_device(device: Any) -> None:
    """Nothing to set: there is one CPU device."""


def current_device() -> str:
    """Always ``"cpu"``."""
    return "cpu"


def is_initialized() -> bool:
    """Always True."""
    return True

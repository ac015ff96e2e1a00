"""Autograd's anomaly-detection switches as process state: ``torch.is_anomaly_enabled``,
``torch.set_anomaly_enabled`` and ``torch.is_anomaly_check_nan_enabled``.

ferrotorch's engine does not yet act on them (no NaN check in backward, no forward traces);
they hold the state PyTorch programs set and read back, e.g. around ``detect_anomaly``."""

from __future__ import annotations

from typing import Any, Tuple

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return _state["check_nan"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off (and its NaN check)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not {type(enabled).__name__}")
    if not isinstance(check_nan, bool):
        raise TypeError(f"set_anomaly_enabled(): argument 'check_nan' (position 2) must be bool, not {type(check_nan).__name__}")
    _state["enabled"], _state["check_nan"] = enabled, check_nan


__all__: Tuple[str, ...] = ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled")
METHODS: Tuple[Any, ...] = ()

"""``torch.autograd.anomaly_mode``: the context managers over the anomaly-detection switches
(``torch.is_anomaly_enabled`` / ``torch.set_anomaly_enabled``). ferrotorch's engine does not
act on the switches yet; the managers keep PyTorch programs' state and read-backs right."""

from __future__ import annotations

import warnings
from typing import Any

from .._anomaly_flags import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled


class detect_anomaly:
    """Turns anomaly detection on inside a ``with`` block (and restores it after)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off at once; as a context manager, restores it at exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


__all__ = ["detect_anomaly", "set_detect_anomaly"]

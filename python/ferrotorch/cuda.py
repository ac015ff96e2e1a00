"""``ferrotorch.cuda``: this build has no CUDA backend, so no device is ever available."""

from __future__ import annotations

from ._core import OutOfMemoryError as OutOfMemoryError  # the same class as torch.OutOfMemoryError


def is_available() -> bool:
    """False: CUDA is not compiled into this build."""
    return False


def device_count() -> int:
    """0: no CUDA devices can be used by this build."""
    return 0


def manual_seed(seed: int) -> None:
    """Accepted for compatibility; there is no CUDA generator to seed."""


def manual_seed_all(seed: int) -> None:
    """Accepted for compatibility; there is no CUDA generator to seed."""


def synchronize(device: object = None) -> None:
    """No-op without CUDA."""

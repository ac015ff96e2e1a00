"""Whether CUDA mixed precision can run at all."""

from __future__ import annotations

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """True when no CUDA device is usable (autocast and GradScaler then disable themselves)."""
    from .. import is_available

    return not is_available()

"""The CPU thread pool's size: ``get_num_threads`` and ``set_num_threads``."""

from __future__ import annotations

from . import _core


def get_num_threads() -> int:
    """Threads the CPU kernels use (the size of the Rust thread pool)."""
    return int(_core._get_num_threads())


def set_num_threads(n: int) -> None:
    """Sets the number of threads the CPU kernels use; the pool is resized at once."""
    if int(n) < 1:
        raise ValueError("set_num_threads: Expected positive number of threads")
    _core._set_num_threads(int(n))

"""``torch.backends.cpu``: what vector instructions the CPU kernels use."""

from __future__ import annotations

import platform

__all__ = ["get_cpu_capability"]


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def get_cpu_capability() -> str:
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"`` (PyTorch's names), as detected at run time.

    >>> import ferrotorch as torch
    >>> torch.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    True
    """
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"

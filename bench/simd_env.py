"""Run the benchmarks at one SIMD level for every library: ``--simd avx2``.

Each library reads its instruction-set cap from the environment when it first loads its
kernels, so ``apply`` must run before ferrotorch, PyTorch and NumPy are imported
(``bench/run.py`` calls it from ``sys.argv`` before its imports).
"""

from __future__ import annotations

import os
import sys
from typing import Dict, List, Optional

LEVELS = ("avx2", "avx512")

# What caps each library at AVX2: ferrotorch's dispatch, PyTorch's ATen kernels, its MKL
# BLAS and its oneDNN convolutions, NumPy's own loops and its OpenBLAS.
AVX2_ENV: Dict[str, str] = {
    "FERROTORCH_SIMD": "avx2",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
}


def env_for(level: str) -> Dict[str, str]:
    """The variables that cap every library at ``level`` (none for the CPU's best)."""
    if level not in LEVELS:
        raise ValueError(f"unknown SIMD level {level!r}; choose one of {', '.join(LEVELS)}")
    return dict(AVX2_ENV) if level == "avx2" else {"FERROTORCH_SIMD": "avx512"}


def level_from_argv(argv: List[str]) -> Optional[str]:
    """The value of ``--simd LEVEL`` or ``--simd=LEVEL`` in ``argv``, if given."""
    for i, arg in enumerate(argv):
        if arg == "--simd" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--simd="):
            return arg.split("=", 1)[1]
    return None


def apply(level: Optional[str]) -> None:
    """Sets the environment for ``level``; refuses once a library has been imported."""
    if level is None:
        return
    loaded = [m for m in ("ferrotorch", "torch", "numpy") if m in sys.modules]
    if loaded:
        raise RuntimeError(f"--simd must be applied before importing {', '.join(loaded)}")
    os.environ.update(env_for(level))


def describe() -> str:
    """The levels the libraries loaded in this process actually run at."""
    parts = []
    ft = sys.modules.get("ferrotorch")
    if ft is not None:
        parts.append(f"ferrotorch {ft._core._simd_level()}")
    pt = sys.modules.get("torch")
    if pt is not None:
        parts.append(f"pytorch {pt.backends.cpu.get_cpu_capability().lower()}")
    np = sys.modules.get("numpy")
    if np is not None:
        from numpy._core._multiarray_umath import __cpu_features__ as features

        parts.append("numpy " + ("avx512" if features.get("X86_V4") else "avx2"))
    return ", ".join(parts)

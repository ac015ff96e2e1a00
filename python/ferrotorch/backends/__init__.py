"""``torch.backends``: switches PyTorch programs set for the libraries behind its kernels
(cuDNN, cuBLAS, oneDNN, MKL, OpenMP, MPS). ferrotorch's kernels are its own, so the switches
are kept with PyTorch's defaults and the libraries report themselves unavailable."""

from __future__ import annotations

import types

from . import cpu, cuda, cudnn, mkldnn


def _unavailable(name: str) -> types.ModuleType:
    mod = types.ModuleType(f"{__name__}.{name}", f"torch.backends.{name}: not part of ferrotorch.")
    mod.is_available = lambda: False  # type: ignore[attr-defined]
    mod.is_built = lambda: False  # type: ignore[attr-defined]
    return mod


mps = _unavailable("mps")
mkl = _unavailable("mkl")
openmp = _unavailable("openmp")

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]

"""``torch.version``: the version of this build and the CUDA it was built against."""

from __future__ import annotations

from typing import Optional

from . import _core

__all__ = ["__version__", "cuda", "debug", "hip"]

# The one version is the Cargo workspace's; the extension reports it (the wheel's metadata too).
__version__: str = _core.__version__
# The CUDA bindings the backend is compiled with (cudarc's `cuda-12080`); None in CPU-only builds.
cuda: Optional[str] = "12.8" if _core._cuda_is_compiled() else None
hip: Optional[str] = None
debug: bool = False

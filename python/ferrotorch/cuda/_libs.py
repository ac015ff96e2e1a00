"""Makes the CUDA runtime libraries the backend ``dlopen``s by soname findable.

The backend loads ``libnvrtc.so.12`` and ``libcublasLt.so.12``/``libcublas.so.12`` by soname.
Preloading them here with ``RTLD_GLOBAL`` satisfies those loads from, in order:

1. ``$FERROTORCH_CUDA_LIB_DIR`` (a folder holding those files), when set;
2. the pip wheels ``nvidia-cuda-nvrtc-cu12`` and ``nvidia-cublas-cu12``, when installed;
3. otherwise nothing is preloaded and the system loader finds a CUDA 12 toolkit as usual.

This runs before the first driver call, never at ``import ferrotorch`` time.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import threading

ENV_VAR = "FERROTORCH_CUDA_LIB_DIR"

# (wheel package, files in its lib/ folder), dependencies first: cuBLAS needs cuBLASLt.
_WHEELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nvidia.cuda_nvrtc", ("libnvrtc.so.12",)),
    ("nvidia.cublas", ("libcublasLt.so.12", "libcublas.so.12")),
)
SONAMES: tuple[str, ...] = tuple(name for _, names in _WHEELS for name in names)

_lock = threading.Lock()
_loaded: dict[str, ctypes.CDLL] = {}
_done = False


def _wheel_lib_dir(package: str) -> str | None:
    """The ``lib`` folder of an installed ``nvidia-*`` wheel, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for root in spec.submodule_search_locations or ():
        lib = os.path.join(root, "lib")
        if os.path.isdir(lib):
            return lib
    return None


def find() -> dict[str, str]:
    """Soname -> file path of each library that :func:`preload` would load (nothing is loaded)."""
    found: dict[str, str] = {}
    env_dir = os.environ.get(ENV_VAR)
    for package, names in _WHEELS:
        dirs = [d for d in (env_dir, _wheel_lib_dir(package)) if d]
        for name in names:
            for d in dirs:
                path = os.path.join(d, name)
                if os.path.isfile(path):
                    found[name] = path
                    break
    return found


def preload() -> dict[str, str]:
    """Loads the libraries :func:`find` locates, once; returns soname -> path of those loaded.

    A library that fails to load is skipped (the backend then reports what it misses)."""
    global _done
    with _lock:
        if not _done:
            for name, path in find().items():
                try:
                    _loaded[name] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass
            _done = True
        return {name: lib._name for name, lib in _loaded.items()}


def loaded() -> dict[str, str]:
    """Soname -> path of the libraries this module has preloaded so far."""
    return {name: lib._name for name, lib in _loaded.items()}

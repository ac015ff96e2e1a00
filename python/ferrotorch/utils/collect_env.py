"""``torch.utils.collect_env``: what a bug report needs to know about this installation.

Run ``python -m ferrotorch`` (or ``python -m ferrotorch.utils.collect_env``) and paste the output.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import struct
import sys
from typing import List, NamedTuple, Optional

__all__ = ["SystemEnv", "get_env_info", "get_pretty_env_info", "main"]

# Packages whose versions matter to ferrotorch's behaviour (interop, checkpoints, the oracle).
_RELEVANT_PACKAGES = ("numpy", "safetensors", "torch", "nvidia-cuda-nvrtc-cu12", "nvidia-cublas-cu12")


class SystemEnv(NamedTuple):
    """The facts :func:`get_pretty_env_info` prints, one field per line."""

    ferrotorch_version: str
    extension: str
    cuda_compiled_version: Optional[str]
    is_cuda_available: str
    cuda_devices: List[str]
    simd_level: str
    cpu_capability: str
    simd_override: Optional[str]
    num_threads: int
    os: str
    python_version: str
    python_platform: str
    cpu: str
    package_versions: List[str]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cuda_state() -> "tuple[str, List[str]]":
    import ferrotorch

    try:
        if not ferrotorch.cuda.is_available():
            return "False", []
        names = [ferrotorch.cuda.get_device_name(i) for i in range(ferrotorch.cuda.device_count())]
        return "True", [f"GPU {i}: {name}" for i, name in enumerate(names)]
    except Exception as exc:  # a broken driver is itself worth reporting
        return f"False ({type(exc).__name__}: {exc})", []


def _package_versions() -> List[str]:
    found = []
    for name in _RELEVANT_PACKAGES:
        try:
            found.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def get_env_info() -> SystemEnv:
    """Collects the facts about this ferrotorch build, the Python running it and the machine."""
    import ferrotorch
    from ferrotorch import _core

    available, devices = _cuda_state()
    return SystemEnv(
        ferrotorch_version=ferrotorch.__version__,
        extension=os.path.basename(_core.__file__ or "?"),
        cuda_compiled_version=ferrotorch.version.cuda,
        is_cuda_available=available,
        cuda_devices=devices,
        simd_level=_core._simd_level(),
        cpu_capability=ferrotorch.backends.cpu.get_cpu_capability(),
        simd_override=os.environ.get("FERROTORCH_SIMD"),
        num_threads=ferrotorch.get_num_threads(),
        os=platform.platform(),
        python_version=f"{platform.python_version()} ({platform.python_implementation()}, {8 * struct.calcsize('P')}-bit runtime)",
        python_platform=sys.platform,
        cpu=f"{_cpu_model()} ({os.cpu_count()} logical cores)",
        package_versions=_package_versions(),
    )


def get_pretty_env_info() -> str:
    """The report :func:`main` prints: one ``name: value`` line per fact.

    >>> from ferrotorch.utils.collect_env import get_pretty_env_info
    >>> get_pretty_env_info().splitlines()[0].startswith("ferrotorch version: ")
    True
    """
    env = get_env_info()
    cuda = (
        f"compiled in (CUDA {env.cuda_compiled_version} bindings, libraries loaded at run time)"
        if env.cuda_compiled_version
        else "not compiled in"
    )
    override = (
        f"FERROTORCH_SIMD={env.simd_override}" if env.simd_override is not None else "FERROTORCH_SIMD unset"
    )
    lines = [
        f"ferrotorch version: {env.ferrotorch_version}",
        f"Extension module: {env.extension}",
        f"CUDA backend: {cuda}",
        f"Is CUDA available: {env.is_cuda_available}",
        *(f"  {d}" for d in env.cuda_devices),
        f"SIMD level in use: {env.simd_level} (CPU capability {env.cpu_capability}; {override})",
        f"CPU threads: {env.num_threads}",
        "",
        f"OS: {env.os}",
        f"Python version: {env.python_version}",
        f"Python platform: {env.python_platform}",
        f"CPU: {env.cpu}",
        "",
        "Versions of relevant libraries:",
        *(f"[pip3] {p}" for p in env.package_versions),
    ]
    return "\n".join(lines)


def main() -> None:
    """Prints :func:`get_pretty_env_info`."""
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()

"""Loads a program of tests/programs/ as a module twice: as written (under PyTorch) and with
only its torch imports pointed at ferrotorch."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
_IMPORT = re.compile(r"^(\s*)(import|from)\s+torch\b", re.M)


def as_ferrotorch(source: str) -> str:
    """The same program with `import torch...` / `from torch... import` aimed at ferrotorch."""

    def swap(m: re.Match) -> str:
        return f"{m.group(1)}{m.group(2)} ferrotorch"

    out = _IMPORT.sub(swap, source)
    # `import ferrotorch` alone must still bind the name the program uses: torch.
    out = re.sub(r"^(\s*)import ferrotorch\s*$", r"\1import ferrotorch as torch", out, flags=re.M)
    out = re.sub(r"^(\s*)import ferrotorch(\.[\w.]+)\s*$", r"\1import ferrotorch\2\n\1import ferrotorch as torch", out, flags=re.M)
    return out


def load_program(name: str, lib: str) -> types.ModuleType:
    """``lib`` is "torch" (the program as written) or "ferrotorch"."""
    source = (PROGRAMS / f"{name}.py").read_text()
    if lib == "ferrotorch":
        source = as_ferrotorch(source)
    module = types.ModuleType(f"program_{name}_{lib}")
    module.__file__ = str(PROGRAMS / f"{name}.py")
    # Registered as real imports are: dataclasses and pickle look classes up by module name.
    sys.modules[module.__name__] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def through_safetensors(tensors: dict, path) -> dict:
    """PyTorch tensors written with the safetensors package and read back by ferrotorch's
    torch.load: how the program pairs start from the same initial weights."""
    from safetensors.torch import save_file

    import ferrotorch

    # save_file refuses views and shared storages (tied weights): write each as its own copy.
    save_file({k: v.detach().contiguous().clone() for k, v in tensors.items()}, str(path))
    return ferrotorch.load(str(path))

"""Process-wide settings and queries PyTorch programs call at start-up: the legacy default
tensor type, flushing denormals, the thread pool's start, the device module of a device type,
and ``torch.is_distributed``."""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Tuple

from . import _core

Tensor = _core.Tensor

# Legacy type names -> dtype names (the floating ones are allowed as the default).
_LEGACY = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64",
    "IntTensor": "int32",
    "ShortTensor": "int16",
    "CharTensor": "int8",
    "ByteTensor": "uint8",
    "BoolTensor": "bool",
}
_DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu mtia privateuseone"
).split()


def set_default_tensor_type(t: Any, /) -> None:
    """Sets the default floating dtype from a legacy tensor type (``torch.DoubleTensor`` or
    ``"torch.DoubleTensor"``; a ``torch.cuda.*`` one also makes CUDA the default device).
    Deprecated in PyTorch for ``set_default_dtype`` and ``set_default_device``."""
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
        "and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    import ferrotorch

    if isinstance(t, str):
        obj: Any = ferrotorch
        for part in t.split(".")[1:] if t.startswith("torch.") else t.split("."):
            obj = getattr(obj, part)  # AttributeError for an unknown name, as PyTorch
        name = t
    else:
        # The legacy constructors are functions: find the name ``t`` is bound to.
        found = [n for n in _LEGACY if getattr(ferrotorch, n, None) is t]
        found += ["cuda." + n for n in _LEGACY if getattr(ferrotorch.cuda, n, None) is t]
        if not found:
            raise TypeError("invalid type object: only floating-point types are supported as the default type")
        name = found[0]
    base = name.split(".")[-1]
    dt = _LEGACY.get(base)
    if dt is None or dt not in ("float32", "float64", "float16", "bfloat16"):
        raise TypeError("only floating-point types are supported as the default type")
    _core.set_default_dtype(getattr(_core, dt))
    if ".cuda." in "." + name and ferrotorch.cuda.is_available():
        ferrotorch.set_default_device("cuda")


def set_flush_denormal(mode: bool) -> bool:
    """Asks the CPU to flush denormal floats to zero. ferrotorch's kernels do not set the CPU's
    FTZ/DAZ flags, so this returns False ("not supported"), as PyTorch does on CPUs without them."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def init_num_threads() -> None:
    """Initializes the CPU thread pool of the calling thread (the Rust pool needs nothing)."""
    return None


def get_device_module(device: Any = None) -> Any:
    """The module of a device type: ``torch.cuda`` for ``"cuda"``/``"cuda:0"``, ``torch.cpu``
    for ``"cpu"``; with no device, the current accelerator's module (CUDA here)."""
    import ferrotorch

    if device is None:
        return ferrotorch.cuda
    if isinstance(device, _core.device):
        kind = device.type
    elif isinstance(device, str):
        kind = device.split(":")[0]
        if kind not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {device}")
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    try:
        return importlib.import_module(f"ferrotorch.{kind}")
    except ImportError:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'.") from None


def is_distributed(input: Tensor) -> bool:
    """Whether ``input`` is distributed (never, in ferrotorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_distributed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return False


__all__: Tuple[str, ...] = (
    "set_default_tensor_type",
    "set_flush_denormal",
    "init_num_threads",
    "get_device_module",
    "is_distributed",
)
METHODS: Tuple[Any, ...] = ()

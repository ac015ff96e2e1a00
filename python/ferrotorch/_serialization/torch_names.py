"""The names PyTorch checkpoints use for dtypes, storage classes and rebuild functions, and the
ferrotorch objects they stand for, in both directions (``torch.float32`` <-> ``ferrotorch.float32``)."""

from __future__ import annotations

import functools
import importlib
from collections import Counter, OrderedDict
from typing import Any, Dict, Optional

# dtype name (the same in both libraries) and PyTorch's legacy storage class for it.
DTYPE_STORAGE_CLASSES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}

# Globals PyTorch's weights_only unpickler accepts that ferrotorch has no counterpart for: a file
# using them gets a clear "not supported" error rather than an "unsafe global" one.
UNSUPPORTED_TORCH_GLOBALS = {
    **{f"torch.{d}": f"dtype torch.{d}" for d in (
        "uint16", "uint32", "uint64", "complex32", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
        "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2",
        "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
        *(f"uint{i}" for i in range(1, 8)), *(f"int{i}" for i in range(1, 8)),
    )},
    **{f"torch.{q}": "quantized tensors" for q in (
        "per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric",
        "per_channel_affine_float_qparams",
    )},
    **{f"torch.{s}": "quantized tensors" for s in (
        "QInt8Storage", "QUInt8Storage", "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage",
    )},
    "torch.ComplexHalfStorage": "dtype torch.complex32",
    "torch._utils._rebuild_qtensor": "quantized tensors",
    "torch._utils._rebuild_sparse_tensor": "sparse tensors",
    "torch._utils._rebuild_meta_tensor_no_storage": "tensors on the meta device",
    "torch._utils._rebuild_wrapper_subclass": "tensor subclasses without storage",
    "torch._utils._rebuild_device_tensor_from_numpy": "tensors saved from NumPy arrays on a device",
}


class TorchGlobal:
    """A PyTorch global written by name into a pickle (``GLOBAL 'torch._utils _rebuild_tensor_v2'``)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"{self!r} only names a PyTorch global for pickling")

    def __repr__(self) -> str:
        return f"TorchGlobal({self.module}.{self.name})"


REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
REBUILD_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
TORCH_DEVICE = TorchGlobal("torch", "device")
GET_LAYOUT = TorchGlobal("torch.serialization", "_get_layout")


class StorageType:
    """What a storage class name in a checkpoint (``torch.FloatStorage``) unpickles to: its dtype."""

    def __init__(self, name: str, dtype: Any) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


def _ferrotorch() -> Any:
    import ferrotorch

    return ferrotorch


def ferrotorch_dtype(name: str) -> Optional[Any]:
    """The ferrotorch dtype called ``name`` (None when this build has none)."""
    d = getattr(_ferrotorch(), name, None)
    return d if isinstance(d, _ferrotorch().dtype) else None


@functools.lru_cache(maxsize=None)
def storage_class_names() -> Dict[str, str]:
    """dtype name -> PyTorch storage class name, for the dtypes this build has."""
    return {d: s for d, s in DTYPE_STORAGE_CLASSES.items() if ferrotorch_dtype(d) is not None}


def storage_class_global(dtype: Any) -> TorchGlobal:
    """``torch.FloatStorage`` and friends, as written into a checkpoint for a storage of ``dtype``."""
    name = storage_class_names().get(dtype_name(dtype))
    if name is None:
        raise RuntimeError(f"save: ferrotorch cannot write tensors of dtype {dtype} in PyTorch's format")
    return _storage_globals()[name]


@functools.lru_cache(maxsize=None)
def _storage_globals() -> Dict[str, TorchGlobal]:
    return {s: TorchGlobal("torch", s) for s in storage_class_names().values()}


def dtype_name(dtype: Any) -> str:
    return str(dtype).split(".", 1)[-1]


def _layout_from_name(name: str) -> Any:
    """``torch.serialization._get_layout``: only the strided layout exists in ferrotorch."""
    if name == "torch.strided":
        return _ferrotorch().strided
    raise RuntimeError(f"load: ferrotorch does not support tensors with layout {name}")


@functools.lru_cache(maxsize=None)
def allowed_torch_globals() -> Dict[str, Any]:
    """PyTorch's weights_only allowlist, each name mapped onto the ferrotorch object it stands for."""
    from . import rebuild

    ft = _ferrotorch()
    from ..nn.parameter import Parameter

    out: Dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _layout_from_name,
        "torch.Size": ft.Size,
        "torch.Tensor": ft.Tensor,
        "torch.device": ft.device,
        "_codecs.encode": __import__("_codecs").encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor": rebuild.rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild.rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild.rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": rebuild.rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild.rebuild_parameter_with_state,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor": rebuild.rebuild_device_tensor_from_cpu_tensor,
        "torch._tensor._rebuild_from_type_v2": rebuild.rebuild_from_type_v2,
        "torch.storage.UntypedStorage": StorageType("UntypedStorage", ft.uint8),
        "torch.UntypedStorage": StorageType("UntypedStorage", ft.uint8),
    }
    for name, storage in storage_class_names().items():
        dt = ferrotorch_dtype(name)
        out[f"torch.{name}"] = dt
        out[f"torch.{storage}"] = StorageType(storage, dt)
        out[f"torch.cuda.{storage}"] = StorageType(storage, dt)
    return out


def torch_name_of(obj: Any) -> Optional[TorchGlobal]:
    """The PyTorch global a ferrotorch object or class is written as, or None for other objects."""
    if isinstance(obj, TorchGlobal):
        return obj
    ft = _ferrotorch()
    if isinstance(obj, ft.dtype):
        return TorchGlobal("torch", dtype_name(obj))
    if obj is ft.Size:
        return TorchGlobal("torch", "Size")
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    if module == "ferrotorch" or module.startswith("ferrotorch."):
        return TorchGlobal("torch" + module[len("ferrotorch"):], qualname)
    return None


def ferrotorch_counterpart(module: str, name: str) -> Any:
    """The ferrotorch object behind a ``torch.*`` global that is not in the allowlist
    (``torch.nn.modules.linear.Linear`` -> ``ferrotorch.nn.modules.linear.Linear``)."""
    target = "ferrotorch" + module[len("torch"):]
    try:
        obj: Any = importlib.import_module(target)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise RuntimeError(f"load: the checkpoint needs {module}.{name}, which ferrotorch does not have") from None
    return obj

"""Tensor helpers that are plain Python over the core: ``new_*`` constructors, ``finfo`` and
``iinfo``, ``broadcast_tensors``."""

from __future__ import annotations

from typing import Any, List, Optional

from . import _core

Tensor = _core.Tensor


def _shape(size: Any) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A zero tensor with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.zeros(*_shape(size), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A tensor of ones with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.ones(*_shape(size), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """An uninitialized-looking (zero-filled) tensor with this tensor's dtype."""
    return _core.empty(*_shape(size), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A tensor filled with ``fill_value`` and this tensor's dtype."""
    return _core.full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """A copy of ``data`` as a tensor with this tensor's dtype (unless ``dtype`` is given)."""
    return _core.tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def broadcast_tensors(*tensors: Tensor) -> List[Tensor]:
    """Expands all tensors to their common broadcast shape (views, no copies)."""
    shape = _core.broadcast_shapes(*[t.shape for t in tensors])
    return [t.expand(*shape) for t in tensors]


class finfo:
    """Machine limits of a floating point dtype, as ``torch.finfo``."""

    _TABLE = {
        "float32": (32, 1.1920928955078125e-07, 3.4028234663852886e38, 1.1754943508222875e-38, 6, 1.401298464324817e-45),
        "float64": (64, 2.220446049250313e-16, 1.7976931348623157e308, 2.2250738585072014e-308, 15, 5e-324),
        "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 3, 5.960464477539063e-08),
        "bfloat16": (16, 0.0078125, 3.3895313892515355e38, 1.1754943508222875e-38, 2, 9.183549615799121e-41),
    }

    def __init__(self, type: Optional[Any] = None) -> None:
        dt = type if type is not None else _core.get_default_dtype()
        if dt.name not in self._TABLE:
            raise TypeError(f"finfo(): torch.{dt.name} is not a floating point dtype")
        self.dtype = dt.name
        self.bits, self.eps, self.max, self.tiny, self.precision, self.smallest_subnormal = self._TABLE[dt.name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -self.precision

    def __repr__(self) -> str:
        return f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})"


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``."""

    _TABLE = {"int64": (64, -(2**63), 2**63 - 1), "int32": (32, -(2**31), 2**31 - 1), "int16": (16, -(2**15), 2**15 - 1), "int8": (8, -128, 127), "uint8": (8, 0, 255), "bool": (8, 0, 1)}

    def __init__(self, type: Any) -> None:
        if type.name not in self._TABLE:
            raise TypeError(f"iinfo(): torch.{type.name} is not an integer dtype")
        self.dtype = type.name
        self.bits, self.min, self.max = self._TABLE[type.name]

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def _deepcopy(self: Tensor, memo: dict) -> Tensor:
    """Deep copy of a leaf: same values and ``requires_grad``, new storage (as PyTorch)."""
    if id(self) in memo:
        return memo[id(self)]
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
        )
    new = self.detach().clone()
    if type(self) is not Tensor:
        new = type(self).__new__(type(self), new)  # subclasses (Parameter) alias the copy
    new.requires_grad_(self.requires_grad)
    if self.grad is not None:
        new.grad = self.grad.detach().clone()
    new.__dict__.update({k: v for k, v in self.__dict__.items()})
    memo[id(self)] = new
    return new


def _rebuild_tensor(array: Any, dtype_name: str, requires_grad: bool) -> Tensor:
    t = _core.from_numpy(array).to(getattr(_core, dtype_name))
    return t.requires_grad_(True) if requires_grad else t


def _reduce_ex(self: Tensor, proto: Any) -> Any:
    """Pickles values, dtype and requires_grad (through a NumPy copy of the data)."""
    t = self.detach()
    arr = (t.float() if t.dtype == _core.bfloat16 else t).contiguous().numpy().copy()
    return (_rebuild_tensor, (arr, t.dtype.name, self.requires_grad))


def install() -> None:
    """Attaches the ``new_*`` methods and deep copy to Tensor."""
    for f in (new_zeros, new_ones, new_empty, new_full, new_tensor):
        setattr(Tensor, f.__name__, f)
    Tensor.__deepcopy__ = _deepcopy  # type: ignore[attr-defined]
    Tensor.__reduce_ex__ = _reduce_ex  # type: ignore[method-assign]


def _contains(self: Tensor, element: Any) -> bool:
    """``x in t``: True if any element equals ``x``."""
    if not isinstance(element, (Tensor, int, float, bool)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")
    return bool((self == element).any().item())


Tensor.__contains__ = _contains  # type: ignore[method-assign]


def get_num_threads() -> int:
    """Threads the CPU kernels use (the size of the Rust thread pool)."""
    return int(_core._get_num_threads())


def set_num_threads(n: int) -> None:
    """Sets the number of threads the CPU kernels use; the pool is resized at once."""
    if int(n) < 1:
        raise ValueError("set_num_threads: Expected positive number of threads")
    _core._set_num_threads(int(n))


def _legacy(dtype_name: str) -> object:
    def make(*args: Any) -> Tensor:
        if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)) or (args and hasattr(args[0], "__array__")):
            return _core.tensor(args[0], dtype=getattr(_core, dtype_name))
        return _core.zeros(*args, dtype=getattr(_core, dtype_name))

    make.__doc__ = f"Legacy constructor: a {dtype_name} tensor from data, or zeros of a shape."
    return make


FloatTensor = _legacy("float32")
DoubleTensor = _legacy("float64")
HalfTensor = _legacy("float16")
LongTensor = _legacy("int64")
IntTensor = _legacy("int32")
ShortTensor = _legacy("int16")
CharTensor = _legacy("int8")
ByteTensor = _legacy("uint8")
BoolTensor = _legacy("bool")

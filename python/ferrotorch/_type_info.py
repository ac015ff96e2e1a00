"""Numeric limits of dtypes: ``torch.finfo`` and ``torch.iinfo``."""

from __future__ import annotations

from typing import Any, Optional

from . import _core

_SCALAR_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
    "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def scalar_type_name(dtype: Any) -> str:
    """PyTorch's C++ scalar-type name of a dtype (Float, Long, ComplexFloat, ...), as its
    error messages print it."""
    name = str(dtype).split(".")[-1]
    return _SCALAR_TYPE_NAMES.get(name, name)


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

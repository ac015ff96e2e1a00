"""Pointwise math PyTorch has and the core lacks: NaN-ignoring ``fmax``/``fmin``,
``heaviside``, ``logaddexp2``, ``deg2rad``/``rad2deg``, ``isreal``, a few in-place forms and
Tensor methods, and the small factories ``scalar_tensor``, ``range``, ``typename``, ``fill``.
The inverse hyperbolics, float-bit ops, integer ops, matrix accumulations and in-place forms
live in the modules imported below, by concept; this module gathers their names."""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any, Optional, Sequence, Tuple

from . import _core
from ._float_bits import FUNCTIONS as _FLOAT_BITS
from ._float_bits import METHOD_ONLY as _FLOAT_BITS_METHODS
from ._index_ops import where
from ._inplace_forms import METHOD_ONLY as _INPLACE_METHODS
from ._inplace_forms import TORCH_FORMS as _TORCH_FORMS
from ._integer_math import FUNCTIONS as _INTEGER
from ._inverse_hyperbolic import FUNCTIONS as _INVERSE_HYPERBOLIC
from ._matrix_accumulate import METHOD_ONLY as _MATRIX_METHODS
from ._matrix_accumulate import TORCH_AND_METHODS as _MATRIX
from ._op_entry import op_entry
from ._result_writing import assign_inplace, float_result_dtype, scalar_name, source_of, write_out

Tensor = _core.Tensor


def _need_tensor(op: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _nan_ignoring(op: str, input: Tensor, other: Tensor, pick: str) -> Tensor:
    _need_tensor(op, "other", 2, other)
    dtype = _core.result_type(input, other)
    if dtype.is_complex:
        raise TypeError(f"{op} not implemented for complex tensors.")
    a, b = input.to(dtype), other.to(dtype)
    both = getattr(a, pick)(b)
    if not dtype.is_floating_point:
        return both
    # maximum/minimum where both are numbers (ties split the gradient, as PyTorch), the
    # number where one is NaN, input where both are.
    return where(b.isnan(), a, where(a.isnan(), b, both))


@op_entry("fmax")
def fmax(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise maximum that ignores a NaN when the other value is a number."""
    return write_out(_nan_ignoring("fmax", input, other, "maximum"), out, "fmax", (input, other))


@op_entry("fmin")
def fmin(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise minimum that ignores a NaN when the other value is a number."""
    return write_out(_nan_ignoring("fmin", input, other, "minimum"), out, "fmin", (input, other))


def _heaviside_value(input: Tensor, values: Tensor) -> Tensor:
    _need_tensor("heaviside", "values", 2, values)
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    x, v = input.detach(), values.detach()
    return where(x == 0, v, (x > 0).to(x.dtype)).to(x.dtype)


def heaviside(input: Tensor, values: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0 (one dtype for both);
    not differentiable (PyTorch defines no derivative)."""
    if out is not None and out.dtype != input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return write_out(_heaviside_value(input, values), out, "heaviside")


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place ``heaviside``."""
    return assign_inplace(self, _heaviside_value(self, values), "heaviside_")


@op_entry("logaddexp2")
def logaddexp2(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """log2(2**input + 2**other) without overflow."""
    _need_tensor("logaddexp2", "other", 2, other)
    dtype = _core.result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"logaddexp2_cpu\" not implemented for '{scalar_name(dtype)}'")
    a, b = input.to(dtype), other.to(dtype)
    m = a.maximum(b)
    # m + log2(1 + 2^-|a-b|); equal infinities give themselves (a - b would be NaN).
    r = m + (-(a - b).abs()).exp2().log1p() / math.log(2.0)
    return write_out(where(a.isinf() & (a == b), a, r), out, "logaddexp2", (input, other))


def _scaled(input: Tensor, factor: float, op: str) -> Tensor:
    if input.dtype.is_complex:
        raise NotImplementedError(f"{op} is not supported for complex tensors.")
    return input.to(float_result_dtype(input)) * factor


@op_entry("deg2rad")
def deg2rad(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Degrees to radians (integers promote to the default float dtype)."""
    return write_out(_scaled(input, math.pi / 180.0, "deg2rad"), out, "deg2rad", (input,))


@op_entry("rad2deg")
def rad2deg(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Radians to degrees (integers promote to the default float dtype)."""
    return write_out(_scaled(input, 180.0 / math.pi, "rad2deg"), out, "rad2deg", (input,))


def deg2rad_(self: Tensor) -> Tensor:
    """In-place ``deg2rad``."""
    return assign_inplace(self, deg2rad(source_of(self)), "deg2rad_")


def rad2deg_(self: Tensor) -> Tensor:
    """In-place ``rad2deg``."""
    return assign_inplace(self, rad2deg(source_of(self)), "rad2deg_")


def isreal(input: Tensor) -> Tensor:
    """True where the value is real: every element of a real tensor, imag == 0 for complex."""
    if input.dtype.is_complex:
        return input.detach().imag == 0
    return _core.ones(tuple(input.shape), dtype=_core.bool)


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``float_power``: self must already be double (complex double for complex)."""
    result = source_of(self).float_power(exponent)
    if result.dtype != self.dtype:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_name(self.dtype)} but the operation's result requires dtype {scalar_name(result.dtype)}"
        )
    return assign_inplace(self, result, "float_power_")


def logit_(self: Tensor, eps: Optional[float] = None) -> Tensor:
    """In-place ``logit``."""
    return assign_inplace(self, source_of(self).logit(eps), "logit_")


def atan2_(self: Tensor, other: Any) -> Tensor:
    """In-place ``atan2``."""
    return assign_inplace(self, source_of(self).atan2(other), "atan2_")


def arctan2_(self: Tensor, other: Any) -> Tensor:
    """In-place ``arctan2`` (alias of ``atan2_``)."""
    return assign_inplace(self, source_of(self).atan2(other), "arctan2_")


def hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    """``Tensor.hardshrink``: zero where |x| <= lambd."""
    from .nn import functional as F

    return F.hardshrink(self, lambd)


def prelu(self: Tensor, weight: Tensor) -> Tensor:
    """``Tensor.prelu``: max(0, x) + weight * min(0, x), weight per channel (dim 1)."""
    from .nn import functional as F

    return F.prelu(self, weight)


def cfloat(self: Tensor) -> Tensor:
    """``self.to(torch.complex64)``."""
    return self.to(_core.complex64)


def cdouble(self: Tensor) -> Tensor:
    """``self.to(torch.complex128)``."""
    return self.to(_core.complex128)


def new_empty_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with the given strides. Without ``as_strided`` only dense
    layouts can be made: strides that are some order of the dimensions laid out contiguously."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"new_empty_strided: mismatch in length of strides and shape ({len(stride)} vs {len(size)})")
    dtype = self.dtype if dtype is None else dtype
    # Outermost dimension first; size-1 dimensions may carry any stride.
    order = sorted(builtins.range(len(size)), key=lambda d: (-stride[d], -size[d]))
    base = _core.empty(tuple(size[d] for d in order), dtype=dtype)
    inverse = [0] * len(order)
    for pos, d in enumerate(order):
        inverse[d] = pos
    out = base.permute(*inverse) if size else base
    got = tuple(out.stride())
    numel = math.prod(size)
    if numel and any(size[d] > 1 and got[d] != stride[d] for d in builtins.range(len(size))):
        raise NotImplementedError(
            f"new_empty_strided: size {list(size)} with stride {list(stride)} is not a dense layout, "
            "and ferrotorch has no as_strided to make it"
        )
    if requires_grad:
        out.requires_grad_(True)
    return out


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, layout: Any = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s``, of the default float dtype unless ``dtype`` is given."""
    dtype = _core.get_default_dtype() if dtype is None else dtype
    if isinstance(s, complex) and not dtype.is_complex:
        raise RuntimeError(f"value cannot be converted to type {str(dtype).split('.')[-1]} without overflow")
    out = _core.full((), s, dtype=dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _torch_range(start: Any, end: Any, step: Any = 1, *, out: Optional[Tensor] = None, dtype: Any = None, layout: Any = None,
                 device: Any = None, requires_grad: bool = False) -> Tensor:
    """Deprecated: the values start, start + step, ... up to and including ``end``, of the
    default float dtype unless ``dtype`` is given. Use ``arange`` (which excludes ``end``)."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is "
        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    vals = [float(v.item()) if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("range: upper bound and lower bound inconsistent with step sign")
    dtype = _core.get_default_dtype() if dtype is None else dtype
    n = int(math.floor((end - start) / step)) + 1
    if all(isinstance(v, int) for v in vals) and not (dtype.is_floating_point or dtype.is_complex):
        result = _core.arange(n, dtype=_core.int64) * step + start
    else:
        # Each value start + i * step in double precision, then rounded once to dtype.
        result = _core.arange(n, dtype=_core.float64) * float(step) + float(start)
    result = result.to(dtype)
    if out is not None:
        return write_out(result, out, "range")
    if requires_grad:
        result.requires_grad_(True)
    return result


_torch_range.__name__ = _torch_range.__qualname__ = "range"


def typename(obj: Any) -> str:
    """The type string of ``obj``: ``x.type()`` for tensors ('torch.FloatTensor'), else the
    dotted module and qualified name (no module for builtins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module = type(obj).__module__ or ""
        name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of input's shape and dtype filled with ``value`` (a number or a 0-d tensor,
    through which the gradient flows)."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
        return value.to(input.dtype).expand(tuple(input.shape)).contiguous()
    return _core.full(tuple(input.shape), value, dtype=input.dtype)


_TORCH_AND_METHODS: Tuple[Any, ...] = (
    _INVERSE_HYPERBOLIC + _FLOAT_BITS + _INTEGER + _MATRIX
    + (fmax, fmin, heaviside, logaddexp2, deg2rad, rad2deg, deg2rad_, rad2deg_, isreal, logit_)
)
_METHOD_ONLY: Tuple[Any, ...] = (
    _FLOAT_BITS_METHODS + _MATRIX_METHODS + _INPLACE_METHODS
    + (heaviside_, float_power_, atan2_, arctan2_, hardshrink, prelu, cfloat, cdouble, new_empty_strided)
)
_TORCH_ONLY: Tuple[Any, ...] = _TORCH_FORMS + (scalar_tensor, _torch_range, typename, fill)

# Module attributes under the torch names (``range`` among them, after every use of the builtin).
for _fn in _TORCH_AND_METHODS + _TORCH_ONLY:
    globals()[_fn.__name__] = _fn

# The torch.* functions this module adds, and the Tensor methods (attached by __name__).
__all__: Tuple[str, ...] = tuple(f.__name__ for f in _TORCH_AND_METHODS + _TORCH_ONLY)
METHODS: Tuple[Any, ...] = _TORCH_AND_METHODS + _METHOD_ONLY

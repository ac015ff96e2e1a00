"""Inverse hyperbolic functions ``asinh``, ``acosh``, ``atanh`` (and the ``arc*`` aliases) as
autograd Functions: the forward is an accurate composition computed in float64, the backward
is the exact derivative written in differentiable ops, so double backward works."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from . import _core
from ._index_ops import where
from ._op_entry import op_entry
from ._result_writing import assign_inplace, float_result_dtype, source_of, write_out
from .autograd.function import Function

Tensor = _core.Tensor

_LN2 = math.log(2.0)
# Above this magnitude x*x + 1 rounds to x*x in float64 (and x*x overflows near 1e154), so
# asinh(x) = log(2x) and acosh(x) = log(2x) to the last bit.
_BIG = 2.0**28


def _compute_dtype(x: Tensor) -> Any:
    """float64 for every real input (float16/bfloat16/float32 gain the accuracy of the
    composition); complex128 for complex ones."""
    return _core.complex128 if x.dtype.is_complex else _core.float64


def _asinh_real(x: Tensor) -> Tensor:
    a = x.abs()
    # asinh(a) = log1p(a + a^2 / (1 + sqrt(1 + a^2))): no cancellation for small a.
    small = (a + a * a / (1 + (a * a + 1).sqrt())).log1p()
    big = a.log() + _LN2
    return where(a > _BIG, big, small).copysign(x)


def _acosh_real(x: Tensor) -> Tensor:
    t = x - 1
    # acosh(1 + t) = log1p(t + sqrt(2t + t^2)): accurate near 1, where log(x + sqrt(x^2-1)) loses
    # digits. NaN below 1 as PyTorch (for x < -1 the sqrt alone would not give it).
    near = (t + (2 * t + t * t).sqrt()).log1p()
    big = x.log() + _LN2
    return where(x >= 1, where(x > _BIG, big, near), float("nan"))


def _atanh_real(x: Tensor) -> Tensor:
    # 0.5 * log1p(2x / (1 - x)): accurate for small x, +-inf at +-1, NaN beyond.
    return 0.5 * (2 * x / (1 - x)).log1p()


def _log1p_complex(z: Tensor) -> Tensor:
    """log(1 + z) accurate for small |z| (the core's complex log1p is log(1 + z), which loses
    the low digits there): Re = log1p(x(2+x) + y^2) / 2, Im = atan2(y, 1 + x)."""
    x, y = z.real, z.imag
    small = z.abs() < 0.5
    sx, sy = where(small, x, 0.0), where(small, y, 0.0)
    near = _core.complex(0.5 * (sx * (2 + sx) + sy * sy).log1p(), sy.atan2(1 + sx))
    return where(small, near, (z + 1).log())


# The complex forms are evaluated on the closed first quadrant (upper half-plane for acosh)
# and carried to the others by the symmetries f(conj z) = conj f(z) and, for asinh and atanh,
# f(-z) = -f(z), with the signs taken from the signed zeros of z: so points on the branch cuts
# get the values of C99 (and PyTorch) whatever the core's complex ops do with signed zeros.


def _asinh_complex(z: Tensor) -> Tensor:
    x, y = z.real, z.imag
    w = _core.complex(x.abs(), y.abs())
    # The real formula's log1p form keeps small |w| accurate; Re(w) >= 0, so no cancellation.
    r = _log1p_complex(w + w * w / ((w * w + 1).sqrt() + 1))
    return _core.complex(r.real.abs().copysign(x), r.imag.abs().copysign(y))


def _acosh_complex(z: Tensor) -> Tensor:
    x, y = z.real, z.imag
    t = _core.complex(x, y.abs()) - 1
    # log1p(t + sqrt(t) * sqrt(t + 2)) with t = z - 1: sqrt(z+1)*sqrt(z-1) rather than
    # sqrt(z^2-1) keeps the principal branch cut (-inf, 1]; log1p keeps z near 1 accurate.
    r = _log1p_complex(t + t.sqrt() * (t + 2).sqrt())
    return _core.complex(r.real.abs(), r.imag.abs().copysign(y))


def _atanh_complex(z: Tensor) -> Tensor:
    x, y = z.real, z.imag
    a, b = x.abs(), y.abs()
    # Re = log|1+w|^2/|1-w|^2 / 4 = log1p(4a / ((1-a)^2 + b^2)) / 4, Im = arg((1+w)(1-conj w)) / 2:
    # real formulas, exact at +-1 (inf, 0) and accurate for small |w|.
    re = 0.25 * (4 * a / ((1 - a) * (1 - a) + b * b)).log1p()
    im = 0.5 * (2 * b).atan2((1 - a) * (1 + a) - b * b)
    # An infinite part (the formulas give inf/inf there) tends to 0 + i pi/2.
    far = a.isinf() | b.isinf()
    re, im = where(far, 0.0, re), where(far, math.pi / 2, im)
    return _core.complex(re.copysign(x), im.copysign(y))


def _forward(x: Tensor, real: Callable[[Tensor], Tensor], cplx: Callable[[Tensor], Tensor], name: str) -> Tensor:
    out_dtype = float_result_dtype(x)
    work = x.to(_compute_dtype(x))
    if x.dtype.is_complex:
        try:
            y = cplx(work)
        except (RuntimeError, TypeError, NotImplementedError) as err:
            raise NotImplementedError(f"{name}: complex inputs are not supported ({err})") from err
    else:
        y = real(work)
    return y.to(out_dtype)


class _Asinh(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _forward(x, _asinh_real, _asinh_complex, "asinh")

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        d = (x * x + 1).rsqrt()
        return g * (d.conj() if x.dtype.is_complex else d)


class _Acosh(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _forward(x, _acosh_real, _acosh_complex, "acosh")

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        if x.dtype.is_complex:
            # The two factors keep the principal branch's sign.
            return g * ((x + 1).rsqrt() * (x - 1).rsqrt()).conj()
        # rsqrt(x^2 - 1) as PyTorch (finite for x < -1, NaN on (-1, 1)).
        return g * (x * x - 1).rsqrt()


class _Atanh(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _forward(x, _atanh_real, _atanh_complex, "atanh")

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        d = 1 / (1 - x * x)
        return g * (d.conj() if x.dtype.is_complex else d)


@op_entry("asinh")
def asinh(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The inverse hyperbolic sine, elementwise (integers promote to the default float dtype)."""
    return write_out(_Asinh.apply(input), out, "asinh", (input,))


@op_entry("acosh")
def acosh(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The inverse hyperbolic cosine, elementwise (NaN below 1)."""
    return write_out(_Acosh.apply(input), out, "acosh", (input,))


@op_entry("atanh")
def atanh(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The inverse hyperbolic tangent, elementwise (+-inf at +-1, NaN beyond)."""
    return write_out(_Atanh.apply(input), out, "atanh", (input,))


def asinh_(self: Tensor) -> Tensor:
    """In-place ``asinh``."""
    return assign_inplace(self, asinh(source_of(self)), "asinh_")


def acosh_(self: Tensor) -> Tensor:
    """In-place ``acosh``."""
    return assign_inplace(self, acosh(source_of(self)), "acosh_")


def atanh_(self: Tensor) -> Tensor:
    """In-place ``atanh``."""
    return assign_inplace(self, atanh(source_of(self)), "atanh_")


def _alias(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    def alias(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"Alias of ``{fn.__name__}``."
    return alias


arcsinh = _alias(asinh, "arcsinh")
arccosh = _alias(acosh, "arccosh")
arctanh = _alias(atanh, "arctanh")
arcsinh_ = _alias(asinh_, "arcsinh_")
arccosh_ = _alias(acosh_, "arccosh_")
arctanh_ = _alias(atanh_, "arctanh_")

FUNCTIONS = (asinh, acosh, atanh, arcsinh, arccosh, arctanh, asinh_, acosh_, atanh_, arcsinh_, arccosh_, arctanh_)

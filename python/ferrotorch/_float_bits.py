"""Ops on the binary representation of floats, written with exact power-of-two arithmetic in
float64: ``frexp``, ``ldexp``, ``signbit``, ``nextafter``."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Optional, Tuple

from . import _core, return_types
from ._index_ops import where
from ._op_entry import op_entry
from ._result_writing import assign_inplace, scalar_name, source_of, write_out
from .autograd.function import Function

Tensor = _core.Tensor

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__module__ = "torch.return_types"
# torch.return_types.frexp, as PyTorch names the type.
if not hasattr(return_types, "frexp"):
    return_types.frexp = frexp_result

# (significand bits, exponent of the smallest subnormal, largest finite) per float dtype.
_FORMAT = {
    "float64": (53, -1074, 1.7976931348623157e308),
    "float32": (24, -149, 3.4028234663852886e38),
    "float16": (11, -24, 65504.0),
    "bfloat16": (8, -133, 3.3895313892515355e38),
}


def _fmt(dtype: Any) -> Tuple[int, int, float]:
    return _FORMAT[str(dtype).split(".")[-1]]


def _need_tensor(op: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _scale_by_pow2(x: Tensor, e: Tensor) -> Tensor:
    """x * 2**e (float64 x, float64 integer-valued e) in two halves, so that neither power
    of two overflows or underflows where the product is representable."""
    h = (e * 0.5).floor()
    return x * h.exp2() * (e - h).exp2()


def _frexp64(x: Tensor) -> Tuple[Tensor, Tensor]:
    """(mantissa, exponent) of a float64 tensor, both float64; mantissa in [0.5, 1)."""
    a = x.abs()
    finite = (a > 0) & a.isfinite()
    safe = where(finite, a, 1.0)
    e = safe.log2().floor() + 1
    m = _scale_by_pow2(safe, -e)
    # log2 may round across a power of two: one correction step each way settles it.
    e = e + (m >= 1).double() - (m < 0.5).double()
    m = _scale_by_pow2(safe, -e)
    mantissa = where(finite, m.copysign(x), x)
    exponent = where(finite, e, 0.0)
    return mantissa, exponent


class _Frexp(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tuple[Tensor, Tensor]:
        m, e = _frexp64(x.double())
        exponent = e.to(_core.int32)
        ctx.save_for_backward(exponent)
        ctx.mark_non_differentiable(exponent)
        return m.to(x.dtype), exponent

    @staticmethod
    def backward(ctx: Any, g: Tensor, _ge: Any) -> Tensor:
        (exponent,) = ctx.saved_tensors
        return (g / exponent.exp2()).to(g.dtype)


@op_entry("frexp")
def frexp(input: Tensor, *, out: Optional[Tuple[Tensor, Tensor]] = None) -> Any:
    """Splits ``input`` into mantissa in [0.5, 1) (sign kept) and int32 exponent, with
    ``input = mantissa * 2**exponent``; zero, inf and NaN give themselves and exponent 0."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = _Frexp.apply(input)
    if out is not None:
        return frexp_result(*write_out((m, e), tuple(out) if isinstance(out, (tuple, list)) else out, "frexp", (input,)))
    return frexp_result(m, e)


@op_entry("ldexp")
def ldexp(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """input * 2**other (an integer ``other`` gives a float power of the default dtype)."""
    _need_tensor("ldexp", "other", 2, other)
    # The result dtype is that of input and other together (a float input keeps its dtype
    # against an integer exponent), the default float dtype for two integer tensors; the
    # product is formed in float64 and rounded once.
    dtype = _core.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _core.get_default_dtype()
    work = _core.complex128 if dtype.is_complex else _core.float64
    result = (input.to(work) * _core.full((), 2.0, dtype=_core.float64).pow(other.to(_core.float64))).to(dtype)
    return write_out(result, out, "ldexp", (input, other))


def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``ldexp``."""
    _need_tensor("ldexp_", "other", 1, other)
    result = ldexp(source_of(self), other)
    if not _core.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"ldexp_: result type {scalar_name(result.dtype)} can't be cast to the desired output type {scalar_name(self.dtype)}")
    return assign_inplace(self, result, "ldexp_")


def signbit(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """True where the sign bit is set: negatives, -0.0 and NaNs with the sign bit."""
    if input.dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if input.dtype == _core.bool:
        result = _core.zeros(tuple(input.shape), dtype=_core.bool)
    elif not input.dtype.is_floating_point:
        result = input < 0
    else:
        result = _core.ones((), dtype=input.dtype).copysign(input.detach()) < 0
    if out is not None and out.dtype != _core.bool:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    return write_out(result, out, "signbit")


def _sum_to(g: Tensor, shape: Tuple[int, ...]) -> Tensor:
    """The gradient of a broadcast: ``g`` summed down to ``shape``."""
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


class _NextAfter(Function):
    """nextafter's value, with PyTorch's gradient: the identity for input where it differs
    from other (zero where they are equal), zero for other."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, other: Tensor) -> Tensor:
        ctx.shapes = (tuple(input.shape), tuple(other.shape))
        ctx.dtypes = (input.dtype, other.dtype)
        ctx.moved = input != other
        return _nextafter_value(input, other)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tuple[Any, Any]:
        gi = _sum_to(where(ctx.moved, g, 0.0), ctx.shapes[0]).to(ctx.dtypes[0]) if ctx.needs_input_grad[0] else None
        go = _core.zeros(ctx.shapes[1], dtype=ctx.dtypes[1]) if ctx.needs_input_grad[1] else None
        return gi, go


@op_entry("nextafter")
def nextafter(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The next representable value after ``input`` in the direction of ``other`` (gradient:
    the identity for input, zero for other, as PyTorch)."""
    _need_tensor("nextafter", "other", 2, other)
    dtype = _core.result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{scalar_name(dtype)}'")
    return write_out(_NextAfter.apply(input, other), out, "nextafter", (input, other))


def _nextafter_value(input: Tensor, other: Tensor) -> Tensor:
    dtype = _core.result_type(input, other)
    bits, tiny_exp, largest = _fmt(dtype)
    x = input.detach().to(dtype).double()
    y = other.detach().to(dtype).double()
    shape = _core.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    x, y = x.expand(shape), y.expand(shape)
    tiny = 2.0**tiny_exp
    m, e = _frexp64(x)
    # A step within x's binade [2^(e-1), 2^e) is 2^(e-bits); leaving a power of two towards
    # zero enters the binade below, where it is half that. Subnormals step by the smallest.
    up_step = (e - bits).exp2().clamp_min(tiny)
    down_step = where(m.abs() == 0.5, (e - bits - 1).exp2(), up_step).clamp_min(tiny)
    up = y > x
    grows = up == (x > 0)
    step = where(grows, up_step, down_step)
    r = x + where(up, step, -step)
    r = where(x == 0, _core.full((), tiny, dtype=_core.float64).copysign(y - x), r)
    r = where(x.isinf(), x.sign() * largest, r)
    r = where(x == y, y, r)
    r = where(x.isnan() | y.isnan(), float("nan"), r)
    return r.to(dtype)


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``nextafter``."""
    return assign_inplace(self, nextafter(self, other), "nextafter_")


FUNCTIONS = (frexp, ldexp, ldexp_, signbit, nextafter)
METHOD_ONLY = (nextafter_,)

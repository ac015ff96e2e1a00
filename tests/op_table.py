"""The op table: each entry names an op, its ferrotorch call, a NumPy reference, the input
domain, the dtypes it claims, the result dtype rule and whether it is differentiable. It drives
the forward tests (every layout and dtype) and the float64 gradchecks.

``out`` is the result dtype rule: "same" keeps the input dtype, "float" keeps float dtypes and
computes integers in float32 (PyTorch's default dtype), "bool" gives bool, "promote" is the
promoted dtype of the operands (binary ops), "int64" always gives int64. ``specials`` puts NaN
and +-inf into float samples (for the ops whose point is to handle them)."""

from dataclasses import dataclass, field
from typing import Callable, Tuple

import numpy as np

import ferrotorch as torch

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8")
SIGNED = ("int64", "int32", "int16", "int8")
# Float ops also run on int64 inputs, which compute in float32.
FI = FLOATS + ("int64",)
AFI = ALL_FLOATS + ("int64", "uint8")


@dataclass
class Op:
    name: str
    fn: Callable
    ref: Callable
    domain: Tuple[float, float] = (-2.0, 2.0)
    dtypes: Tuple[str, ...] = FLOATS
    grad: bool = True
    arity: int = 1
    kwargs: dict = field(default_factory=dict)
    out: str = "float"
    specials: bool = False
    tuple_dims: bool = True


def _erf(x):
    import math

    return np.vectorize(math.erf, otypes=[float])(x)


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def _erfinv_ref(y):
    # Invert erf by bisection on the reference side (independent of the Rust code).
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        big = _erf(mid) > y
        hi = np.where(big, mid, hi)
        lo = np.where(big, lo, mid)
    return (lo + hi) / 2


def _np_round(x, decimals=0):
    return np.round(x, decimals)


def _sign(x):
    # PyTorch (the oracle) gives sign(NaN) = 0 where NumPy gives NaN.
    return x if x.dtype == np.bool_ else np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype)


def _with_nan_as(x, nan, pos, neg):
    return np.where(np.isnan(x), nan, np.where(x == np.inf, pos, np.where(x == -np.inf, neg, x)))


def _logcumsumexp(x, axis=-1):
    return np.log(np.cumsum(np.exp(x), axis=axis))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


UNARY = [
    Op("neg", torch.neg, np.negative, dtypes=ALL_FLOATS + SIGNED, out="same"),
    Op("abs", torch.abs, np.abs, dtypes=ALL_FLOATS + INTS, domain=(0.1, 2), out="same"),
    Op("exp", torch.exp, np.exp, dtypes=AFI),
    Op("exp2", torch.exp2, np.exp2, dtypes=FI),
    Op("expm1", torch.expm1, np.expm1, dtypes=FI),
    Op("log", torch.log, np.log, domain=(0.1, 3), dtypes=AFI),
    Op("log2", torch.log2, np.log2, domain=(0.1, 3), dtypes=FI),
    Op("log10", torch.log10, np.log10, domain=(0.1, 3), dtypes=FI),
    Op("log1p", torch.log1p, np.log1p, domain=(-0.5, 2), dtypes=FI),
    Op("sqrt", torch.sqrt, np.sqrt, domain=(0.1, 3), dtypes=AFI),
    Op("rsqrt", torch.rsqrt, lambda x: 1 / np.sqrt(x), domain=(0.1, 3), dtypes=FI),
    Op("sin", torch.sin, np.sin, dtypes=AFI),
    Op("cos", torch.cos, np.cos, dtypes=FI),
    Op("tan", torch.tan, np.tan, domain=(-1.2, 1.2), dtypes=FLOATS),
    Op("asin", torch.asin, np.arcsin, domain=(-0.9, 0.9)),
    Op("acos", torch.acos, np.arccos, domain=(-0.9, 0.9)),
    Op("atan", torch.atan, np.arctan, dtypes=FI),
    Op("sinh", torch.sinh, np.sinh, dtypes=FI),
    Op("cosh", torch.cosh, np.cosh, dtypes=FI),
    Op("tanh", torch.tanh, np.tanh, dtypes=AFI),
    Op("sigmoid", torch.sigmoid, lambda x: 1 / (1 + np.exp(-x)), dtypes=AFI),
    Op("relu", torch.relu, lambda x: np.maximum(x, 0), dtypes=FLOATS + SIGNED, domain=(0.1, 2), out="same"),
    Op("gelu", lambda t: t.gelu(), _gelu, dtypes=ALL_FLOATS),
    Op("gelu_tanh", lambda t: t.gelu(approximate="tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    Op("silu", lambda t: t.silu(), lambda x: x / (1 + np.exp(-x))),
    Op("erf", torch.erf, _erf, dtypes=FI),
    Op("erfinv", torch.erfinv, _erfinv_ref, domain=(-0.9, 0.9)),
    Op("reciprocal", torch.reciprocal, lambda x: 1 / x, domain=(0.5, 2), dtypes=FI),
    Op("floor", torch.floor, np.floor, grad=False, dtypes=ALL_FLOATS + INTS, out="same"),
    Op("ceil", torch.ceil, np.ceil, grad=False, dtypes=FLOATS + SIGNED, out="same"),
    Op("round", torch.round, np.round, grad=False, dtypes=ALL_FLOATS + ("int64",), out="same", domain=(-5, 5)),
    Op("round_decimals", lambda t: torch.round(t, decimals=2), lambda x: _np_round(x, 2), grad=False, dtypes=FLOATS, out="same"),
    Op("trunc", torch.trunc, np.trunc, grad=False, dtypes=FLOATS + SIGNED, out="same"),
    Op("frac", torch.frac, lambda x: x - np.trunc(x)),
    Op("sign", torch.sign, _sign, grad=False, dtypes=ALL_FLOATS + INTS + ("bool",), out="same", specials=True),
    Op("sgn", torch.sgn, _sign, grad=False, dtypes=FLOATS + ("int32",), out="same"),
    Op("square", torch.square, np.square, dtypes=ALL_FLOATS + INTS, out="same"),
    Op("softplus", lambda t: torch._core._softplus(t, 1.0, 20.0), lambda x: np.log1p(np.exp(x))),
    Op("softplus_beta", lambda t: torch._core._softplus(t, 2.0, 1.0), lambda x: np.where(2 * x > 1, x, np.log1p(np.exp(2 * x)) / 2), domain=(-2, 0.4)),
    Op("leaky_relu", lambda t: torch._core._leaky_relu(t, 0.1), lambda x: np.where(x > 0, x, 0.1 * x), domain=(0.1, 2)),
    Op("elu", lambda t: torch._core._elu(t, 1.0), lambda x: np.where(x > 0, x, np.expm1(x)), domain=(0.1, 2)),
    Op("clamp", lambda t: t.clamp(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7), domain=(-0.45, 0.65), dtypes=ALL_FLOATS, out="same"),
    Op("clamp_int", lambda t: t.clamp(-2, 3), lambda x: np.clip(x, -2, 3), grad=False, dtypes=SIGNED, out="same"),
    Op("clamp_min", lambda t: t.clamp_min(0.2), lambda x: np.maximum(x, 0.2), domain=(0.3, 2), out="same"),
    Op("clamp_max", lambda t: torch.clamp_max(t, 0.2), lambda x: np.minimum(x, 0.2), domain=(-2, 0.1), out="same"),
    Op("clip_tensor_bounds", lambda t: t.clip(torch.tensor(-0.5, dtype=t.dtype), torch.tensor(0.5, dtype=t.dtype)), lambda x: np.clip(x, -0.5, 0.5), domain=(-0.4, 0.4), out="same"),
    Op("nan_to_num", lambda t: t.nan_to_num(), lambda x: _with_nan_as(x, 0.0, np.finfo(x.dtype).max, np.finfo(x.dtype).min), specials=True, out="same", grad=False),
    Op("nan_to_num_args", lambda t: torch.nan_to_num(t, nan=1.5, posinf=9.0, neginf=-9.0), lambda x: _with_nan_as(x, 1.5, 9.0, -9.0), specials=True, out="same", grad=False),
    Op("nan_to_num_grad", lambda t: t.nan_to_num(), lambda x: x, out="same"),
    Op("isnan", torch.isnan, np.isnan, grad=False, dtypes=ALL_FLOATS + INTS, out="bool", specials=True),
    Op("isinf", torch.isinf, np.isinf, grad=False, dtypes=ALL_FLOATS + INTS, out="bool", specials=True),
    Op("isfinite", torch.isfinite, np.isfinite, grad=False, dtypes=ALL_FLOATS + INTS, out="bool", specials=True),
    Op("isposinf", torch.isposinf, np.isposinf, grad=False, dtypes=FLOATS + ("int64",), out="bool", specials=True),
    Op("isneginf", torch.isneginf, np.isneginf, grad=False, dtypes=FLOATS + ("int64",), out="bool", specials=True),
    Op("logical_not", torch.logical_not, np.logical_not, grad=False, dtypes=FLOATS + INTS + ("bool",), out="bool"),
    Op("bitwise_not", torch.bitwise_not, np.invert, grad=False, dtypes=INTS + ("bool",), out="same"),
    Op("softmax", lambda t: t.softmax(-1), _softmax, dtypes=ALL_FLOATS),
    Op("log_softmax", lambda t: t.log_softmax(-1), _log_softmax, dtypes=ALL_FLOATS),
    Op("softmax_dtype", lambda t: torch.softmax(t, -1, dtype=torch.float64), _softmax, dtypes=("float32", "int64"), grad=False, out="float64"),
    Op("cumsum", lambda t: t.cumsum(-1), lambda x: np.cumsum(x, -1), dtypes=FLOATS + INTS, out="sum"),
    Op("cumprod", lambda t: t.cumprod(-1), lambda x: np.cumprod(x, -1), domain=(0.5, 1.5), dtypes=FLOATS + ("int32",), out="sum"),
    Op("logcumsumexp", lambda t: t.logcumsumexp(-1), _logcumsumexp),
    Op("cummax", lambda t: torch.cummax(t, -1).values, lambda x: np.maximum.accumulate(x, -1), dtypes=FLOATS + ("int64",), out="same"),
    Op("cummin", lambda t: t.cummin(-1).values, lambda x: np.minimum.accumulate(x, -1), dtypes=FLOATS + ("int16",), out="same"),
]

def _fmod(a, b):
    return np.fmod(a, b)


def _xlogy(a, b):
    return np.where(a == 0, 0.0, a * np.log(b))


BINARY = [
    Op("add", torch.add, np.add, arity=2, dtypes=ALL_FLOATS + INTS + ("bool",), out="promote"),
    Op("add_alpha", lambda a, b: torch.add(a, b, alpha=2), lambda a, b: a + 2 * b, arity=2, dtypes=FLOATS + ("int64",), out="promote"),
    Op("sub", torch.sub, np.subtract, arity=2, dtypes=ALL_FLOATS + INTS, out="promote"),
    Op("mul", torch.mul, np.multiply, arity=2, dtypes=ALL_FLOATS + INTS + ("bool",), out="promote"),
    Op("div", torch.div, np.true_divide, arity=2, domain=(0.5, 2), dtypes=ALL_FLOATS + ("int64", "uint8")),
    Op("div_trunc", lambda a, b: torch.div(a, b, rounding_mode="trunc"), lambda a, b: np.trunc(a / b).astype(np.result_type(a, b)), arity=2, domain=(0.3, 2), grad=False, dtypes=FLOATS + SIGNED, out="promote"),
    Op("div_floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), np.floor_divide, arity=2, domain=(0.3, 2), grad=False, dtypes=FLOATS + SIGNED, out="promote"),
    Op("pow", torch.pow, np.power, arity=2, domain=(0.5, 2), dtypes=FLOATS + ("int64", "int32"), out="promote"),
    Op("float_power", torch.float_power, lambda a, b: np.power(a.astype(np.float64), b), arity=2, domain=(0.5, 2), dtypes=("float32", "int64"), out="float64"),
    Op("maximum", torch.maximum, np.maximum, arity=2, dtypes=ALL_FLOATS + INTS, out="promote"),
    Op("minimum", torch.minimum, np.minimum, arity=2, dtypes=FLOATS + SIGNED, out="promote"),
    Op("atan2", torch.atan2, np.arctan2, arity=2, domain=(0.2, 2), dtypes=FI),
    Op("remainder", torch.remainder, np.mod, arity=2, domain=(0.3, 2), grad=False, dtypes=FLOATS + SIGNED, out="promote"),
    Op("fmod", torch.fmod, _fmod, arity=2, domain=(0.3, 2), dtypes=FLOATS + SIGNED, out="promote"),
    Op("floor_divide", torch.floor_divide, np.floor_divide, arity=2, domain=(0.3, 2), grad=False, dtypes=FLOATS + SIGNED, out="promote"),
    Op("hypot", torch.hypot, np.hypot, arity=2, dtypes=ALL_FLOATS, out="promote"),
    Op("copysign", torch.copysign, np.copysign, arity=2, domain=(0.2, 2), dtypes=FLOATS + ("int64",)),
    Op("xlogy", torch.xlogy, _xlogy, arity=2, domain=(0.2, 2), dtypes=FLOATS + ("int64",)),
    Op("logaddexp", torch.logaddexp, np.logaddexp, arity=2, dtypes=ALL_FLOATS, out="promote"),
    Op("lerp", lambda a, b: torch.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a), arity=2, dtypes=ALL_FLOATS, out="same"),
    Op("lerp_tensor_weight", lambda a, b: a.lerp(b, b.sigmoid()), lambda a, b: a + (1 / (1 + np.exp(-b))) * (b - a), arity=2, out="same"),
    Op("eq", torch.eq, np.equal, arity=2, grad=False, dtypes=FLOATS + INTS + ("bool",), out="bool"),
    Op("ne", torch.ne, np.not_equal, arity=2, grad=False, dtypes=FLOATS + INTS, out="bool"),
    Op("lt", torch.lt, np.less, arity=2, grad=False, dtypes=ALL_FLOATS + INTS, out="bool"),
    Op("le", torch.le, np.less_equal, arity=2, grad=False, dtypes=FLOATS + INTS, out="bool"),
    Op("gt", torch.gt, np.greater, arity=2, grad=False, dtypes=FLOATS + INTS, out="bool"),
    Op("ge", torch.ge, np.greater_equal, arity=2, grad=False, dtypes=FLOATS + ("int64",), out="bool"),
    Op("logical_and", torch.logical_and, np.logical_and, arity=2, grad=False, dtypes=FLOATS + ("int64", "bool"), out="bool"),
    Op("logical_or", torch.logical_or, np.logical_or, arity=2, grad=False, dtypes=FLOATS + ("int64", "bool"), out="bool"),
    Op("logical_xor", torch.logical_xor, np.logical_xor, arity=2, grad=False, dtypes=FLOATS + ("bool",), out="bool"),
    Op("bitwise_and", torch.bitwise_and, np.bitwise_and, arity=2, grad=False, dtypes=INTS + ("bool",), out="promote"),
    Op("bitwise_or", torch.bitwise_or, np.bitwise_or, arity=2, grad=False, dtypes=INTS + ("bool",), out="promote"),
    Op("bitwise_xor", torch.bitwise_xor, np.bitwise_xor, arity=2, grad=False, dtypes=INTS + ("bool",), out="promote"),
    Op("left_shift", lambda a, b: a << b.abs().clamp(0, 3), lambda a, b: np.left_shift(a, np.clip(np.abs(b), 0, 3)), arity=2, grad=False, dtypes=("int64", "int32"), out="promote"),
    Op("right_shift", lambda a, b: a >> b.abs().clamp(0, 3), lambda a, b: np.right_shift(a, np.clip(np.abs(b), 0, 3)), arity=2, grad=False, dtypes=("int64", "int16"), out="promote"),
]

def _np_var(x, axis=None, keepdims=False):
    return np.var(x, axis=axis, ddof=1, keepdims=keepdims)


def _np_norm(p):
    def ref(x, d, k):
        a = np.abs(x)
        if p == np.inf:
            return np.amax(a, axis=d, keepdims=k)
        if p == -np.inf:
            return np.amin(a, axis=d, keepdims=k)
        return np.sum(a**p, axis=d, keepdims=k) ** (1 / p)

    return ref


def _np_sum(x, d, k):
    # PyTorch sums integers (and bools) in int64.
    return np.sum(x, axis=d, keepdims=k, dtype=np.int64 if x.dtype.kind in "iub" else None)


def _d(d):
    return () if d is None else d


REDUCTIONS = [
    Op("sum", lambda t, d, k: t.sum(d, keepdim=k) if d is not None else t.sum(), _np_sum, dtypes=ALL_FLOATS + INTS + ("bool",), out="sum"),
    Op("sum_dtype", lambda t, d, k: t.sum(d, keepdim=k, dtype=torch.float64), lambda x, d, k: np.sum(x.astype(np.float64), axis=d, keepdims=k), dtypes=("float32", "int32"), grad=False, out="float64"),
    Op("mean", lambda t, d, k: t.mean(d, keepdim=k) if d is not None else t.mean(), lambda x, d, k: np.mean(x, axis=d, keepdims=k), dtypes=ALL_FLOATS, out="same"),
    Op("nansum", lambda t, d, k: torch.nansum(t, d, keepdim=k), lambda x, d, k: np.nansum(x, axis=d, keepdims=k), out="same", specials=True),
    Op("nanmean", lambda t, d, k: t.nanmean(d, keepdim=k), lambda x, d, k: np.nanmean(x, axis=d, keepdims=k), out="same", specials=True, grad=False),
    Op("prod", lambda t, d, k: t.prod(d, keepdim=k) if d is not None else t.prod(), lambda x, d, k: np.prod(x, axis=d, keepdims=k, dtype=np.int64 if x.dtype.kind in "iub" else None), domain=(0.5, 1.5), dtypes=FLOATS + ("int32",), out="sum", tuple_dims=False),
    Op("amax", lambda t, d, k: t.amax(_d(d), keepdim=k), lambda x, d, k: np.amax(x, axis=d, keepdims=k), dtypes=ALL_FLOATS + INTS, out="same"),
    Op("amin", lambda t, d, k: t.amin(_d(d), keepdim=k), lambda x, d, k: np.amin(x, axis=d, keepdims=k), dtypes=FLOATS + ("int32", "uint8"), out="same"),
    Op("max_dim", lambda t, d, k: t.max(d, keepdim=k).values if d is not None else t.max(), lambda x, d, k: np.amax(x, axis=d, keepdims=k if d is not None else False), dtypes=FLOATS + ("int64",), out="same", tuple_dims=False),
    Op("min_dim", lambda t, d, k: torch.min(t, d, k).values if d is not None else torch.min(t), lambda x, d, k: np.amin(x, axis=d, keepdims=k if d is not None else False), dtypes=FLOATS + ("int8",), out="same", tuple_dims=False),
    Op("argmax", lambda t, d, k: t.argmax(d, keepdim=k), lambda x, d, k: np.argmax(x, axis=d, keepdims=k), dtypes=FLOATS + ("int64",), out="int64", grad=False, tuple_dims=False),
    Op("argmin", lambda t, d, k: torch.argmin(t, d, keepdim=k), lambda x, d, k: np.argmin(x, axis=d, keepdims=k), dtypes=FLOATS + ("uint8",), out="int64", grad=False, tuple_dims=False),
    Op("var", lambda t, d, k: t.var(d, keepdim=k), lambda x, d, k: np.var(x, axis=d, ddof=1, keepdims=k), dtypes=ALL_FLOATS, out="same"),
    Op("var_correction0", lambda t, d, k: t.var(d, keepdim=k, correction=0), lambda x, d, k: np.var(x, axis=d, keepdims=k), out="same"),
    Op("var_unbiased_false", lambda t, d, k: torch.var(t, d, False, k), lambda x, d, k: np.var(x, axis=d, keepdims=k), out="same"),
    Op("std", lambda t, d, k: t.std(d, keepdim=k), lambda x, d, k: np.std(x, axis=d, ddof=1, keepdims=k), dtypes=ALL_FLOATS, out="same"),
    Op("std_correction2", lambda t, d, k: torch.std(t, d, keepdim=k, correction=2), lambda x, d, k: np.std(x, axis=d, ddof=2, keepdims=k), out="same"),
    Op("var_mean", lambda t, d, k: torch.var_mean(t, d, keepdim=k)[0] * 10 + torch.var_mean(t, d, keepdim=k)[1], lambda x, d, k: np.var(x, axis=d, ddof=1, keepdims=k) * 10 + np.mean(x, axis=d, keepdims=k), out="same"),
    Op("std_mean", lambda t, d, k: torch.std_mean(t, d, keepdim=k, correction=0)[0] - torch.std_mean(t, d, keepdim=k)[1], lambda x, d, k: np.std(x, axis=d, keepdims=k) - np.mean(x, axis=d, keepdims=k), out="same"),
    Op("logsumexp", lambda t, d, k: t.logsumexp(d if d is not None else tuple(range(t.ndim)), keepdim=k), lambda x, d, k: np.log(np.sum(np.exp(x), axis=d, keepdims=k)), dtypes=ALL_FLOATS + ("int64",)),
    Op("norm", lambda t, d, k: t.norm(dim=d, keepdim=k), lambda x, d, k: np.sqrt(np.sum(x * x, axis=d, keepdims=k)), dtypes=ALL_FLOATS, out="same"),
    Op("norm_fro", lambda t, d, k: torch.norm(t, "fro", d, k), _np_norm(2), out="same"),
    Op("norm_1", lambda t, d, k: t.norm(1, d, keepdim=k), _np_norm(1), domain=(0.2, 2), out="same"),
    Op("norm_3", lambda t, d, k: t.norm(3, d, keepdim=k), _np_norm(3), domain=(0.2, 2), out="same"),
    Op("norm_inf", lambda t, d, k: t.norm(float("inf"), d, keepdim=k), _np_norm(np.inf), out="same"),
    Op("norm_neg_inf", lambda t, d, k: t.norm(float("-inf"), d, keepdim=k), _np_norm(-np.inf), out="same"),
    Op("count_nonzero", lambda t, d, k: torch.count_nonzero(t, d), lambda x, d, k: np.count_nonzero(x, axis=d), dtypes=FLOATS + INTS + ("bool",), out="int64", grad=False),
    Op("all", lambda t, d, k: t.all(d, keepdim=k) if d is not None else t.all(), lambda x, d, k: np.all(x, axis=d, keepdims=k if d is not None else False), grad=False, dtypes=("bool", "float32", "int64"), out="bool"),
    Op("any", lambda t, d, k: t.any(d, keepdim=k) if d is not None else t.any(), lambda x, d, k: np.any(x, axis=d, keepdims=k if d is not None else False), grad=False, dtypes=("bool", "float64", "int32"), out="bool"),
]

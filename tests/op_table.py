"""The op table: each entry names an op, its ferrotorch call, a NumPy reference, the input
domain, the dtypes it claims and whether it is differentiable. It drives the forward tests
(every layout) and the float64 gradchecks."""

from dataclasses import dataclass, field
from typing import Callable, Tuple

import numpy as np

import ferrotorch as torch

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8")


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


UNARY = [
    Op("neg", torch.neg, np.negative, dtypes=FLOATS + ("int64", "int32", "int8")),
    Op("abs", torch.abs, np.abs, dtypes=ALL_FLOATS + INTS, domain=(0.1, 2)),
    Op("exp", torch.exp, np.exp, dtypes=ALL_FLOATS),
    Op("exp2", torch.exp2, np.exp2),
    Op("expm1", torch.expm1, np.expm1),
    Op("log", torch.log, np.log, domain=(0.1, 3), dtypes=ALL_FLOATS),
    Op("log2", torch.log2, np.log2, domain=(0.1, 3)),
    Op("log10", torch.log10, np.log10, domain=(0.1, 3)),
    Op("log1p", torch.log1p, np.log1p, domain=(-0.5, 2)),
    Op("sqrt", torch.sqrt, np.sqrt, domain=(0.1, 3), dtypes=ALL_FLOATS),
    Op("rsqrt", torch.rsqrt, lambda x: 1 / np.sqrt(x), domain=(0.1, 3)),
    Op("sin", torch.sin, np.sin),
    Op("cos", torch.cos, np.cos),
    Op("tan", torch.tan, np.tan, domain=(-1.2, 1.2)),
    Op("asin", torch.asin, np.arcsin, domain=(-0.9, 0.9)),
    Op("acos", torch.acos, np.arccos, domain=(-0.9, 0.9)),
    Op("atan", torch.atan, np.arctan),
    Op("sinh", torch.sinh, np.sinh),
    Op("cosh", torch.cosh, np.cosh),
    Op("tanh", torch.tanh, np.tanh, dtypes=ALL_FLOATS),
    Op("sigmoid", torch.sigmoid, lambda x: 1 / (1 + np.exp(-x)), dtypes=ALL_FLOATS),
    Op("relu", torch.relu, lambda x: np.maximum(x, 0), dtypes=FLOATS + ("int64",), domain=(0.1, 2)),
    Op("gelu", lambda t: t.gelu(), _gelu),
    Op("gelu_tanh", lambda t: t.gelu(approximate="tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    Op("silu", lambda t: t.silu(), lambda x: x / (1 + np.exp(-x))),
    Op("erf", torch.erf, _erf),
    Op("erfinv", torch.erfinv, _erfinv_ref, domain=(-0.9, 0.9)),
    Op("reciprocal", torch.reciprocal, lambda x: 1 / x, domain=(0.5, 2)),
    Op("floor", torch.floor, np.floor, grad=False, dtypes=ALL_FLOATS),
    Op("ceil", torch.ceil, np.ceil, grad=False),
    Op("round", torch.round, np.round, grad=False),
    Op("trunc", torch.trunc, np.trunc, grad=False),
    Op("frac", torch.frac, lambda x: x - np.trunc(x)),
    Op("sign", torch.sign, np.sign, grad=False, dtypes=FLOATS + ("int64",)),
    Op("square", torch.square, np.square),
    Op("softplus", lambda t: torch._core._softplus(t, 1.0, 20.0), lambda x: np.log1p(np.exp(x))),
    Op("leaky_relu", lambda t: torch._core._leaky_relu(t, 0.1), lambda x: np.where(x > 0, x, 0.1 * x), domain=(0.1, 2)),
    Op("elu", lambda t: torch._core._elu(t, 1.0), lambda x: np.where(x > 0, x, np.expm1(x)), domain=(0.1, 2)),
    Op("clamp", lambda t: t.clamp(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7), domain=(-0.45, 0.65)),
    Op("nan_to_num", lambda t: t.nan_to_num(), lambda x: x),
    Op("softmax", lambda t: t.softmax(-1), lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),
    Op("log_softmax", lambda t: t.log_softmax(-1), lambda x: x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))),
    Op("cumsum", lambda t: t.cumsum(-1), lambda x: np.cumsum(x, -1)),
    Op("cumprod", lambda t: t.cumprod(-1), lambda x: np.cumprod(x, -1), domain=(0.5, 1.5)),
]

BINARY = [
    Op("add", torch.add, np.add, arity=2, dtypes=ALL_FLOATS + INTS),
    Op("sub", torch.sub, np.subtract, arity=2, dtypes=FLOATS + ("int64", "int32")),
    Op("mul", torch.mul, np.multiply, arity=2, dtypes=ALL_FLOATS + INTS),
    Op("div", torch.div, np.true_divide, arity=2, domain=(0.5, 2)),
    Op("pow", torch.pow, np.power, arity=2, domain=(0.5, 2)),
    Op("maximum", torch.maximum, np.maximum, arity=2, dtypes=FLOATS + ("int64",)),
    Op("minimum", torch.minimum, np.minimum, arity=2, dtypes=FLOATS + ("int64",)),
    Op("atan2", torch.atan2, np.arctan2, arity=2, domain=(0.2, 2)),
    Op("remainder", torch.remainder, np.mod, arity=2, domain=(0.3, 2), grad=False, dtypes=FLOATS + ("int64",)),
    Op("floor_divide", torch.floor_divide, np.floor_divide, arity=2, domain=(0.3, 2), grad=False),
    Op("lerp", lambda a, b: torch.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a), arity=2),
    Op("eq", torch.eq, np.equal, arity=2, grad=False, dtypes=FLOATS + INTS),
    Op("lt", torch.lt, np.less, arity=2, grad=False, dtypes=FLOATS + INTS),
    Op("ge", torch.ge, np.greater_equal, arity=2, grad=False, dtypes=FLOATS + ("int64",)),
    Op("logical_and", torch.logical_and, np.logical_and, arity=2, grad=False),
    Op("logical_xor", torch.logical_xor, np.logical_xor, arity=2, grad=False),
    Op("bitwise_and", torch.bitwise_and, np.bitwise_and, arity=2, grad=False, dtypes=INTS),
    Op("bitwise_or", torch.bitwise_or, np.bitwise_or, arity=2, grad=False, dtypes=INTS),
    Op("bitwise_xor", torch.bitwise_xor, np.bitwise_xor, arity=2, grad=False, dtypes=INTS),
]


def _np_var(x, axis=None, keepdims=False):
    return np.var(x, axis=axis, ddof=1, keepdims=keepdims)


REDUCTIONS = [
    Op("sum", lambda t, d, k: t.sum(d, keepdim=k), lambda x, d, k: np.sum(x, axis=d, keepdims=k), dtypes=FLOATS + ("int64",)),
    Op("mean", lambda t, d, k: t.mean(d, keepdim=k), lambda x, d, k: np.mean(x, axis=d, keepdims=k)),
    Op("prod", lambda t, d, k: t.prod(d, keepdim=k), lambda x, d, k: np.prod(x, axis=d, keepdims=k), domain=(0.5, 1.5)),
    Op("amax", lambda t, d, k: t.amax(d, keepdim=k), lambda x, d, k: np.amax(x, axis=d, keepdims=k), dtypes=FLOATS + ("int64",)),
    Op("amin", lambda t, d, k: t.amin(d, keepdim=k), lambda x, d, k: np.amin(x, axis=d, keepdims=k), dtypes=FLOATS + ("int32",)),
    Op("var", lambda t, d, k: t.var(d, keepdim=k), _np_var),
    Op("std", lambda t, d, k: t.std(d, keepdim=k), lambda x, d, k: np.sqrt(_np_var(x, d, k))),
    Op("logsumexp", lambda t, d, k: t.logsumexp(d if d is not None else (0, 1, 2), keepdim=k), lambda x, d, k: np.log(np.sum(np.exp(x), axis=d, keepdims=k))),
    Op("norm", lambda t, d, k: t.norm(dim=d, keepdim=k), lambda x, d, k: np.sqrt(np.sum(x * x, axis=d, keepdims=k))),
    Op("all", lambda t, d, k: t.all(d, keepdim=k), lambda x, d, k: np.all(x, axis=d, keepdims=k), grad=False, dtypes=("bool",)),
    Op("any", lambda t, d, k: t.any(d, keepdim=k), lambda x, d, k: np.any(x, axis=d, keepdims=k), grad=False, dtypes=("bool",)),
]

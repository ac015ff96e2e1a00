"""Every op of the table against its NumPy reference, on contiguous, transposed, sliced
(step), broadcast (expanded), zero-size and 0-d inputs, across the dtypes it claims; the result
dtype is checked against PyTorch's rules. Then Python-scalar operands on both sides, the full
promotion table, integer semantics, sort/topk/max/min, in-place forms and error messages."""

import math

import numpy as np
import pytest
from op_table import BINARY, REDUCTIONS, UNARY

import ferrotorch as torch
from conftest import to_np

NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.float32, "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
TOL = {"float32": 2e-5, "float64": 1e-10, "float16": 2e-2, "bfloat16": 3e-2}
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded", "zero_size", "zero_dim"]
FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
ORDER = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

# PyTorch's promote_types, row = first dtype, column = second, in ORDER.
PROMOTION_TABLE = """
bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64
uint8 uint8 int16 int16 int32 int64 float16 bfloat16 float32 float64
int8 int16 int8 int16 int32 int64 float16 bfloat16 float32 float64
int16 int16 int16 int16 int32 int64 float16 bfloat16 float32 float64
int32 int32 int32 int32 int32 int64 float16 bfloat16 float32 float64
int64 int64 int64 int64 int64 int64 float16 bfloat16 float32 float64
float16 float16 float16 float16 float16 float16 float16 float32 float32 float64
bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 bfloat16 float32 float64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float64
float64 float64 float64 float64 float64 float64 float64 float64 float64 float64
"""
PROMOTE = {(ORDER[i], ORDER[j]): name for i, row in enumerate(PROMOTION_TABLE.split("\n")[1:-1]) for j, name in enumerate(row.split())}


def promote(a, b):
    return PROMOTE[(a, b)]


def expected_dtype(op, dtype):
    """The result dtype PyTorch gives for ``op`` on inputs of ``dtype``."""
    rule = op.out
    if rule in ("same", "promote"):
        return dtype
    if rule == "float":
        return dtype if dtype in FLOAT_DTYPES else "float32"
    if rule == "sum":
        return dtype if dtype in FLOAT_DTYPES else "int64"
    return rule  # "bool", "int64", "float64"


def sample(op, dtype, shape, rng):
    lo, hi = op.domain
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        lo_i = 1 if lo > 0 else (0 if dtype == "uint8" else -5)
        return rng.integers(lo_i, 6, shape).astype(NP[dtype])
    x = rng.uniform(lo, hi, shape)
    if op.specials and x.size >= 3:
        flat = x.reshape(-1)
        flat[0], flat[1], flat[-1] = np.nan, np.inf, -np.inf
    if dtype == "bfloat16":
        x = np.asarray(torch.tensor(x.tolist(), dtype=torch.bfloat16).float().tolist()).reshape(x.shape)
    elif dtype == "float16":
        x = x.astype(np.float16)
    return x.astype(NP[dtype])


def make(a, dtype, layout):
    """A ferrotorch tensor with the values of ``a`` in the given layout."""
    dt = getattr(torch, dtype)
    if a.size == 0:
        return torch.zeros(*a.shape, dtype=dt)
    if layout == "transposed" and a.ndim >= 2:
        t = torch.tensor(np.ascontiguousarray(a.T).tolist(), dtype=dt).t()
        assert not t.is_contiguous()
        return t
    if layout == "sliced" and a.ndim >= 1:
        # Every other column of a tensor twice as wide: a strided view (narrow keeps step 1).
        big = torch.tensor(np.repeat(a, 2, axis=-1).tolist(), dtype=dt)
        t = big.unflatten(-1, (a.shape[-1], 2)).select(-1, 0)
        assert not t.is_contiguous()
        return t
    return torch.tensor(a.tolist(), dtype=dt)


def shaped(layout, rng, op, dtype):
    if layout == "zero_size":
        return sample(op, dtype, (0, 3), rng)
    if layout == "zero_dim":
        return sample(op, dtype, (), rng)
    if layout == "expanded":
        return sample(op, dtype, (1, 4), rng)
    return sample(op, dtype, (3, 4), rng)


def check(got, ref, dtype, want_dtype=None):
    if want_dtype is not None:
        assert got.dtype == getattr(torch, want_dtype), (got.dtype, want_dtype)
    out = to_np(got)
    ref = np.asarray(ref)
    assert out.shape == ref.shape, (out.shape, ref.shape)
    if out.dtype.kind == "f" or ref.dtype.kind == "f":
        tol = TOL.get(dtype, 2e-5)
        if out.dtype == np.float32 and tol < 2e-5:
            tol = 2e-5
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(out, ref.astype(out.dtype))


def ref_input(a, dtype):
    # Half types are checked against a float64 reference on their (already rounded) values.
    return a.astype(np.float64) if dtype in ("float16", "bfloat16") else a


ROW_OPS = ("softmax", "log_softmax", "softmax_dtype", "cumsum", "cumprod", "logcumsumexp", "cummax", "cummin")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", UNARY, ids=[o.name for o in UNARY])
def test_unary(op, layout):
    rng = np.random.default_rng(0)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        t = make(a, dtype, layout)
        if layout == "expanded":
            t, a = t.expand(3, 4), np.broadcast_to(a, (3, 4))
        with np.errstate(all="ignore"):
            x = ref_input(a, dtype)
            if expected_dtype(op, dtype) in FLOAT_DTYPES and a.dtype.kind in "iu":
                x = a.astype(np.float64)  # NumPy would compute small ints in float16
            ref = op.ref(x.reshape(1)).reshape(()) if op.name in ROW_OPS and a.ndim == 0 else op.ref(x)
        check(op.fn(t), ref, dtype, expected_dtype(op, dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary(op, layout):
    rng = np.random.default_rng(1)
    for dtype in op.dtypes:
        a, b = shaped(layout, rng, op, dtype), shaped(layout, rng, op, dtype)
        ta, tb = make(a, dtype, layout), make(b, dtype, "contiguous")
        if layout == "expanded":
            # Broadcasting (1, 4) against (3, 1) instead of an explicit expand.
            b = sample(op, dtype, (3, 1), rng)
            tb = make(b, dtype, "contiguous")
        with np.errstate(all="ignore"):
            ref = op.ref(ref_input(a, dtype), ref_input(b, dtype))
        check(op.fn(ta, tb), ref, dtype, expected_dtype(op, dtype))


@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary_mixed_dtypes(op):
    """Operands of two different dtypes: the result has the promoted dtype."""
    if op.out != "promote" or len(op.dtypes) < 2:
        pytest.skip("single-dtype op")
    rng = np.random.default_rng(5)
    for d1, d2 in zip(op.dtypes, op.dtypes[1:] + op.dtypes[:1]):
        a, b = sample(op, d1, (2, 3), rng), sample(op, d2, (3,), rng)
        got = op.fn(make(a, d1, "contiguous"), make(b, d2, "contiguous"))
        assert got.dtype == getattr(torch, promote(d1, d2)), (d1, d2, got.dtype)


REDUCE_DIMS = [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True), ([2, 0], True)]


@pytest.mark.parametrize("op", REDUCTIONS, ids=[o.name for o in REDUCTIONS])
@pytest.mark.parametrize("dim,keepdim", REDUCE_DIMS)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_reductions(op, dim, keepdim, layout):
    if isinstance(dim, (tuple, list)) and not op.tuple_dims:
        pytest.skip("op takes a single dim")
    rng = np.random.default_rng(2)
    for dtype in op.dtypes:
        a = sample(op, dtype, (3, 4, 5), rng)
        dt = getattr(torch, dtype)
        if layout == "transposed":
            t = torch.tensor(np.ascontiguousarray(a.transpose(2, 1, 0)).tolist(), dtype=dt).permute(2, 1, 0)
        elif layout == "sliced":
            t = torch.tensor(np.repeat(a, 2, axis=1).tolist(), dtype=dt).unflatten(1, (4, 2)).select(2, 1)
        else:
            t = torch.tensor(a.tolist(), dtype=dt)
        np_dim = tuple(dim) if isinstance(dim, list) else dim
        with np.errstate(all="ignore"):
            ref = op.ref(ref_input(a, dtype), np_dim, keepdim)
        check(op.fn(t, dim, keepdim), ref, dtype, expected_dtype(op, dtype))


@pytest.mark.parametrize("op", REDUCTIONS, ids=[o.name for o in REDUCTIONS])
def test_reductions_zero_dim_input(op):
    """A 0-d input reduces over dim 0 / -1 / None to a 0-d result."""
    dtype = op.dtypes[0]
    a = sample(op, dtype, (), np.random.default_rng(3))
    t = torch.tensor(a.tolist(), dtype=getattr(torch, dtype))
    for dim in (None, 0, -1):
        got = op.fn(t, dim, False)
        assert got.shape == () and got.dtype == getattr(torch, expected_dtype(op, dtype))


def test_reductions_of_zero_size():
    z = torch.zeros(0, 3)
    assert z.sum().item() == 0 and z.sum(0).tolist() == [0, 0, 0] and z.prod(0).tolist() == [1, 1, 1]
    assert z.sum(1).shape == (0,) and z.sum((0, 1)).item() == 0
    assert torch.zeros(0, dtype=torch.int32).sum().dtype == torch.int64
    assert math.isnan(z.mean().item()) and z.logsumexp(0).tolist() == [-math.inf] * 3
    assert z.all().item() is True and z.any().item() is False
    assert torch.count_nonzero(z).item() == 0 and z.norm().item() == 0.0
    assert torch.tensor(5.0).sum().item() == 5 and torch.tensor(5.0).mean(0).item() == 5
    assert z.softmax(0).shape == (0, 3) and z.cumsum(0).shape == (0, 3)
    with pytest.raises(IndexError, match="Expected reduction dim"):
        z.amax(0)
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        z.max(0)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        z.max()


# Python scalars on either side of an operator: (tensor dtype, scalar) -> result dtype.
SCALAR_OPERATORS = {
    "+": (lambda a, b: a + b, np.add),
    "-": (lambda a, b: a - b, np.subtract),
    "*": (lambda a, b: a * b, np.multiply),
    "/": (lambda a, b: a / b, np.true_divide),
    "//": (lambda a, b: a // b, np.floor_divide),
    "%": (lambda a, b: a % b, np.mod),
    "**": (lambda a, b: a**b, np.power),
    "==": (lambda a, b: a == b, np.equal),
    "<": (lambda a, b: a < b, np.less),
    ">=": (lambda a, b: a >= b, np.greater_equal),
}


def scalar_result_dtype(opname, dtype, scalar):
    if opname in ("==", "<", ">="):
        return "bool"
    if isinstance(scalar, float):
        out = dtype if dtype in FLOAT_DTYPES else "float32"
    elif isinstance(scalar, bool):
        out = dtype
    else:
        out = "int64" if dtype == "bool" else dtype
    if opname == "/" and out not in FLOAT_DTYPES:
        return "float32"
    return out


@pytest.mark.parametrize("opname", list(SCALAR_OPERATORS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("scalar", [3, 2.5, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_python_scalar_operands(opname, dtype, scalar, side):
    fn, ref = SCALAR_OPERATORS[opname]
    if dtype == "bool" and opname in ("-", "//", "%", "**", "/") or (opname == "-" and scalar is True):
        pytest.skip("covered by the error tests")
    rng = np.random.default_rng(4)
    a = sample(UNARY[0], dtype, (2, 3), rng) if dtype != "bool" else rng.random((2, 3)) > 0.5
    if dtype not in ("bool",) and opname in ("//", "%", "**", "/"):
        a = np.abs(a).astype(NP[dtype]) + NP[dtype](1)
    t = make(a, dtype, "transposed" if side == "left" else "contiguous")
    if side == "left":
        a = np.ascontiguousarray(a)
    got = fn(scalar, t) if side == "left" else fn(t, scalar)
    want = scalar_result_dtype(opname, dtype, scalar)
    if a.dtype.kind == "f" or want in FLOAT_DTYPES:
        x = a.astype(np.float64)
    else:
        x = a.astype(np.int64) if dtype != "bool" else a
    s = float(scalar) if x.dtype.kind == "f" else scalar
    with np.errstate(all="ignore"):
        r = ref(s, x) if side == "left" else ref(x, s)
    if want not in FLOAT_DTYPES and want != "bool":
        r = np.asarray(r).astype(NP[want])  # integer results wrap like the dtype
    check(got, r, want if want in FLOAT_DTYPES else "float64", want)


@pytest.mark.parametrize("a", ORDER)
def test_promotion_table(a):
    for b in ORDER:
        x = torch.ones(2, dtype=getattr(torch, a))
        y = torch.ones(2, dtype=getattr(torch, b))
        assert (x * y).dtype == getattr(torch, promote(a, b)), (a, b)
        assert torch.promote_types(x.dtype, y.dtype) == getattr(torch, promote(a, b))
        # A 0-d operand of the same category does not raise the dimensioned operand's dtype.
        z = torch.ones((), dtype=getattr(torch, b))
        same_cat = (a in FLOAT_DTYPES) == (b in FLOAT_DTYPES) and (a == "bool") == (b == "bool")
        if same_cat:
            assert (x * z).dtype == x.dtype, (a, b)


def test_integer_semantics():
    a = torch.tensor([-7, 7, 5, -8], dtype=torch.int64)
    b = torch.tensor([2, -2, 5, 3], dtype=torch.int64)
    assert (a // b).tolist() == [-4, -4, 1, -3]
    assert (a % b).tolist() == [1, -1, 0, 1]  # sign of the divisor
    assert torch.fmod(a, b).tolist() == [-1, 1, 0, -2]  # sign of the dividend
    assert torch.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, 1, -2]
    assert torch.div(a, b, rounding_mode="floor").tolist() == [-4, -4, 1, -3]
    assert (a / b).dtype == torch.float32 and (a / b).tolist() == [-3.5, -3.5, 1.0, -8 / 3 if False else pytest.approx(-8 / 3)]
    big = torch.tensor([2**62 + 1])
    assert torch.fmod(big, torch.tensor([2])).tolist() == [1]  # exact, not through float
    assert (torch.tensor([250], dtype=torch.uint8) + 10).tolist() == [4]
    assert (torch.tensor([3], dtype=torch.uint8) - 5).tolist() == [254]
    assert (torch.tensor([127], dtype=torch.int8) + 1).tolist() == [-128]
    assert (torch.tensor([100], dtype=torch.int8) * 3).tolist() == [44]
    assert (2 ** torch.tensor([3, -1])).tolist() == [8, 0]
    assert (torch.tensor([2, 1, -1]) ** torch.tensor([-1, -2, -3])).tolist() == [0, 1, -1]
    assert torch.pow(2, torch.tensor([4])).tolist() == [16]
    assert torch.remainder(5, torch.tensor([3, -3])).tolist() == [2, -1]
    assert (10 - torch.tensor([3])).tolist() == [7]
    assert (1 / torch.tensor([4.0])).tolist() == [0.25]
    assert (torch.tensor([True, False]) + torch.tensor([True, True])).tolist() == [True, True]
    assert (torch.tensor([True, False]) * torch.tensor([True, True])).tolist() == [True, False]
    assert (torch.tensor([True, False]) + 1).tolist() == [2, 1]
    assert (torch.tensor([True, False]) & torch.tensor([True, True])).tolist() == [True, False]
    assert (~torch.tensor([True, False])).tolist() == [False, True]
    assert (~torch.tensor([0, 5])).tolist() == [-1, -6]
    assert torch.tensor([True, False]).square().tolist() == [1, 0]
    assert torch.sign(torch.tensor([True, False])).tolist() == [True, False]
    assert torch.tensor([2.5, 3.5, -2.5, 0.5]).round().tolist() == [2.0, 4.0, -2.0, 0.0]  # half to even
    assert torch.tensor([1.2345, -2.5551]).round(decimals=2).tolist() == pytest.approx([1.23, -2.56])
    assert torch.tensor([1250.0]).round(decimals=-2).tolist() == [1200.0]
    assert torch.tensor([1.0, -2.0]).float_power(2).dtype == torch.float64
    assert torch.tensor([3, 7], dtype=torch.uint8).all().dtype == torch.uint8
    f16 = torch.tensor([1000.0], dtype=torch.float16)
    assert (f16 * 100).tolist() == [math.inf]  # computed in float32, rounded back to float16
    assert (torch.tensor([0.1], dtype=torch.bfloat16) * 3).tolist() == [torch.tensor([0.3], dtype=torch.bfloat16).tolist()[0]]


def test_special_values():
    x = torch.tensor([1.0, math.nan, math.inf, -math.inf, -0.0])
    assert torch.isnan(x).tolist() == [False, True, False, False, False]
    assert torch.isposinf(x).tolist() == [False, False, True, False, False]
    assert torch.tensor([1, 2]).isnan().tolist() == [False, False]  # ints are never nan
    assert torch.tensor([1, 2]).isfinite().tolist() == [True, True]
    assert x.nan_to_num().tolist()[1:4] == [0.0, float(np.finfo(np.float32).max), float(np.finfo(np.float32).min)]
    assert torch.tensor([math.inf], dtype=torch.float16).nan_to_num().tolist() == [65504.0]
    assert torch.copysign(torch.tensor([3.0, 3.0]), torch.tensor([-0.0, 0.0])).tolist() == [-3.0, 3.0]
    assert torch.xlogy(torch.tensor([0.0, 0.0, 2.0]), torch.tensor([0.0, math.nan, math.e])).tolist()[0] == 0.0
    assert math.isnan(torch.xlogy(torch.tensor([0.0]), torch.tensor([math.nan])).item())
    assert torch.xlogy(2, torch.tensor([math.e])).item() == pytest.approx(2.0)
    assert torch.hypot(torch.tensor([3e30, math.inf]), torch.tensor([4e30, math.nan])).tolist() == [pytest.approx(5e30), math.inf]
    assert torch.logaddexp(torch.tensor([-math.inf, 1000.0]), torch.tensor([-math.inf, 1000.0])).tolist() == [-math.inf, pytest.approx(1000 + math.log(2))]
    assert torch.logsumexp(torch.tensor([[1000.0, 1000.0], [-math.inf, -math.inf]]), 1).tolist() == [pytest.approx(1000 + math.log(2)), -math.inf]
    sm = torch.softmax(torch.tensor([[1000.0, 0.0], [-math.inf, 0.0]]), 1).tolist()
    assert sm == [[1.0, 0.0], [0.0, 1.0]]
    assert torch.tensor([-1000.0, 0.0]).logcumsumexp(0).tolist() == [-1000.0, pytest.approx(0.0)]
    c = torch.cummax(torch.tensor([1.0, 3.0, math.nan, 5.0, 3.0]), 0)
    assert c.indices.tolist() == [0, 1, 2, 2, 2] and math.isnan(c.values.tolist()[-1])
    assert torch.cummin(torch.tensor([2, 1, 1, 3]), 0).indices.tolist() == [0, 1, 2, 2]  # ties move on
    assert torch.tensor([1.0, math.nan]).max().tolist() != 1.0
    assert torch.maximum(torch.tensor([1.0, math.nan]), torch.tensor([2.0, 0.0])).isnan().tolist() == [False, True]


def test_sort_topk_max_min():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 4.0]])
    t = torch.tensor(x.tolist())
    v, i = torch.sort(t, 1)
    np.testing.assert_array_equal(to_np(v), np.sort(x, 1))
    np.testing.assert_array_equal(to_np(i), np.argsort(x, 1, kind="stable"))
    s = t.sort(dim=0, descending=True, stable=True)
    np.testing.assert_array_equal(to_np(s.values), -np.sort(-x, 0))
    assert type(s).__name__ == "sort" and s.indices.dtype == torch.int64
    v, i = t.topk(2, dim=1)
    assert v.tolist() == [[3.0, 2.0], [5.0, 4.0]] and i.tolist() == [[0, 2], [2, 3]]
    r = torch.topk(t, 1, dim=0, largest=False)
    assert r.values.tolist() == [[0.0, -1.0, 2.0, 1.0]] and r.indices.tolist() == [[1, 1, 0, 0]]
    assert t.argsort(dim=1, descending=True).tolist()[1] == [2, 3, 0, 1]
    assert torch.argsort(t.t(), dim=0).tolist() == np.argsort(x.T, 0, kind="stable").tolist()
    m = t.max(1)
    assert m.values.tolist() == [3.0, 5.0] and m.indices.tolist() == [0, 2] and m[0].tolist() == [3.0, 5.0]
    assert type(m).__name__ == "max" and type(torch.min(t, 0)).__name__ == "min"
    vals, idx = torch.max(t, 1, keepdim=True)
    assert vals.shape == (2, 1) and idx.tolist() == [[0], [2]]
    assert torch.max(t, dim=0).indices.tolist() == [0, 0, 1, 1]
    assert torch.min(t).item() == -1.0 and torch.min(t).shape == ()
    assert torch.max(t, torch.zeros(2, 4)).tolist()[1] == [0.0, 0.0, 5.0, 4.0]
    assert torch.min(t, other=torch.zeros(4)).tolist()[0] == [0.0, 0.0, 0.0, 0.0]
    assert t.argmax().item() == 6 and t.argmin(1).tolist() == [1, 1]
    a = torch.aminmax(t, dim=1)
    assert a.min.tolist() == [1.0, -1.0] and a.max.tolist() == [3.0, 5.0]
    nan = torch.tensor([1.0, float("nan"), 3.0])
    assert torch.isnan(nan.max()).item() and nan.sort().indices.tolist() == [0, 2, 1]
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        t.topk(5)


def test_var_std_norm_variants():
    x = np.arange(12.0).reshape(3, 4) ** 1.5
    t = torch.tensor(x.tolist(), dtype=torch.float64)
    assert t.var(False).item() == pytest.approx(np.var(x))  # legacy positional unbiased
    assert t.var(1, unbiased=False).tolist() == pytest.approx(np.var(x, 1).tolist())
    assert t.std(0, correction=0, keepdim=True).shape == (1, 4)
    v, m = torch.var_mean(t, 1)
    assert v.tolist() == pytest.approx(np.var(x, 1, ddof=1).tolist()) and m.tolist() == pytest.approx(x.mean(1).tolist())
    s, m = torch.std_mean(t, dim=(0, 1), correction=0)
    assert s.item() == pytest.approx(np.std(x)) and m.item() == pytest.approx(x.mean())
    assert math.isnan(torch.tensor([1.0]).var().item())  # one element, correction 1
    assert t.norm(p=0).item() == np.count_nonzero(x)
    assert t.norm(2.5).item() == pytest.approx(np.sum(x**2.5) ** (1 / 2.5))
    assert torch.norm(t, dim=1).tolist() == pytest.approx(np.linalg.norm(x, axis=1).tolist())
    assert torch.tensor([3, 4]).float().norm().item() == 5.0


def test_inplace_forms_return_self():
    t = torch.tensor([[-2.0, 0.5], [3.0, 1.0]])
    assert t.clamp_(-1, 1) is t and t.tolist() == [[-1.0, 0.5], [1.0, 1.0]]
    assert t.clip_(max=0.75) is t and t.tolist() == [[-1.0, 0.5], [0.75, 0.75]]
    assert t.clamp_(min=torch.tensor([0.0, 0.625])) is t and t.tolist() == [[0.0, 0.625], [0.75, 0.75]]
    assert t.clamp_min_(0.7) is t and t.clamp_max_(0.72) is t
    np.testing.assert_allclose(to_np(t), [[0.7, 0.7], [0.72, 0.72]], rtol=1e-6)
    assert t.zero_() is t and t.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert t.fill_(2.5) is t and t.tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert t.fill_(torch.tensor(1.5)) is t and t.tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert t.copy_(torch.tensor([7, 8])) is t and t.tolist() == [[7.0, 8.0], [7.0, 8.0]]  # broadcast + cast
    assert t.dtype == torch.float32
    assert t.lerp_(torch.zeros(2, 2), 0.5) is t and t.tolist() == [[3.5, 4.0], [3.5, 4.0]]
    n = torch.tensor([math.nan, math.inf, 1.0])
    assert n.nan_to_num_(nan=2.0, posinf=3.0) is n and n.tolist() == [2.0, 3.0, 1.0]
    i = torch.tensor([5, -7])
    assert i.fill_(3.9).tolist() == [3, 3] and i.dtype == torch.int64
    assert i.copy_(torch.tensor([1.7, -2.7])).tolist() == [1, -2]
    assert i.fmod_(2).tolist() == [1, 0]
    h = torch.tensor([3.0])
    assert h.hypot_(torch.tensor([4.0])) is h and h.tolist() == [5.0]
    r = torch.tensor([1.26, 2.5])
    assert r.round_(decimals=1) is r and r.tolist() == pytest.approx([1.3, 2.5])
    # in-place through a strided view writes the base
    base = torch.zeros(2, 3)
    base.t().fill_(1.0)
    assert base.tolist() == [[1.0] * 3] * 2
    col = base.narrow(1, 1, 1)
    col.zero_()
    assert base.tolist() == [[1.0, 0.0, 1.0]] * 2
    with pytest.raises(RuntimeError, match="clamp_: result type float32 can't be cast to the desired output type int64"):
        torch.tensor([1, 2]).clamp_(0.5)


def test_softmax_family_api():
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    p = x.softmax(1)
    assert p.sum(1).tolist() == pytest.approx([1.0, 1.0])
    assert torch.softmax(x, dim=0).shape == (2, 3) and torch.log_softmax(x, 1, dtype=torch.float64).dtype == torch.float64
    assert torch.softmax(torch.tensor([1, 2]), 0, dtype=torch.float32).tolist() == pytest.approx(np.exp([1, 2]) / np.exp([1, 2]).sum())
    np.testing.assert_allclose(to_np(x.log_softmax(-1).exp()), to_np(p), rtol=1e-6)
    assert torch.softmax(torch.tensor(3.0), 0).item() == 1.0 and torch.log_softmax(torch.tensor(3.0), 0).item() == 0.0
    assert torch.logsumexp(x, (0, 1)).item() == pytest.approx(np.log(np.exp(x.tolist()).sum()))
    assert x.logsumexp(1, keepdim=True).shape == (2, 1)
    np.testing.assert_allclose(to_np(x.t().softmax(0)), to_np(p).T, rtol=1e-6)  # strided input


def test_other_reductions():
    x = torch.tensor([[0, 2, 0], [1, 0, 3]])
    assert torch.count_nonzero(x).item() == 3 and torch.count_nonzero(x, dim=0).tolist() == [1, 1, 1]
    assert torch.count_nonzero(x, dim=(0, 1)).item() == 3
    assert x.sum().dtype == torch.int64 and x.int().sum().dtype == torch.int64 and x.bool().sum().item() == 3
    assert x.int().prod(1).dtype == torch.int64 and x.bool().prod().dtype == torch.int64
    assert x.cumsum(1).dtype == torch.int64 and x.cumsum(1, dtype=torch.float64).dtype == torch.float64
    assert x.int().cumprod(0, dtype=torch.int32).dtype == torch.int32
    assert x.bool().cumsum(0).tolist() == [[0, 1, 0], [1, 1, 1]]
    assert x.float().mean(1, dtype=torch.float64).dtype == torch.float64 and x.mean(dtype=torch.float32).item() == 1.0
    assert x.all().item() is False and x.any(1).tolist() == [True, True] and x.all(0, keepdim=True).shape == (1, 3)
    assert x.all(dim=()).tolist() == [[False, True, False], [True, False, True]]  # reduces nothing
    assert x.byte().any(dim=[]).dtype == torch.uint8 and x.sum(dim=()).item() == 6  # sum(()) reduces all
    n = torch.tensor([[1.0, math.nan], [math.nan, math.nan]])
    assert torch.nansum(n).item() == 1.0 and n.nansum(1).tolist() == [1.0, 0.0]
    assert torch.nanmean(n, 1).tolist()[0] == 1.0 and math.isnan(torch.nanmean(n, 1).tolist()[1])
    assert torch.positive(x) is x and torch.sgn(torch.tensor([-2.0, 0.0])).tolist() == [-1.0, 0.0]


ERROR_CASES = [
    # (callable, exception class, message regex naming the op and, where relevant, the shapes)
    (lambda: torch.ones(2, 3) * torch.ones(4), RuntimeError, r"mul: The size of tensor a \(3\) must match the size of tensor b \(4\).*\[2, 3\] and \[4\]"),
    (lambda: torch.hypot(torch.ones(2, 3), torch.ones(2, 2)), RuntimeError, r"hypot: The size of tensor a \(3\).*\[2, 3\] and \[2, 2\]"),
    (lambda: torch.ones(2, 3).lerp(torch.ones(3, 2), 0.5), RuntimeError, r"The size of tensor a"),
    (lambda: torch.ones(2).bool() - torch.ones(2).bool(), RuntimeError, r"sub: Subtraction, the `-` operator, with two bool tensors is not supported"),
    (lambda: torch.ones(2) - torch.ones(2).bool(), RuntimeError, r"sub: Subtraction, the `-` operator, with a bool tensor is not supported"),
    (lambda: 1 - torch.tensor([True]), RuntimeError, r"sub: Subtraction.*with a bool tensor"),
    (lambda: -torch.tensor([True]), RuntimeError, r"neg: Negation, the `-` operator, on a bool tensor is not supported"),
    (lambda: torch.tensor([True]) ** torch.tensor([True]), RuntimeError, r"pow: \"pow_cpu\" not implemented for 'Bool'"),
    (lambda: torch.abs(torch.tensor([True])), RuntimeError, r"abs: \"abs_cpu\" not implemented for 'Bool'"),
    (lambda: torch.frac(torch.tensor([1, 2])), RuntimeError, r"frac: \"frac_cpu\" not implemented for 'int64'"),
    (lambda: torch.tensor([1, 2]).mean(), RuntimeError, r"mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: int64"),
    (lambda: torch.tensor([1, 2]).var(), RuntimeError, r"var: .*int64"),
    (lambda: torch.ones(2) & torch.ones(2), RuntimeError, r"bitwise_and_cpu\" not implemented for 'float32'"),
    (lambda: ~torch.ones(2), TypeError, r"~ \(operator.invert\) is only implemented on integer and Boolean-type tensors"),
    (lambda: torch.ones(2).bitwise_not(), NotImplementedError, r"bitwise_not: \"bitwise_not_cpu\" not implemented for 'float32'"),
    (lambda: torch.ones(2) << torch.ones(2), RuntimeError, r"bitwise_left_shift_cpu\" not implemented for 'float32'"),
    (lambda: torch.ones(2, 3).sum(2), IndexError, r"sum: Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: torch.ones(2, 3).mean((0, -3)), IndexError, r"mean: Dimension out of range"),
    (lambda: torch.ones(2, 3).softmax(2), IndexError, r"softmax: Dimension out of range"),
    (lambda: torch.ones(2, 3).log_softmax(-3), IndexError, r"log_softmax: Dimension out of range"),
    (lambda: torch.ones(2, 3).var(5), IndexError, r"var: Dimension out of range"),
    (lambda: torch.ones(2, 3).max(2), IndexError, r"max: Dimension out of range"),
    (lambda: torch.ones(2, 3).cumsum(3), IndexError, r"cumsum: Dimension out of range"),
    (lambda: torch.ones(2, 3).sort(4), IndexError, r"sort: Dimension out of range"),
    (lambda: torch.ones(2, 3).logsumexp(2), IndexError, r"logsumexp: Dimension out of range"),
    (lambda: torch.ones(2, 3).norm(dim=3), IndexError, r"norm: Dimension out of range"),
    (lambda: torch.cummax(torch.ones(2), 1), IndexError, r"cummax: Dimension out of range"),
    (lambda: torch.ones(3).sum((0, 0)), RuntimeError, r"sum: dim 0 appears multiple times"),
    (lambda: torch.tensor([2]) ** -1, RuntimeError, r"pow: Integers to negative integer powers are not allowed"),
    (lambda: torch.pow(torch.tensor([2], dtype=torch.uint8), -2), RuntimeError, r"Integers to negative integer powers are not allowed"),
    (lambda: torch.tensor([1, 2]) // torch.tensor([1, 0]), RuntimeError, r"floor_divide: ZeroDivisionError"),
    (lambda: torch.tensor([1, 2]) % 0, RuntimeError, r"remainder: ZeroDivisionError"),
    (lambda: torch.fmod(torch.tensor([1]), 0), RuntimeError, r"fmod: ZeroDivisionError"),
    (lambda: torch.div(torch.tensor([1]), 0, rounding_mode="trunc"), RuntimeError, r"div: ZeroDivisionError"),
    (lambda: torch.div(torch.ones(1), 2, rounding_mode="round"), ValueError, r"div expected rounding_mode to be one of None, 'trunc', or 'floor'"),
    (lambda: torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.float64), 0.5), RuntimeError, r"lerp: expected dtype float32 for `end` but got dtype float64"),
    (lambda: torch.lerp(torch.ones(2), torch.ones(2), torch.ones(2, dtype=torch.float64)), RuntimeError, r"lerp: expected dtype float32 for `weight`"),
    (lambda: torch.lerp(torch.tensor([1]), torch.tensor([2]), 0.5), RuntimeError, r"lerp: .*not implemented for 'int64'"),
    (lambda: torch.softmax(torch.tensor([1, 2]), 0), RuntimeError, r"softmax: \"softmax_kernel_impl\" not implemented for 'int64'"),
    (lambda: torch.logaddexp(torch.tensor([1]), torch.tensor([2])), RuntimeError, r"logaddexp: .*not implemented for 'int64'"),
    (lambda: torch.hypot(torch.tensor([1]), torch.tensor([2])), RuntimeError, r"hypot: .*not implemented for 'int64'"),
    (lambda: torch.logcumsumexp(torch.tensor([1]), 0), RuntimeError, r"logcumsumexp: .*not implemented for 'int64'"),
    (lambda: torch.tensor([True]).argmax(), RuntimeError, r"argmax\(\): does not support bool input"),
    (lambda: torch.tensor([True]).topk(1), RuntimeError, r"topk does not support bool dtypes"),
    (lambda: torch.ones(3).topk(4), RuntimeError, r"topk: selected index k out of range"),
    (lambda: torch.ones(3).clamp(), RuntimeError, r"clamp: At least one of 'min' or 'max' must not be None"),
    # A bool tensor with int bounds promotes to int64 (PyTorch 2.15); with bool tensor bounds it is refused.
    (lambda: torch.tensor([True]).clamp(torch.tensor(False), torch.tensor(True)), NotImplementedError, r"clamp: \"clamp_cpu\" not implemented for 'Bool'"),
    (lambda: torch.ones(3).gelu(approximate="fast"), RuntimeError, r"gelu: approximate argument must be either none or tanh"),
    (lambda: torch.tensor([1, 2]).gelu(), RuntimeError, r"gelu: .*not implemented for 'int64'"),
    (lambda: torch.tensor([1, 2]).round(decimals=1), RuntimeError, r"round: .*not implemented for 'int64'"),
    (lambda: torch.ones(2).softmax(), TypeError, r"softmax\(\) missing required argument 'dim'"),
    (lambda: torch.ones(2, 3).copy_(torch.ones(4)), RuntimeError, r"(copy_|expand).*\[4\]"),
    (lambda: torch.ones(2, 3).fill_(torch.ones(2)), RuntimeError, r"fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions"),
    (lambda: torch.nanmean(torch.tensor([1, 2])), RuntimeError, r"nanmean\(\): expected input to have floating point"),
    (lambda: torch.aminmax(torch.ones(2, 3), dim=(0, 1)), TypeError, r"aminmax\(\): argument 'dim' must be int"),
    (lambda: torch.positive(torch.tensor([True])), RuntimeError, r"positive: The `\+` operator, on a bool tensor is not supported"),
    (lambda: torch.ones(2).norm(p="nuc"), RuntimeError, r"matrix_norm: The input tensor A must have at least 2 dimensions"),
]


@pytest.mark.parametrize("fn,exc,pattern", ERROR_CASES, ids=[str(i) for i in range(len(ERROR_CASES))])
def test_errors_name_the_op(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()

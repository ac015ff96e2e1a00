"""Every op of the table against its NumPy reference, on contiguous, transposed, sliced
(step), broadcast (expanded), zero-size and 0-d inputs, across the dtypes it claims."""

import numpy as np
import pytest
from op_table import BINARY, REDUCTIONS, UNARY

import ferrotorch as torch
from conftest import to_np

NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.float32, "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
TOL = {"float32": 2e-5, "float64": 1e-10, "float16": 2e-2, "bfloat16": 2e-2}
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded", "zero_size", "zero_dim"]


def sample(op, dtype, shape, rng):
    lo, hi = op.domain
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        lo_i = 1 if lo > 0 else (0 if dtype == "uint8" else -5)
        return rng.integers(lo_i, 6, shape).astype(NP[dtype])
    x = rng.uniform(lo, hi, shape)
    if dtype == "bfloat16":
        x = np.asarray(torch.tensor(x.tolist(), dtype=torch.bfloat16).float().tolist())
    return x.astype(NP[dtype])


def make(a, dtype, layout):
    """A ferrotorch tensor with the values of ``a`` in the given layout, and the NumPy view of it."""
    if a.size == 0:
        return torch.zeros(*a.shape, dtype=getattr(torch, dtype))
    t = torch.tensor(a.tolist(), dtype=getattr(torch, dtype))
    if layout == "transposed" and a.ndim >= 2:
        t2 = torch.tensor(np.ascontiguousarray(a.T).tolist(), dtype=getattr(torch, dtype)).t()
        assert not t2.is_contiguous()
        return t2
    if layout == "sliced" and a.ndim >= 1:
        big = np.repeat(a, 2, axis=-1)
        tb = torch.tensor(big.tolist(), dtype=getattr(torch, dtype))
        return tb[..., ::2]
    return t


def shaped(layout, rng, op, dtype):
    if layout == "zero_size":
        return sample(op, dtype, (0, 3), rng)
    if layout == "zero_dim":
        return sample(op, dtype, (), rng)
    if layout == "expanded":
        return sample(op, dtype, (1, 4), rng)
    return sample(op, dtype, (3, 4), rng)


def check(got, ref, dtype):
    out = to_np(got)
    ref = np.asarray(ref)
    assert out.shape == ref.shape, (out.shape, ref.shape)
    if out.dtype.kind == "f" or ref.dtype.kind == "f":
        tol = TOL.get(dtype, 1e-5) if dtype in TOL else 1e-5
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", UNARY, ids=[o.name for o in UNARY])
def test_unary(op, layout):
    rng = np.random.default_rng(0)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        t = make(a, dtype, layout)
        if layout == "expanded":
            t, a = t.expand(3, 4), np.broadcast_to(a, (3, 4))
        if op.name in ("softmax", "log_softmax", "cumsum", "cumprod") and a.ndim == 0:
            ref = op.ref(a.reshape(1)).reshape(())
        else:
            ref = op.ref(a.astype(np.float64) if dtype in ("float16", "bfloat16") else a)
        check(op.fn(t), ref, dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary(op, layout):
    rng = np.random.default_rng(1)
    for dtype in op.dtypes:
        a, b = shaped(layout, rng, op, dtype), shaped(layout, rng, op, dtype)
        ta, tb = make(a, dtype, layout), make(b, dtype, "contiguous")
        if layout == "expanded":
            # Broadcasting against a full operand instead of an explicit expand.
            b = sample(op, dtype, (3, 1), rng)
            tb = make(b, dtype, "contiguous")
        if op.name == "floor_divide" and dtype.startswith("int"):
            b = np.where(b == 0, 1, b)
            tb = make(b, dtype, "contiguous")
        ref = op.ref(a.astype(np.float64), b.astype(np.float64)) if dtype in ("float16", "bfloat16") else op.ref(a, b)
        got = op.fn(ta, tb)
        if ref.dtype != to_np(got).dtype and np.asarray(ref).dtype.kind in "iu":
            ref = ref.astype(to_np(got).dtype)
        check(got, ref, dtype)


@pytest.mark.parametrize("op", REDUCTIONS, ids=[o.name for o in REDUCTIONS])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_reductions(op, dim, keepdim, layout):
    rng = np.random.default_rng(2)
    for dtype in op.dtypes:
        a = sample(op, dtype, (3, 4, 5), rng)
        t = torch.tensor(a.tolist(), dtype=getattr(torch, dtype))
        if layout == "transposed":
            t = torch.tensor(np.ascontiguousarray(a.transpose(2, 1, 0)).tolist(), dtype=getattr(torch, dtype)).permute(2, 1, 0)
        elif layout == "sliced":
            t = torch.tensor(np.repeat(a, 2, axis=1).tolist(), dtype=getattr(torch, dtype))[:, ::2]
        ref = op.ref(a, dim, keepdim)
        if (op.name == "logsumexp" and dim is None and keepdim) or (op.name == "prod" and isinstance(dim, tuple)):
            return  # prod takes a single dim in PyTorch
        got = op.fn(t, dim, keepdim)
        if np.asarray(ref).dtype.kind in "iub" and to_np(got).dtype != np.asarray(ref).dtype:
            ref = np.asarray(ref).astype(to_np(got).dtype)
        check(got, ref, dtype)


def test_reductions_of_zero_size_and_0d():
    z = torch.zeros(0, 3)
    assert z.sum().item() == 0 and z.sum(0).tolist() == [0, 0, 0] and z.prod(0).tolist() == [1, 1, 1]
    assert torch.tensor(5.0).sum().item() == 5 and torch.tensor(5.0).mean(0).item() == 5
    with pytest.raises(IndexError, match="Expected reduction dim"):
        z.amax(0)


PROMOTION = [
    ((torch.int32, [1]), 2.5, torch.float32),
    ((torch.int32, [1]), 2, torch.int32),
    ((torch.uint8, [1]), (torch.int8, [1]), torch.int16),
    ((torch.float16, [1]), 2.5, torch.float16),
    ((torch.bool, [True]), 1, torch.int64),
    ((torch.bool, [True]), (torch.bool, [True]), torch.bool),
    ((torch.int64, [1]), (torch.float64, 1.0), torch.float64),
    ((torch.float32, [1]), (torch.float64, 1.0), torch.float32),
    ((torch.int8, [1]), (torch.int64, 5), torch.int8),
    ((torch.bfloat16, [1]), (torch.float16, [1]), torch.float32),
]


@pytest.mark.parametrize("a,b,expected", PROMOTION)
def test_type_promotion_of_add(a, b, expected):
    ta = torch.tensor(a[1], dtype=a[0])
    tb = torch.tensor(b[1], dtype=b[0]) if isinstance(b, tuple) else b
    assert (ta + tb).dtype == expected
    assert (tb + ta).dtype == expected


def test_integer_semantics():
    a = torch.tensor([-7, 7, 5], dtype=torch.int64)
    b = torch.tensor([2, -2, 5], dtype=torch.int64)
    assert (a // b).tolist() == [-4, -4, 1]
    assert (a % b).tolist() == [1, -1, 0]
    assert (a / b).dtype == torch.float32
    assert (torch.tensor([250], dtype=torch.uint8) + 10).tolist() == [4]
    assert (torch.tensor([127], dtype=torch.int8) + 1).tolist() == [-128]
    assert (2 ** torch.tensor([3])).tolist() == [8]
    assert (10 - torch.tensor([3])).tolist() == [7]
    assert (1 / torch.tensor([4.0])).tolist() == [0.25]
    assert (torch.tensor([True, False]) & torch.tensor([True, True])).tolist() == [True, False]
    assert (~torch.tensor([True, False])).tolist() == [False, True]
    assert (~torch.tensor([0, 5])).tolist() == [-1, -6]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        torch.tensor([2]) ** torch.tensor([-1])
    with pytest.raises(RuntimeError, match="bitwise_and_cpu\" not implemented for 'float32'"):
        torch.ones(2) & torch.ones(2)


def test_sort_topk_max_min():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 4.0]])
    t = torch.tensor(x.tolist())
    v, i = torch.sort(t, 1)
    np.testing.assert_array_equal(to_np(v), np.sort(x, 1))
    np.testing.assert_array_equal(to_np(i), np.argsort(x, 1, kind="stable"))
    v, i = t.topk(2, dim=1)
    assert v.tolist() == [[3.0, 2.0], [5.0, 4.0]] and i.tolist() == [[0, 2], [2, 3]]
    assert t.argsort(dim=1, descending=True).tolist()[1] == [2, 3, 0, 1]
    m = t.max(1)
    assert m.values.tolist() == [3.0, 5.0] and m.indices.tolist() == [0, 2]
    assert torch.min(t).item() == -1.0 and torch.max(t, torch.zeros(2, 4)).tolist()[1] == [0.0, 0.0, 5.0, 4.0]
    assert t.argmax().item() == 6 and t.argmin(1).tolist() == [1, 1]
    nan = torch.tensor([1.0, float("nan"), 3.0])
    assert torch.isnan(nan.max()).item() and nan.sort().indices.tolist() == [0, 2, 1]

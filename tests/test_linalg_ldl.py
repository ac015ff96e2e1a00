"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve against PyTorch: the pivots (LAPACK's
Bunch-Kaufman choices) equal PyTorch's exactly and LD is close, over random, indefinite,
integer (tied) and singular matrices, batches, layouts, zero sizes; solutions, info codes,
errors, and the absence of a derivative (as in PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

TOL = {"float32": 2e-4, "float64": 1e-10}
DTYPES = ["float32", "float64"]


def sample(shape, dtype, kind, seed):
    """Matrices of a kind: symmetric, indefinite with a small diagonal (2x2 pivots), not
    symmetric (only the lower triangle is read), or small integers (ties in the pivot search)."""
    rng = np.random.RandomState(seed)
    if kind == "integer":
        m = rng.randint(-2, 3, size=shape).astype(np.float64)
    else:
        m = rng.randn(*shape)
    if kind != "lower":
        m = m + np.swapaxes(m, -1, -2)
    if kind == "small_diagonal":
        n = shape[-1]
        m[..., np.arange(n), np.arange(n)] *= 0.01
    return m.astype(dtype)


def factor_both(a, **kw):
    ours = torch.linalg.ldl_factor_ex(torch.tensor(a), **kw)
    theirs = pt.linalg.ldl_factor_ex(pt.tensor(a), **kw)
    return ours, theirs


def assert_factors_equal(ours, theirs, dtype):
    assert ours.pivots.dtype == torch.int32 and ours.info.dtype == torch.int32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    assert tuple(ours.LD.shape) == tuple(theirs.LD.shape)
    assert ours.LD.dtype == getattr(torch, dtype)
    scale = max(1.0, float(np.abs(theirs.LD.numpy()).max(initial=0.0)))
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=TOL[dtype], atol=TOL[dtype] * scale)


KINDS = ["symmetric", "small_diagonal", "lower", "integer"]
SIZES = [1, 2, 3, 4, 5, 7, 10, 16, 33, 64, 65, 100]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_factors_match_torch(n, kind, dtype):
    for seed in range(3 if n <= 16 else 1):
        a = sample((n, n), dtype, kind, seed)
        assert_factors_equal(*factor_both(a), dtype)


@pytest.mark.parametrize("shape", [(3, 4, 4), (2, 3, 5, 5), (0, 3, 3), (2, 0, 0), (0, 0), (4, 1, 1)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_batches_and_zero_sizes(shape, dtype):
    a = sample(shape, dtype, "small_diagonal", 1)
    assert_factors_equal(*factor_both(a), dtype)
    ours = torch.linalg.ldl_factor(torch.tensor(a))
    np.testing.assert_array_equal(ours.pivots.numpy(), pt.linalg.ldl_factor(pt.tensor(a)).pivots.numpy())


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
def test_non_contiguous_input(layout):
    a = sample((6, 6), "float64", "small_diagonal", 2)
    t, p = torch.tensor(a), pt.tensor(a)
    if layout == "transposed":
        t, p = t.mT, p.mT
    elif layout == "sliced":
        big = sample((9, 12), "float64", "lower", 3)
        t, p = torch.tensor(big)[1::2, ::3], pt.tensor(big)[1::2, ::3]
    else:
        t, p = t.expand(3, 6, 6), p.expand(3, 6, 6)
    assert not t.is_contiguous()
    assert_factors_equal(torch.linalg.ldl_factor_ex(t), pt.linalg.ldl_factor_ex(p), "float64")


SINGULAR = [
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    [[1.0, 2.0], [2.0, 4.0]],
    [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    [[float("nan"), 0.0], [0.0, 1.0]],
    [[0.0, 1.0], [1.0, 0.0]],
    [[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]],
]


@pytest.mark.parametrize("a", SINGULAR)
@pytest.mark.parametrize("dtype", DTYPES)
def test_info_codes_of_singular_matrices(a, dtype):
    a = np.array(a, dtype=dtype)
    ours, theirs = factor_both(a)
    assert_factors_equal(ours, theirs, dtype)
    stacked = np.stack([a, a])
    assert_factors_equal(*factor_both(stacked), dtype)
    if int(theirs.info) != 0:
        # PyTorch's check_errors trips an internal assert; ours says what failed. Both RuntimeError.
        for call in (lambda: torch.linalg.ldl_factor(torch.tensor(a)), lambda: torch.linalg.ldl_factor_ex(torch.tensor(stacked), check_errors=True)):
            with pytest.raises(RuntimeError, match="ldl_factor"):
                call()
        with pytest.raises(RuntimeError):
            pt.linalg.ldl_factor(pt.tensor(a))
    else:
        torch.linalg.ldl_factor(torch.tensor(a))


@pytest.mark.parametrize("hermitian", [False, True])
def test_hermitian_flag_is_the_same_for_real_input(hermitian):
    a = sample((5, 5), "float64", "small_diagonal", 4)
    assert_factors_equal(*factor_both(a, hermitian=hermitian), "float64")


SOLVE_SHAPES = [
    ((4, 4), (4, 2)),
    ((4, 4), (4, 1)),
    ((1, 1), (1, 3)),
    ((7, 7), (7, 7)),
    ((3, 5, 5), (3, 5, 2)),
    ((3, 5, 5), (5, 2)),
    ((5, 5), (2, 3, 5, 2)),
    ((2, 1, 4, 4), (3, 4, 1)),
    ((4, 4), (4, 0)),
    ((0, 0), (0, 2)),
    ((0, 3, 3), (3, 2)),
    ((3, 3), (0, 3, 2)),
    ((40, 40), (40, 3)),
]


@pytest.mark.parametrize("shapes", SOLVE_SHAPES)
@pytest.mark.parametrize("kind", ["symmetric", "small_diagonal", "integer"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_matches_torch(shapes, kind, dtype):
    a_shape, b_shape = shapes
    a = sample(a_shape, dtype, kind, 5)
    if kind == "integer":
        # Keep the integer matrices invertible: a dominant diagonal of mixed signs.
        n = a_shape[-1]
        a[..., np.arange(n), np.arange(n)] += np.where(np.arange(n) % 2, -7, 7).astype(dtype)
    b = np.random.RandomState(6).randn(*b_shape).astype(dtype)
    LD, piv = torch.linalg.ldl_factor(torch.tensor(a))
    x = torch.linalg.ldl_solve(LD, piv, torch.tensor(b))
    tLD, tpiv = pt.linalg.ldl_factor(pt.tensor(a))
    # PyTorch crashes when both LD and B have batch dims that broadcast; NumPy's solve stands in.
    expected = np.linalg.solve(a.astype(np.float64), np.broadcast_to(b, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]))
    if len(a_shape) == 2 or len(b_shape) == 2:
        expected = pt.linalg.ldl_solve(tLD, tpiv, pt.tensor(b)).numpy()
    assert x.dtype == getattr(torch, dtype)
    assert tuple(x.shape) == expected.shape
    tol = 1e-3 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(x.numpy(), expected, rtol=tol, atol=tol)


def test_solve_takes_any_integer_pivots_and_non_contiguous_operands():
    a = sample((5, 5), "float64", "small_diagonal", 7)
    b = np.random.RandomState(8).randn(2, 5).astype(np.float64)
    LD, piv = torch.linalg.ldl_factor(torch.tensor(a))
    tLD, tpiv = pt.linalg.ldl_factor(pt.tensor(a))
    expected = pt.linalg.ldl_solve(tLD, tpiv, pt.tensor(b).mT).numpy()
    for p in (piv, piv.long(), piv.short(), piv.to(torch.int8)):
        x = torch.linalg.ldl_solve(LD.mT.contiguous().mT, p, torch.tensor(b).mT)
        np.testing.assert_allclose(x.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_no_derivative_as_in_torch():
    a = torch.tensor(sample((3, 3), "float64", "symmetric", 9), requires_grad=True)
    LD, piv = torch.linalg.ldl_factor(a)
    assert LD.requires_grad and not piv.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LD.sum().backward()
    b = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
    x = torch.linalg.ldl_solve(LD.detach(), piv, b)
    assert x.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not implemented"):
        x.sum().backward()
    with torch.no_grad():
        assert not torch.linalg.ldl_factor(a).LD.requires_grad


def test_return_types():
    out = torch.linalg.ldl_factor_ex(torch.eye(2))
    assert type(out).__name__ == "linalg_ldl_factor_ex" and out._fields == ("LD", "pivots", "info")
    out = torch.linalg.ldl_factor(torch.eye(2))
    assert type(out).__name__ == "linalg_ldl_factor" and out._fields == ("LD", "pivots")


def _eye_factor(lib):
    return lib.linalg.ldl_factor(lib.eye(3))


FACTOR_ERRORS = [
    ("1-d", lambda lib: lib.linalg.ldl_factor(lib.ones(3))),
    ("non-square", lambda lib: lib.linalg.ldl_factor_ex(lib.ones(3, 2))),
    ("integer", lambda lib: lib.linalg.ldl_factor(lib.eye(2, dtype=lib.int64))),
    ("half", lambda lib: lib.linalg.ldl_factor(lib.eye(2, dtype=lib.float16))),
    ("bfloat16", lambda lib: lib.linalg.ldl_factor_ex(lib.eye(2, dtype=lib.bfloat16))),
]

SOLVE_ERRORS = [
    ("1-d LD", lambda lib, LD, p: lib.linalg.ldl_solve(lib.ones(3), p, lib.ones(3, 2))),
    ("non-square LD", lambda lib, LD, p: lib.linalg.ldl_solve(LD[:2], p[:2], lib.ones(2, 2))),
    ("1-d B", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p, lib.ones(3))),
    ("rows", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p, lib.ones(4, 2))),
    ("dtype", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p, lib.ones(3, 2, dtype=lib.float64))),
    ("integer LD", lambda lib, LD, p: lib.linalg.ldl_solve(LD.long(), p, lib.ones(3, 2).long())),
    ("half LD", lambda lib, LD, p: lib.linalg.ldl_solve(LD.half(), p, lib.ones(3, 2).half())),
    ("pivots shape", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p[:2], lib.ones(3, 2))),
    ("0-d pivots", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p[0], lib.ones(3, 2))),
    ("batched pivots", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p.expand(2, 3), lib.ones(3, 2))),
    ("float pivots", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p.float(), lib.ones(3, 2))),
    ("pivot too big", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p + 5, lib.ones(3, 2))),
    ("pivot zero", lambda lib, LD, p: lib.linalg.ldl_solve(LD, p * 0, lib.ones(3, 2))),
    ("batch broadcast", lambda lib, LD, p: lib.linalg.ldl_solve(LD.expand(2, 3, 3), p.expand(2, 3), lib.ones(5, 3, 3, 2))),
]


@pytest.mark.parametrize("name,call", FACTOR_ERRORS, ids=[c[0] for c in FACTOR_ERRORS])
def test_factor_errors_match_torch(name, call):
    with pytest.raises(Exception) as theirs:
        call(pt)
    with pytest.raises(type(theirs.value)) as ours:
        call(torch)
    assert type(ours.value) is type(theirs.value)
    assert "ldl_factor" in str(ours.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name,call", SOLVE_ERRORS, ids=[c[0] for c in SOLVE_ERRORS])
def test_solve_errors_match_torch(name, call):
    with pytest.raises(Exception) as theirs:
        call(pt, *_eye_factor(pt))
    with pytest.raises(type(theirs.value)) as ours:
        call(torch, *_eye_factor(torch))
    assert type(ours.value) is type(theirs.value)
    theirs_msg, ours_msg = str(theirs.value), str(ours.value)
    if "Dimension out of range" in theirs_msg or "must match the size" in theirs_msg:
        assert theirs_msg.split(" (")[0].split(": ")[-1] in ours_msg
    else:
        assert ours_msg == theirs_msg


def test_unpaired_two_by_two_pivot_is_an_error_not_a_crash():
    LD, _ = torch.linalg.ldl_factor(torch.eye(3))
    with pytest.raises(RuntimeError, match="ldl_solve"):
        torch.linalg.ldl_solve(LD, torch.tensor([1, 2, -3], dtype=torch.int32), torch.ones(3, 1))

"""torch.linalg solvers, inverses, determinants, Cholesky and LU against PyTorch: values in
float32 and float64 over batched, broadcast, transposed and zero-size inputs, gradients
(float64 gradcheck, and the same gradients as PyTorch's), and errors (class and message)."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_cases import (
    TOL,
    Arg,
    Case,
    assert_same,
    dense,
    general,
    inputs,
    leaves,
    raises_like_torch,
    run,
    spd,
)

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

G, S, D = general, spd, dense


def sym(L, X):
    """A symmetric positive definite function of any X, so gradcheck's free perturbations
    stay in the domain of the ops that read one triangle of a symmetric matrix."""
    n = X.shape[-1]
    return X @ X.transpose(-2, -1) + n * L.eye(n, dtype=X.dtype)


CASES = [
    # solve: matrix and vector right-hand sides, broadcasting, left=False, layouts
    Case("solve", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (4, 4)), Arg(D, (4, 3))]),
    Case("solve_vector", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (3, 3)), Arg(D, (3,))]),
    Case("solve_batched_vectors", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (2, 3, 3)), Arg(D, (2, 3))]),
    Case("solve_broadcast_B", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (2, 3, 3)), Arg(D, (3, 2))]),
    Case("solve_broadcast_both", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (2, 1, 3, 3)), Arg(D, (4, 3, 2))]),
    Case("solve_broadcast_vector", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (2, 3, 3)), Arg(D, (3,))]),
    Case("solve_transposed", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (3, 3), True), Arg(D, (3, 2), True)]),
    Case("solve_left_false", lambda L, A, B: L.linalg.solve(A, B, left=False), [Arg(G, (2, 3, 3)), Arg(D, (2, 4, 3))]),
    Case("solve_left_false_broadcast", lambda L, A, B: L.linalg.solve_ex(A, B, left=False), [Arg(G, (3, 3), True), Arg(D, (2, 4, 3))]),
    Case("solve_zero_batch", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (0, 3, 3)), Arg(D, (0, 3, 2))], grad=False),
    Case("solve_empty_matrix", lambda L, A, B: L.linalg.solve(A, B), [Arg(G, (0, 0)), Arg(D, (0, 2))], grad=False),
    Case("solve_ex", lambda L, A, B: L.linalg.solve_ex(A, B), [Arg(G, (2, 3, 3)), Arg(D, (2, 3, 1))]),
    # inverses and determinants
    Case("inv", lambda L, A: L.linalg.inv(A), [Arg(G, (4, 4))]),
    Case("inv_batched_transposed", lambda L, A: L.linalg.inv(A), [Arg(G, (2, 3, 3, 3), True)]),
    Case("inv_zero_batch", lambda L, A: L.linalg.inv(A), [Arg(G, (0, 2, 2))], grad=False),
    Case("inv_ex", lambda L, A: L.linalg.inv_ex(A), [Arg(G, (2, 3, 3))]),
    Case("inverse", lambda L, A: L.inverse(A), [Arg(G, (3, 3))]),
    Case("inverse_method", lambda L, A: A.inverse(), [Arg(G, (2, 3, 3), True)]),
    Case("det", lambda L, A: L.linalg.det(A), [Arg(G, (4, 4))]),
    Case("det_batched", lambda L, A: L.linalg.det(A), [Arg(D, (2, 3, 5, 5), True)]),
    Case("det_empty", lambda L, A: L.linalg.det(A), [Arg(G, (2, 0, 0))], grad=False),
    Case("torch_det_method", lambda L, A: (L.det(A), A.det()), [Arg(D, (3, 3))]),
    Case("slogdet", lambda L, A: L.linalg.slogdet(A), [Arg(D, (3, 4, 4))]),
    Case("slogdet_transposed", lambda L, A: L.slogdet(A), [Arg(D, (5, 5), True)]),
    Case("slogdet_empty", lambda L, A: L.linalg.slogdet(A), [Arg(G, (2, 0, 0))], grad=False),
    Case("logdet", lambda L, A: L.logdet(sym(L, A)), [Arg(D, (2, 3, 3))]),
    Case("logdet_method_negative", lambda L, A: A.logdet(), [Arg(D, (3, 3, 3))], grad=False),
    # Cholesky
    Case("cholesky", lambda L, X: L.linalg.cholesky(sym(L, X)), [Arg(D, (4, 4))]),
    Case("cholesky_upper", lambda L, X: L.linalg.cholesky(sym(L, X), upper=True), [Arg(D, (2, 3, 3))]),
    Case("cholesky_reads_lower", lambda L, A: L.linalg.cholesky(A), [Arg(G, (3, 4, 4))], grad=False),
    Case("cholesky_upper_reads_upper", lambda L, A: L.linalg.cholesky(A, upper=True), [Arg(G, (3, 4, 4))], grad=False),
    Case("cholesky_transposed", lambda L, A: L.linalg.cholesky(A), [Arg(S, (2, 3, 3), True)], grad=False),
    Case("cholesky_transposed_grad", lambda L, X: L.linalg.cholesky(sym(L, X)), [Arg(D, (2, 3, 3), True)]),
    Case("cholesky_zero_batch", lambda L, A: L.linalg.cholesky(A), [Arg(S, (0, 3, 3))], grad=False),
    Case("cholesky_ex", lambda L, X: L.linalg.cholesky_ex(sym(L, X)), [Arg(D, (2, 3, 3))]),
    Case("cholesky_solve", lambda L, B, X: L.cholesky_solve(B, L.linalg.cholesky(sym(L, X))), [Arg(D, (3, 2)), Arg(D, (3, 3))]),
    Case("cholesky_solve_upper_broadcast", lambda L, B, X: L.cholesky_solve(B, L.linalg.cholesky(sym(L, X), upper=True), upper=True), [Arg(D, (2, 3, 2)), Arg(D, (3, 3))]),
    Case("cholesky_solve_method", lambda L, B, C: B.cholesky_solve(C.tril()), [Arg(D, (4, 1)), Arg(G, (4, 4))]),
    Case("cholesky_inverse", lambda L, C: L.cholesky_inverse(C.tril()), [Arg(G, (2, 3, 3))]),
    Case("cholesky_inverse_upper", lambda L, C: C.triu().cholesky_inverse(upper=True), [Arg(G, (3, 3))]),
    # triangular solves: the other triangle of A holds noise that must not be read
    Case("solve_triangular_upper", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=True), [Arg(G, (4, 4)), Arg(D, (4, 2))]),
    Case("solve_triangular_lower", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=False), [Arg(G, (2, 3, 3)), Arg(D, (2, 3, 2))]),
    Case("solve_triangular_unit", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=False, unitriangular=True), [Arg(G, (3, 3)), Arg(D, (3, 2))]),
    Case("solve_triangular_right", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=True, left=False), [Arg(G, (3, 3)), Arg(D, (2, 3))]),
    Case("solve_triangular_right_unit", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=True, left=False, unitriangular=True), [Arg(G, (3, 3), True), Arg(D, (4, 3))]),
    Case("solve_triangular_broadcast", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=True), [Arg(G, (2, 1, 3, 3)), Arg(D, (4, 3, 2), True)]),
    Case("triangular_solve", lambda L, B, A: L.triangular_solve(B, A), [Arg(D, (3, 2)), Arg(G, (3, 3))]),
    Case("triangular_solve_transpose", lambda L, B, A: B.triangular_solve(A, upper=False, transpose=True, unitriangular=True), [Arg(D, (2, 3, 2)), Arg(G, (2, 3, 3))]),
    # LU
    Case("lu_factor", lambda L, A: L.linalg.lu_factor(A), [Arg(D, (5, 5))]),
    Case("lu_factor_batched", lambda L, A: L.linalg.lu_factor(A), [Arg(D, (2, 3, 4, 4), True)]),
    Case("lu_factor_large", lambda L, A: L.linalg.lu_factor(A), [Arg(D, (70, 70))], grad=False),
    Case("lu_factor_tall", lambda L, A: L.linalg.lu_factor_ex(A), [Arg(D, (2, 5, 3))]),
    Case("lu_factor_wide", lambda L, A: L.linalg.lu_factor_ex(A), [Arg(D, (3, 5))]),
    Case("lu_factor_wide_large", lambda L, A: L.linalg.lu_factor_ex(A), [Arg(D, (40, 57))], grad=False),
    Case("lu_factor_zero_batch", lambda L, A: L.linalg.lu_factor(A), [Arg(D, (0, 3, 3))], grad=False),
    Case("linalg_lu", lambda L, A: L.linalg.lu(A), [Arg(D, (2, 4, 4))]),
    Case("linalg_lu_tall", lambda L, A: L.linalg.lu(A), [Arg(D, (5, 3))]),
    Case("linalg_lu_wide", lambda L, A: L.linalg.lu(A), [Arg(D, (2, 3, 5))]),
    Case("lu_unpack", lambda L, A: L.lu_unpack(*L.linalg.lu_factor(A)), [Arg(D, (4, 4))]),
    Case("torch_lu", lambda L, A: L.lu(A, get_infos=True), [Arg(D, (2, 3, 3))]),
    Case("lu_solve", lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B), [Arg(D, (4, 4)), Arg(D, (4, 2))]),
    Case("lu_solve_adjoint", lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B, adjoint=True), [Arg(D, (2, 3, 3)), Arg(D, (2, 3, 2))]),
    Case("lu_solve_right", lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B, left=False), [Arg(D, (3, 3)), Arg(D, (2, 3))]),
    Case("lu_solve_right_adjoint", lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B, left=False, adjoint=True), [Arg(D, (3, 3), True), Arg(D, (4, 3))]),
    Case("lu_solve_broadcast", lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B), [Arg(D, (3, 3)), Arg(D, (2, 3, 1))]),
    Case("torch_lu_solve", lambda L, A, B: L.lu_solve(B, *L.linalg.lu_factor(A)), [Arg(D, (3, 3)), Arg(D, (3, 2))]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_values_match_torch(case, dtype):
    ours = case.fn(torch, *inputs(torch, case, dtype))
    theirs = case.fn(pt, *inputs(pt, case, dtype))
    assert_same(ours, theirs, TOL[dtype], case.name)


GRAD_TOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-8, atol=1e-10)}
GRAD_CASES = [c for c in CASES if c.grad]


def _float_outputs(out):
    return [t for t in (list(out) if isinstance(out, tuple) else [out]) if t.dtype.is_floating_point]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradcheck(case):
    xs = leaves(torch, case, "float64", requires_grad=True)

    def fn(*args):
        return tuple(t for t in _float_outputs(run(torch, case, args)) if t.requires_grad)

    assert torch.autograd.gradcheck(fn, xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradients_match_torch(case, dtype):
    """The same upstream gradients give the same input gradients as PyTorch's (its
    conventions included: the symmetric gradient of cholesky)."""
    grads = []
    for lib in (torch, pt):
        xs = leaves(lib, case, dtype, requires_grad=True)
        outs = _float_outputs(run(lib, case, xs))
        rng = np.random.default_rng(1)
        seeds = [lib.tensor(rng.uniform(-1, 1, tuple(o.shape)).tolist(), dtype=getattr(lib, dtype)) for o in outs]
        loss = sum((o * s).sum() for o, s in zip(outs, seeds) if o.requires_grad)
        got = lib.autograd.grad(loss, xs, allow_unused=True)
        grads.append([None if g is None else np.array(g.tolist()) for g in got])
    for i, (a, b) in enumerate(zip(*grads)):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, **GRAD_TOL[dtype], err_msg=f"{case.name}: input {i}")


def test_second_derivatives():
    rng = np.random.default_rng(3)
    a = torch.tensor(general(rng, (3, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    b = torch.tensor(dense(rng, (3, 2)).tolist(), dtype=torch.float64, requires_grad=True)
    x = torch.tensor(dense(rng, (3, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda a, b: torch.linalg.solve(a, b), (a, b))
    assert torch.autograd.gradgradcheck(lambda a: torch.linalg.inv(a), (a,))
    assert torch.autograd.gradgradcheck(lambda a: torch.linalg.det(a), (a,))
    assert torch.autograd.gradgradcheck(lambda x: torch.linalg.cholesky(sym(torch, x)), (x,))
    assert torch.autograd.gradgradcheck(lambda a, b: torch.linalg.solve_triangular(a, b, upper=True), (a, b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_info_codes_of_singular_matrices(dtype):
    singular = [[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]]
    for lib in (torch, pt):
        A = lib.tensor(singular, dtype=getattr(lib, dtype))
        zeros = lib.zeros(2, 3, 3, dtype=getattr(lib, dtype))
        yield_ = (
            lib.linalg.inv_ex(A).info.tolist(),
            lib.linalg.solve_ex(A, lib.ones(2, 3, dtype=A.dtype)).info.tolist(),
            lib.linalg.solve_ex(lib.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=A.dtype), lib.ones(3, 2, dtype=A.dtype), left=False).info.tolist(),
            lib.linalg.lu_factor_ex(A).info.tolist(),
            lib.linalg.lu_factor_ex(zeros).LU.tolist(),
            lib.linalg.lu_factor_ex(zeros).pivots.tolist(),
            lib.linalg.det(A).tolist(),
            lib.linalg.slogdet(A).sign.tolist(),
            lib.linalg.cholesky_ex(-lib.eye(3, dtype=A.dtype).expand(2, 3, 3)).info.tolist(),
            lib.linalg.cholesky_ex(lib.tensor([[4.0, 2.0], [2.0, 1.0]], dtype=A.dtype)).info.tolist(),
        )
        if lib is torch:
            ours = yield_
        else:
            theirs = yield_
    assert ours == theirs


def _t(lib, *shape, dtype="float32"):
    return lib.ones(*shape, dtype=getattr(lib, dtype))


def _eye(lib, n, dtype="float32"):
    return lib.eye(n, dtype=getattr(lib, dtype))


ERRORS = [
    # singular and indefinite matrices: LinAlgError, naming the batch element
    lambda L: L.linalg.inv(L.zeros(3, 3)),
    lambda L: L.linalg.inv(L.zeros(2, 3, 3)),
    lambda L: L.inverse(L.zeros(1, 3, 3)),
    lambda L: L.linalg.solve(L.zeros(3, 3), _t(L, 3)),
    lambda L: L.linalg.solve(L.zeros(2, 3, 3), _t(L, 2, 3)),
    lambda L: L.linalg.solve(L.zeros(3, 3), _t(L, 2, 3, 1)),
    lambda L: L.linalg.solve_ex(L.zeros(3, 3), _t(L, 3), check_errors=True),
    lambda L: L.linalg.inv_ex(L.zeros(3, 3), check_errors=True),
    lambda L: L.linalg.cholesky(-_eye(L, 3)),
    lambda L: L.linalg.cholesky(L.zeros(2, 3, 3)),
    lambda L: L.linalg.cholesky(L.tensor([[1.0, 2.0], [2.0, 1.0]]), upper=True),
    lambda L: L.linalg.cholesky(L.tensor([[float("nan"), 2.0], [2.0, 1.0]])),
    lambda L: L.linalg.cholesky_ex(-_eye(L, 2), check_errors=True),
    lambda L: L.cholesky_inverse(L.zeros(3, 3)),
    lambda L: L.cholesky_inverse(L.zeros(2, 3, 3)),
    lambda L: L.linalg.lu_factor(L.zeros(3, 3)),
    lambda L: L.linalg.lu_factor(L.zeros(2, 3, 3)),
    lambda L: L.linalg.lu_factor_ex(L.zeros(3, 3), check_errors=True),
    # shapes
    lambda L: L.linalg.inv(_t(L, 2, 3)),
    lambda L: L.linalg.inv(_t(L, 3)),
    lambda L: L.linalg.inv_ex(_t(L, 2, 3)),
    lambda L: L.linalg.det(_t(L, 2, 3)),
    lambda L: L.linalg.det(_t(L, 3)),
    lambda L: L.det(_t(L, 4, 2, 3)),
    lambda L: L.linalg.slogdet(_t(L, 2, 3)),
    lambda L: L.logdet(_t(L, 2, 3)),
    lambda L: L.linalg.cholesky(_t(L, 2, 3)),
    lambda L: L.linalg.cholesky(_t(L, 3)),
    lambda L: L.linalg.cholesky_ex(_t(L, 2, 3)),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 4)),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 4, 2)),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 2, 3)),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 3, 2), left=False),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 3), left=False),
    lambda L: L.linalg.solve(_t(L, 2, 3), _t(L, 3, 2)),
    lambda L: L.linalg.solve(_t(L, 3), _t(L, 3)),
    lambda L: L.linalg.solve(_eye(L, 3), L.tensor(1.0)),
    lambda L: L.linalg.solve_triangular(_t(L, 2, 3), _t(L, 2, 2), upper=True),
    lambda L: L.linalg.solve_triangular(_eye(L, 3), _t(L, 3), upper=True),
    lambda L: L.linalg.solve_triangular(_t(L, 3), _t(L, 3, 2), upper=True),
    lambda L: L.linalg.solve_triangular(_eye(L, 3), _t(L, 2, 2), upper=True),
    lambda L: L.linalg.solve_triangular(_eye(L, 3), _t(L, 3, 2), upper=True, left=False),
    lambda L: L.linalg.lu_factor(_t(L, 3)),
    lambda L: L.linalg.lu_factor_ex(_t(L, 3)),
    lambda L: L.linalg.lu(_t(L, 3)),
    lambda L: L.linalg.lu(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.lu(_eye(L, 3), pivot=False),
    lambda L: L.lu(_eye(L, 3), pivot=False),
    lambda L: L.lu_unpack(_eye(L, 3), L.ones(3, dtype=L.int64)),
    lambda L: L.lu_unpack(_t(L, 3), L.ones(3, dtype=L.int32)),
    lambda L: L.linalg.lu_factor(_eye(L, 3), pivot=False),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.ones(3, dtype=L.int64), _t(L, 3, 2)),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.ones(2, dtype=L.int32), _t(L, 3, 2)),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.ones(3, dtype=L.int32), _t(L, 3)),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.ones(3, dtype=L.int32), _t(L, 4, 2)),
    lambda L: L.linalg.lu_solve(_t(L, 2, 3), L.ones(2, dtype=L.int32), _t(L, 2, 2)),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.tensor([4, 2, 3], dtype=L.int32), _t(L, 3, 2)),
    lambda L: L.linalg.lu_solve(_eye(L, 3), L.tensor([0, 2, 3], dtype=L.int32), _t(L, 3, 2)),
    lambda L: L.linalg.lu_solve(_eye(L, 3).expand(2, 3, 3), L.ones(3, dtype=L.int32), _t(L, 3, 2)),
    lambda L: L.cholesky_solve(_t(L, 3, 2), _t(L, 2, 2)),
    lambda L: L.cholesky_solve(_t(L, 3), _eye(L, 3)),
    lambda L: L.cholesky_solve(_t(L, 4, 2), _eye(L, 3)),
    lambda L: L.cholesky_inverse(_t(L, 2, 3)),
    lambda L: L.cholesky_inverse(_t(L, 3)),
    # dtypes
    lambda L: L.linalg.inv(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.inv(_t(L, 3, 3, dtype="float16")),
    lambda L: L.linalg.inv(_t(L, 3, 3, dtype="bfloat16")),
    lambda L: L.linalg.det(_t(L, 3, 3, dtype="int32")),
    lambda L: L.linalg.slogdet(_t(L, 3, 3, dtype="int32")),
    lambda L: L.logdet(_t(L, 3, 3, dtype="int32")),
    lambda L: L.linalg.cholesky(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.solve(_t(L, 3, 3, dtype="int64"), _t(L, 3, dtype="int64")),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 3, dtype="int64")),
    lambda L: L.linalg.solve(_eye(L, 3), _t(L, 3, 2, dtype="float64")),
    lambda L: L.linalg.lu_factor(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.lu_factor(_t(L, 3, 3, dtype="float16")),
    lambda L: L.linalg.solve_triangular(_t(L, 3, 3, dtype="int64"), _t(L, 3, 2, dtype="int64"), upper=True),
    lambda L: L.cholesky_solve(_t(L, 3, 2), _eye(L, 3, dtype="float64")),
    lambda L: L.cholesky_solve(_t(L, 3, 2, dtype="int64"), _eye(L, 3, dtype="int64")),
    lambda L: L.cholesky_inverse(_t(L, 3, 3, dtype="int64")),
]

# Broadcast errors: PyTorch's message, which ours prefixes with the op's name.
BROADCAST_ERRORS = [
    lambda L: L.linalg.solve(_eye(L, 3).expand(3, 3, 3), _t(L, 2, 3, 1)),
    lambda L: L.linalg.solve_triangular(_eye(L, 3).expand(3, 3, 3), _t(L, 2, 3, 1), upper=True),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_match_torch(fn):
    raises_like_torch(fn)


@pytest.mark.parametrize("fn", BROADCAST_ERRORS, ids=[str(i) for i in range(len(BROADCAST_ERRORS))])
def test_broadcast_errors_name_the_op(fn):
    raises_like_torch(fn, exact=False)


@pytest.mark.parametrize("name", ["cholesky", "qr", "symeig", "eig", "lstsq", "matrix_rank", "solve"])
def test_functions_pytorch_removed_raise(name):
    """PyTorch removed these in favour of torch.linalg; calling them raises RuntimeError."""
    for lib in (pt, torch):
        args = (lib.eye(2), lib.eye(2)) if name in ("lstsq", "solve") else (lib.eye(2),)
        with pytest.raises(RuntimeError, match="This function was deprecated since version 1.9 and is now removed"):
            getattr(lib, name)(*args)
    if name in ("cholesky", "qr"):
        with pytest.raises(RuntimeError, match="is now removed"):
            getattr(torch.eye(2), name)()


def test_torch_lu_does_not_raise_for_singular_matrices():
    for lib in (pt, torch):
        LU, pivots = lib.lu(lib.zeros(2, 3, 3))
        assert LU.shape == (2, 3, 3) and pivots.tolist() == [[1, 2, 3], [1, 2, 3]]


def test_gradients_at_singular_matrices():
    """det's gradient there is PyTorch's (zeros); slogdet's is infinite, not an error."""
    singular = [[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[2.0, 1.0], [1.0, 3.0]]]
    grads = []
    for lib in (torch, pt):
        A = lib.tensor(singular, dtype=lib.float64, requires_grad=True)
        lib.linalg.det(A).sum().backward()
        grads.append(np.array(A.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)
    A = torch.tensor(singular[0], dtype=torch.float64, requires_grad=True)
    torch.linalg.slogdet(A).logabsdet.backward()
    assert not np.isfinite(np.array(A.grad.tolist())).any()


@pytest.mark.parametrize("module", ["__init__", "_solvers", "_inverses", "_factorizations", "_spectral", "_norms", "_least_squares"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    name = "ferrotorch.linalg" if module == "__init__" else f"ferrotorch.linalg.{module}"
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_linalg_error_is_a_runtime_error():
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError):
        torch.linalg.inv(torch.zeros(2, 2))


def test_named_tuples():
    A = torch.eye(3)
    assert type(torch.linalg.slogdet(A)).__name__ == "linalg_slogdet"
    assert type(torch.slogdet(A)).__name__ == "slogdet"
    assert torch.linalg.lu_factor_ex(A)._fields == ("LU", "pivots", "info")
    assert torch.linalg.solve_ex(A, A)._fields == ("result", "info")
    assert torch.linalg.inv_ex(A)._fields == ("inverse", "info")
    assert torch.linalg.cholesky_ex(A)._fields == ("L", "info")
    assert torch.linalg.lu(A)._fields == ("P", "L", "U")
    assert torch.return_types.linalg_slogdet is type(torch.linalg.slogdet(A))


def test_int_outputs_are_int32():
    A = torch.eye(3).expand(2, 3, 3)
    assert torch.linalg.lu_factor(A).pivots.dtype == torch.int32
    assert torch.linalg.inv_ex(A).info.dtype == torch.int32
    assert torch.linalg.inv_ex(A).info.shape == (2,)
    assert torch.linalg.cholesky_ex(torch.eye(2)).info.shape == ()

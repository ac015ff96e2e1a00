"""The torch.linalg functions composed from the factorizations (norms, cond, lstsq, pinv,
matrix_rank, matrix_power, multi_dot, cross, vecdot, diagonal, matrix_exp) against PyTorch:
values in float32 and float64 over batched, transposed and zero-size inputs, float64
gradcheck and the same gradients as PyTorch's, and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from linalg_cases import TOL, Arg, Case, assert_same, dense, general, leaves, raises_like_torch, run

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

G, D = general, dense


def ints(rng, shape):
    return rng.integers(-3, 4, shape).astype(np.float64)


def spd_of(L, X):
    n = X.shape[-1]
    return X @ X.transpose(-2, -1) + n * L.eye(n, dtype=X.dtype)


INF = math.inf
CASES = [
    # vector norms
    Case("vector_norm", lambda L, x: L.linalg.vector_norm(x), [Arg(D, (3, 4))]),
    Case("vector_norm_ord3_dim", lambda L, x: L.linalg.vector_norm(x, ord=3, dim=1, keepdim=True), [Arg(D, (2, 3, 4))]),
    Case("vector_norm_inf_dims", lambda L, x: L.linalg.vector_norm(x, ord=INF, dim=(0, 2)), [Arg(D, (2, 3, 4))]),
    Case("vector_norm_neg_inf", lambda L, x: L.linalg.vector_norm(x, ord=-INF, dim=-1), [Arg(D, (3, 4), True)]),
    Case("vector_norm_ord1", lambda L, x: L.linalg.vector_norm(x, ord=1, dim=0), [Arg(D, (3, 4))]),
    Case("vector_norm_ord0", lambda L, x: L.linalg.vector_norm(x, ord=0), [Arg(ints, (3, 4))], grad=False),
    Case("vector_norm_dtype", lambda L, x: L.linalg.vector_norm(x, dtype=L.float64), [Arg(D, (5,))], grad=False),
    # matrix norms
    Case("matrix_norm_fro", lambda L, A: L.linalg.matrix_norm(A), [Arg(D, (2, 3, 4))]),
    Case("matrix_norm_nuc", lambda L, A: L.linalg.matrix_norm(A, "nuc"), [Arg(D, (2, 3, 4), True)]),
    Case("matrix_norm_2", lambda L, A: L.linalg.matrix_norm(A, 2), [Arg(D, (4, 3))]),
    Case("matrix_norm_neg2_keepdim", lambda L, A: L.linalg.matrix_norm(A, -2, keepdim=True), [Arg(D, (2, 4, 3))]),
    Case("matrix_norm_1", lambda L, A: L.linalg.matrix_norm(A, 1), [Arg(D, (2, 3, 4))]),
    Case("matrix_norm_neg1", lambda L, A: L.linalg.matrix_norm(A, -1), [Arg(D, (3, 4))]),
    Case("matrix_norm_inf", lambda L, A: L.linalg.matrix_norm(A, INF, keepdim=True), [Arg(D, (2, 3, 4))]),
    Case("matrix_norm_neg_inf", lambda L, A: L.linalg.matrix_norm(A, -INF), [Arg(D, (3, 4), True)]),
    Case("matrix_norm_dims", lambda L, A: L.linalg.matrix_norm(A, 1, dim=(0, 2)), [Arg(D, (3, 2, 4))]),
    Case("matrix_norm_dims_nuc_keepdim", lambda L, A: L.linalg.matrix_norm(A, "nuc", dim=(2, 0), keepdim=True), [Arg(D, (3, 2, 4))]),
    # linalg.norm dispatch
    Case("norm_flat", lambda L, A: L.linalg.norm(A), [Arg(D, (2, 3, 4))]),
    Case("norm_flat_keepdim", lambda L, A: L.linalg.norm(A, keepdim=True), [Arg(D, (2, 3))]),
    Case("norm_vector_ord", lambda L, x: L.linalg.norm(x, 3), [Arg(D, (5,))]),
    Case("norm_matrix_ord", lambda L, A: L.linalg.norm(A, INF), [Arg(D, (3, 4))]),
    Case("norm_matrix_str", lambda L, A: L.linalg.norm(A, "nuc"), [Arg(D, (3, 4))]),
    Case("norm_dim_int", lambda L, A: L.linalg.norm(A, dim=1), [Arg(D, (3, 4))]),
    Case("norm_dim_pair", lambda L, A: L.linalg.norm(A, ord=-1, dim=(1, 2)), [Arg(D, (2, 3, 4))]),
    # condition numbers
    Case("cond", lambda L, A: L.linalg.cond(A), [Arg(G, (2, 3, 3))]),
    Case("cond_rect", lambda L, A: L.linalg.cond(A, -2), [Arg(D, (4, 3))]),
    # PyTorch's own backward of these fails (an in-place write to inv's output); gradcheck only.
    Case("cond_fro", lambda L, A: L.linalg.cond(A, "fro"), [Arg(G, (3, 3))], torch_grad=False),
    Case("cond_nuc", lambda L, A: L.linalg.cond(A, "nuc"), [Arg(G, (2, 3, 3), True)]),
    Case("cond_1", lambda L, A: L.linalg.cond(A, 1), [Arg(G, (3, 3))], torch_grad=False),
    Case("cond_neg_inf", lambda L, A: L.linalg.cond(A, -INF), [Arg(G, (3, 3))], torch_grad=False),
    Case("cond_singular", lambda L, A: L.linalg.cond(A * 0, 1), [Arg(G, (2, 3, 3))], grad=False),
    # least squares, pseudo-inverse, rank
    Case("lstsq_tall", lambda L, A, B: L.linalg.lstsq(A, B), [Arg(D, (5, 3)), Arg(D, (5, 2))]),
    Case("lstsq_wide", lambda L, A, B: L.linalg.lstsq(A, B).solution, [Arg(D, (3, 5)), Arg(D, (3, 2))]),
    Case("lstsq_batched_vector", lambda L, A, b: L.linalg.lstsq(A, b), [Arg(D, (2, 5, 3)), Arg(D, (2, 5))]),
    Case("lstsq_broadcast", lambda L, A, B: L.linalg.lstsq(A, B).solution, [Arg(D, (2, 5, 3), True), Arg(D, (1, 5, 2))]),
    Case("lstsq_gelsd", lambda L, A, B: L.linalg.lstsq(A, B, driver="gelsd"), [Arg(D, (2, 5, 3)), Arg(D, (2, 5, 2))]),
    Case("lstsq_gelss_wide", lambda L, A, B: L.linalg.lstsq(A, B, driver="gelss"), [Arg(D, (3, 5)), Arg(D, (3, 2))], grad=False),
    Case("lstsq_gels", lambda L, A, B: L.linalg.lstsq(A, B, driver="gels"), [Arg(D, (5, 3)), Arg(D, (5, 2))], grad=False),
    Case("lstsq_rank_deficient", lambda L, A, B: L.linalg.lstsq(A[..., :1].expand(5, 3), B), [Arg(D, (5, 3)), Arg(D, (5, 2))], grad=False),
    Case("lstsq_rcond", lambda L, A, B: L.linalg.lstsq(A, B, rcond=0.5).rank, [Arg(D, (5, 3)), Arg(D, (5, 2))], grad=False, dtypes=("float64",)),
    Case("pinv", lambda L, A: L.linalg.pinv(A), [Arg(D, (4, 3))]),
    Case("pinv_wide_batched", lambda L, A: L.linalg.pinv(A), [Arg(D, (2, 3, 5), True)]),
    Case("pinv_hermitian", lambda L, X: L.linalg.pinv(spd_of(L, X), hermitian=True), [Arg(D, (3, 3))]),
    Case("pinv_rank_deficient", lambda L, A: L.linalg.pinv(A[..., :1] * A[..., :1, :]), [Arg(D, (4, 4))], grad=False),
    Case("pinv_atol", lambda L, A: L.linalg.pinv(A, atol=0.9), [Arg(D, (2, 4, 3))], grad=False, dtypes=("float64",)),
    Case("pinverse", lambda L, A: (L.pinverse(A), A.pinverse(rcond=0.3)), [Arg(D, (3, 4))], grad=False, dtypes=("float64",)),
    Case("matrix_rank", lambda L, A: L.linalg.matrix_rank(A), [Arg(D, (2, 4, 3))], grad=False),
    Case("matrix_rank_deficient", lambda L, A: L.linalg.matrix_rank(A[..., :1] * A[..., :1, :]), [Arg(D, (3, 4, 4))], grad=False),
    Case("matrix_rank_tolerances", lambda L, A: (L.linalg.matrix_rank(A, atol=1.0), L.linalg.matrix_rank(A, rtol=0.4), L.linalg.matrix_rank(A, hermitian=True)), [Arg(D, (3, 4, 4))], grad=False, dtypes=("float64",)),
    # products
    Case("matrix_power_3", lambda L, A: L.linalg.matrix_power(A, 3), [Arg(D, (2, 3, 3))]),
    Case("matrix_power_0", lambda L, A: L.linalg.matrix_power(A, 0), [Arg(D, (2, 3, 3))], grad=False),
    Case("matrix_power_neg", lambda L, A: L.linalg.matrix_power(A, -2), [Arg(G, (3, 3), True)]),
    Case("matrix_power_method", lambda L, A: (L.matrix_power(A, 5), A.matrix_power(1)), [Arg(D, (3, 3))]),
    Case("multi_dot", lambda L, A, B, C: L.linalg.multi_dot([A, B, C]), [Arg(D, (2, 5)), Arg(D, (5, 3)), Arg(D, (3, 4))]),
    Case("multi_dot_vectors", lambda L, a, B, C, d: L.linalg.multi_dot([a, B, C, d]), [Arg(D, (4,)), Arg(D, (4, 6)), Arg(D, (6, 2)), Arg(D, (2,))]),
    Case("chain_matmul", lambda L, A, B: L.chain_matmul(A, B), [Arg(D, (2, 3)), Arg(D, (3, 4), True)]),
    Case("cross", lambda L, a, b: L.linalg.cross(a, b), [Arg(D, (4, 3)), Arg(D, (4, 3))]),
    Case("cross_broadcast_dim", lambda L, a, b: L.linalg.cross(a, b, dim=0), [Arg(D, (3, 1)), Arg(D, (3, 4))]),
    Case("torch_cross", lambda L, a, b: (L.cross(a, b, dim=1), a.cross(b, dim=1)), [Arg(D, (2, 3)), Arg(D, (2, 3))]),
    Case("vecdot", lambda L, a, b: L.linalg.vecdot(a, b), [Arg(D, (2, 4)), Arg(D, (4,))]),
    Case("vecdot_dim", lambda L, a, b: L.linalg.vecdot(a, b, dim=0), [Arg(D, (3, 2), True), Arg(D, (3, 2))]),
    Case("vander", lambda L, x: (L.linalg.vander(x), L.linalg.vander(x, N=5)), [Arg(D, (2, 3))]),
    Case("tensorinv", lambda L, A: L.linalg.tensorinv(A.reshape(6, 2, 3), ind=1), [Arg(G, (6, 6))]),
    Case("tensorinv_ind2", lambda L, A: L.linalg.tensorinv(A.reshape(2, 3, 3, 2)), [Arg(G, (6, 6), True)]),
    Case("tensorsolve", lambda L, A, B: L.linalg.tensorsolve(A.reshape(2, 3, 6), B.reshape(2, 3)), [Arg(G, (6, 6)), Arg(D, (6,))]),
    Case("tensorsolve_dims", lambda L, A, B: L.linalg.tensorsolve(A.reshape(6, 2, 3), B, dims=(0,)), [Arg(G, (6, 6)), Arg(D, (2, 3))]),
    Case("diagonal", lambda L, A: (L.linalg.diagonal(A), L.linalg.diagonal(A, offset=1, dim1=0, dim2=2)), [Arg(D, (3, 4, 5))]),
    Case("matrix_exp", lambda L, A: L.linalg.matrix_exp(A), [Arg(D, (3, 3))]),
    Case("matrix_exp_large_norm", lambda L, A: L.linalg.matrix_exp(3 * A), [Arg(D, (2, 4, 4))]),
    Case("matrix_exp_method", lambda L, A: (L.matrix_exp(A), A.matrix_exp()), [Arg(D, (2, 2), True)]),
    Case("matrix_exp_zero_batch", lambda L, A: L.linalg.matrix_exp(A), [Arg(D, (0, 3, 3))], grad=False),
]


VALUE_CASES = [(c, d) for c in CASES for d in c.dtypes]


@pytest.mark.parametrize("case,dtype", VALUE_CASES, ids=[f"{c.name}-{d}" for c, d in VALUE_CASES])
def test_values_match_torch(case, dtype):
    ours = run(torch, case, leaves(torch, case, dtype))
    theirs = run(pt, case, leaves(pt, case, dtype))
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=1e-3, atol=1e-4)
    assert_same(ours, theirs, tol, case.name)


GRAD_TOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-9)}
GRAD_CASES = [c for c in CASES if c.grad]


def _outputs(out):
    return [t for t in (list(out) if isinstance(out, tuple) else [out]) if t.dtype.is_floating_point and t.requires_grad]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradcheck(case):
    xs = leaves(torch, case, "float64", requires_grad=True)
    assert torch.autograd.gradcheck(lambda *a: tuple(_outputs(run(torch, case, a))), xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [c for c in GRAD_CASES if c.torch_grad], ids=str)
def test_gradients_match_torch(case, dtype):
    grads = []
    for lib in (torch, pt):
        xs = leaves(lib, case, dtype, requires_grad=True)
        outs = _outputs(run(lib, case, xs))
        rng = np.random.default_rng(1)
        seeds = [lib.tensor(rng.uniform(-1, 1, tuple(o.shape)).tolist(), dtype=getattr(lib, dtype)) for o in outs]
        loss = sum((o * s).sum() for o, s in zip(outs, seeds))
        grads.append([None if g is None else np.array(g.tolist()) for g in lib.autograd.grad(loss, xs, allow_unused=True)])
    for i, (a, b) in enumerate(zip(*grads)):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, **GRAD_TOL[dtype], err_msg=f"{case.name}: input {i}")


def test_pinv_gradient_with_repeated_singular_values():
    """pinv's backward is its closed form, not the SVD's: an orthogonal matrix is fine."""
    grads = []
    for lib in (torch, pt):
        A = lib.eye(3, dtype=lib.float64).requires_grad_()
        (lib.linalg.pinv(A) * lib.arange(9, dtype=lib.float64).reshape(3, 3)).sum().backward()
        grads.append(np.array(A.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


def test_integer_matrix_power_and_products():
    for lib in (torch, pt):
        assert lib.linalg.vander(lib.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
        A = lib.tensor([[1, 2], [3, 4]])
        assert lib.linalg.matrix_power(A, 3).tolist() == [[37, 54], [81, 118]]
        assert lib.linalg.matrix_power(A, 0).dtype == lib.int64
        assert lib.linalg.cross(lib.tensor([1, 0, 0]), lib.tensor([0, 1, 0])).tolist() == [0, 0, 1]
        assert lib.linalg.multi_dot([lib.tensor([1, 2]), lib.tensor([[1, 0], [0, 1]]), lib.tensor([3, 4])]).item() == 11


def test_torch_cross_picks_the_first_dim_of_size_3():
    rng = np.random.default_rng(4)
    a, b = dense(rng, (2, 3, 3)), dense(rng, (2, 3, 3))
    with pytest.warns(UserWarning):
        ours = torch.cross(torch.tensor(a.tolist()), torch.tensor(b.tolist()))
    np.testing.assert_allclose(np.array(ours.tolist()), pt.cross(pt.tensor(a), pt.tensor(b), dim=1).numpy(), rtol=1e-6)


def _t(L, *shape, dtype="float32"):
    return L.ones(*shape, dtype=getattr(L, dtype))


ERRORS = [
    lambda L: L.linalg.vector_norm(_t(L, 3, dtype="int64")),
    lambda L: L.linalg.vector_norm(_t(L, 3), ord="fro"),
    lambda L: L.linalg.vector_norm(_t(L, 2, 3), dim=(0, 0)),
    lambda L: L.linalg.vector_norm(_t(L, 2, 3), dtype=L.int64),
    lambda L: L.linalg.matrix_norm(_t(L, 3)),
    lambda L: L.linalg.matrix_norm(_t(L, 3, 3), ord=3),
    lambda L: L.linalg.matrix_norm(_t(L, 3, 3), ord="foo"),
    lambda L: L.linalg.matrix_norm(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.norm(_t(L, 3, 3, 3), ord=2),
    lambda L: L.linalg.norm(_t(L, 3), ord="fro"),
    lambda L: L.linalg.norm(_t(L, 3, dtype="int64")),
    lambda L: L.linalg.cond(_t(L, 2, 3), p=1),
    lambda L: L.linalg.cond(_t(L, 3, 3), p=3),
    lambda L: L.linalg.lstsq(_t(L, 4, 3), _t(L, 3, 2)),
    lambda L: L.linalg.lstsq(_t(L, 4, 3), _t(L, 4, 2), driver="foo"),
    lambda L: L.linalg.lstsq(_t(L, 4, 3, dtype="int64"), _t(L, 4, 2, dtype="int64")),
    lambda L: L.linalg.lstsq(_t(L, 4, 3), _t(L, 4, 2, dtype="float64")),
    lambda L: L.linalg.lstsq(_t(L, 3), _t(L, 3)),
    lambda L: L.linalg.pinv(_t(L, 3)),
    lambda L: L.linalg.pinv(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.matrix_rank(_t(L, 3)),
    lambda L: L.linalg.matrix_rank(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.matrix_power(_t(L, 2, 3), 2),
    lambda L: L.linalg.matrix_power(_t(L, 3), 2),
    lambda L: L.linalg.matrix_power(L.zeros(3, 3), -1),
    lambda L: L.linalg.matrix_power(_t(L, 3, 3, dtype="int64"), -1),
    lambda L: L.linalg.multi_dot([_t(L, 3)]),
    lambda L: L.linalg.multi_dot([_t(L, 3, 2), _t(L, 3, 2)]),
    lambda L: L.linalg.multi_dot([_t(L, 2, 3, 2), _t(L, 2, 3)]),
    lambda L: L.linalg.multi_dot([_t(L, 2, 3), _t(L, 3, 2, dtype="float64")]),
    lambda L: L.linalg.cross(_t(L, 2), _t(L, 2)),
    lambda L: L.cross(_t(L, 2, 4), _t(L, 2, 4)),
    lambda L: L.linalg.vecdot(_t(L, 3, dtype="int64"), _t(L, 3, dtype="int64")),
    lambda L: L.linalg.matrix_exp(_t(L, 2, 3)),
    lambda L: L.linalg.matrix_exp(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.vander(L.tensor(1.0)),
    lambda L: L.linalg.vander(_t(L, 3), N=1),
    lambda L: L.linalg.tensorinv(_t(L, 2, 3, 4), ind=1),
    lambda L: L.linalg.tensorinv(_t(L, 4, 6, 8, 3), ind=0),
    lambda L: L.linalg.tensorinv(_t(L, 2, 3, 6, dtype="int64"), ind=2),
    lambda L: L.linalg.tensorsolve(_t(L, 2, 3, 6), _t(L, 2, 4)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_match_torch(fn):
    raises_like_torch(fn)


def test_broadcast_errors_name_the_op():
    raises_like_torch(lambda L: L.linalg.cross(_t(L, 3, 3), _t(L, 2, 3)), exact=False)
    with pytest.raises(RuntimeError):
        torch.linalg.vecdot(_t(torch, 3), _t(torch, 4))


def test_lstsq_named_tuple():
    r = torch.linalg.lstsq(torch.eye(3), torch.ones(3, 1))
    assert r._fields == ("solution", "residuals", "rank", "singular_values")
    assert r.rank.dtype == torch.int64

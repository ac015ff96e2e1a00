"""torch.linalg.polar, matrix_sqrth and householder_product against PyTorch: values, batches,
layouts, zero-size, errors, float64 gradchecks and gradients beside PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

TOL = {"float32": 1e-4, "float64": 1e-10}


def rand(shape, dtype="float64", seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def spd(shape, dtype="float64", seed=0):
    a = rand(shape, dtype, seed)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 4, 2), (1, 1), (0, 0), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polar_matches_torch(shape, dtype):
    a = rand(shape, dtype)
    U, H = torch.linalg.polar(torch.tensor(a))
    Up, Hp = pt.linalg.polar(pt.tensor(a))
    tol = TOL[dtype] * 10
    assert tuple(U.shape) == tuple(Up.shape) and tuple(H.shape) == tuple(Hp.shape)
    assert U.dtype == getattr(torch, dtype)
    np.testing.assert_allclose(U.numpy(), Up.numpy(), atol=tol, rtol=tol)
    np.testing.assert_allclose(H.numpy(), Hp.numpy(), atol=tol, rtol=tol)


def test_polar_named_tuple_and_transposed_input():
    a = rand((4, 4), seed=1)
    out = torch.linalg.polar(torch.tensor(a).t())
    assert out.U is out[0] and out.H is out[1]
    np.testing.assert_allclose(out.U.numpy() @ out.H.numpy(), a.T, atol=1e-10)


@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 4, 4), (0, 0), (2, 0, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_sqrth_matches_torch(shape, dtype):
    a = spd(shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    X = torch.linalg.matrix_sqrth(torch.tensor(a))
    Xp = pt.linalg.matrix_sqrth(pt.tensor(a))
    tol = TOL[dtype] * 10
    assert tuple(X.shape) == tuple(Xp.shape)
    np.testing.assert_allclose(X.numpy(), Xp.numpy(), atol=tol, rtol=tol)


def test_matrix_sqrth_reads_lower_triangle_and_clamps_negative_eigenvalues():
    a = spd((3, 3), seed=4)
    a_upper_garbage = a + np.triu(np.full((3, 3), 7.0), 1)
    np.testing.assert_allclose(
        torch.linalg.matrix_sqrth(torch.tensor(a_upper_garbage)).numpy(),
        pt.linalg.matrix_sqrth(pt.tensor(a_upper_garbage)).numpy(),
        atol=1e-10,
    )
    b = np.array([[1.0, 0.0], [0.0, -1.0]])
    np.testing.assert_allclose(torch.linalg.matrix_sqrth(torch.tensor(b)).numpy(), pt.linalg.matrix_sqrth(pt.tensor(b)).numpy())


@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((4, 3), 2), ((3, 3), 3), ((2, 5, 2), 2), ((4, 3), 0), ((0, 0), 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_householder_product_matches_torch(shape, k, dtype):
    a = rand(shape, dtype, seed=2)
    tau = rand(shape[:-2] + (k,), dtype, seed=3)
    Q = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau))
    Qp = pt.linalg.householder_product(pt.tensor(a), pt.tensor(tau))
    assert tuple(Q.shape) == tuple(Qp.shape)
    np.testing.assert_allclose(Q.numpy(), Qp.numpy(), atol=TOL[dtype] * 10, rtol=TOL[dtype] * 10)


def test_householder_product_rebuilds_q_of_geqrf():
    a = rand((5, 3), seed=6)
    reflectors, tau = pt.geqrf(pt.tensor(a))
    Q = torch.linalg.householder_product(torch.tensor(reflectors.numpy()), torch.tensor(tau.numpy()))
    np.testing.assert_allclose(Q.numpy(), pt.linalg.qr(pt.tensor(a)).Q.numpy(), atol=1e-10)


ERRORS = [
    ("polar", lambda lib: (lib.randn(3, 4),)),
    ("polar", lambda lib: (lib.randn(3),)),
    ("polar", lambda lib: (lib.zeros(3, 3, dtype=lib.int64),)),
    ("matrix_sqrth", lambda lib: (lib.randn(3, 4),)),
    ("matrix_sqrth", lambda lib: (lib.zeros(3, 3, dtype=lib.int64),)),
    ("householder_product", lambda lib: (lib.randn(3, 4), lib.randn(2))),
    ("householder_product", lambda lib: (lib.randn(4, 3), lib.randn(4))),
    ("householder_product", lambda lib: (lib.randn(2, 4, 3), lib.randn(3, 2))),
    ("householder_product", lambda lib: (lib.randn(4, 3), lib.randn(2, dtype=lib.float64))),
    ("householder_product", lambda lib: (lib.randn(4), lib.randn(2))),
]


@pytest.mark.parametrize("name,args", ERRORS)
def test_errors_match_torch(name, args):
    with pytest.raises(Exception) as theirs:
        getattr(pt.linalg, name)(*args(pt))
    with pytest.raises(type(theirs.value)) as ours:
        getattr(torch.linalg, name)(*args(torch))
    assert str(ours.value) == str(theirs.value)


FUNCTIONS = {
    "polar_U": (lambda lib, a: lib.linalg.polar(a)[0], lambda: rand((4, 3), seed=8)),
    "polar_H": (lambda lib, a: lib.linalg.polar(a)[1], lambda: rand((2, 3, 3), seed=9)),
    "sqrth": (lambda lib, a: lib.linalg.matrix_sqrth(a @ a.mT + 3 * lib.eye(3, dtype=a.dtype)), lambda: rand((2, 3, 3), seed=10)),
    "householder": (lambda lib, a: lib.linalg.householder_product(a[..., :3], a[..., 3, :3]), lambda: rand((2, 4, 4), seed=11)),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradcheck(name):
    fn, make = FUNCTIONS[name]
    x = torch.tensor(make(), requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: fn(torch, a), (x,))


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradients_match_torch(name):
    fn, make = FUNCTIONS[name]
    a = make()
    w = np.random.RandomState(1).randn(*fn(pt, pt.tensor(a)).shape)
    ours = torch.tensor(a, requires_grad=True)
    theirs = pt.tensor(a, requires_grad=True)
    (fn(torch, ours) * torch.tensor(w)).sum().backward()
    (fn(pt, theirs) * pt.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-8, rtol=1e-8)


def test_sqrth_gradient_with_repeated_eigenvalues_is_finite_like_torch():
    ours = torch.tensor(4 * np.eye(3), requires_grad=True)
    theirs = pt.tensor(4 * np.eye(3), requires_grad=True)
    torch.linalg.matrix_sqrth(ours).sum().backward()
    pt.linalg.matrix_sqrth(theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-10)

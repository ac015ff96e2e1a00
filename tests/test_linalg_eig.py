"""torch.linalg.eig and eigvals against PyTorch: complex results for real and complex input,
batches, layouts, errors and gradients. The order of eigenvalues and the phase of each
eigenvector are not specified, so values are compared after sorting, eigenvectors by
A V = V diag(L) and by |<v, v_torch>| = 1, and gradients on phase-free functions."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}
REAL_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64", "complex128": "complex128"}


def matrices(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    a = rng.randn(*shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.randn(*shape)
    return a.astype(np.dtype(dtype))


def both(a):
    return torch.tensor(a), pt.tensor(a)


def sort_values(vals, like=None):
    """Eigenvalues in a canonical order per batch entry: by (real, imag) on their own, or
    each paired with the nearest unused value of ``like`` (robust to rounding in ties)."""
    v = np.asarray(vals)
    if v.size == 0:
        return v
    if like is None:
        return np.take_along_axis(v, np.lexsort((v.imag, v.real), axis=-1), axis=-1)
    ref = sort_values(like)
    out = np.empty_like(ref)
    flat_v, flat_r, flat_o = v.reshape(-1, v.shape[-1]), ref.reshape(-1, v.shape[-1]), out.reshape(-1, v.shape[-1])
    for row, (vs, rs) in enumerate(zip(flat_v, flat_r)):
        free = list(vs)
        for j, r in enumerate(rs):
            k = int(np.argmin([abs(x - r) for x in free]))
            flat_o[row, j] = free.pop(k)
    return out


SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (8, 8), (2, 3, 3), (2, 1, 4, 4), (0, 0), (3, 0, 0)]
DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigenvalues_match_torch(shape, dtype):
    a = matrices(shape, dtype)
    ours, theirs = both(a)
    L, V = torch.linalg.eig(ours)
    Lp, Vp = pt.linalg.eig(theirs)
    assert str(L.dtype) == str(Lp.dtype).replace("torch.", "ferrotorch.") or str(L.dtype).endswith(REAL_OF[dtype])
    assert tuple(L.shape) == tuple(Lp.shape) and tuple(V.shape) == tuple(Vp.shape)
    tol = TOL[dtype] * max(1, shape[-1])
    np.testing.assert_allclose(sort_values(L.numpy(), Lp.numpy()), sort_values(Lp.numpy()), atol=tol, rtol=tol)
    np.testing.assert_allclose(torch.linalg.eigvals(ours).numpy(), L.numpy(), atol=tol, rtol=tol)
    # A V = V diag(L), columns of unit norm.
    Vn, Ln = V.numpy(), L.numpy()
    np.testing.assert_allclose(a @ Vn, Vn * Ln[..., None, :], atol=tol * 10, rtol=0)
    if Vn.size:
        np.testing.assert_allclose(np.linalg.norm(Vn, axis=-2), 1.0, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigenvectors_match_torch_up_to_phase(dtype):
    # Distinct eigenvalues, so each eigenvector is unique up to a phase.
    a = matrices((4, 4), dtype, seed=3)
    L, V = torch.linalg.eig(torch.tensor(a))
    Lp, Vp = pt.linalg.eig(pt.tensor(a))
    Ln, Vn, Lpn, Vpn = L.numpy(), V.numpy(), Lp.numpy(), Vp.numpy()
    for j in range(4):
        k = int(np.argmin(np.abs(Lpn - Ln[j])))
        overlap = abs(np.vdot(Vpn[:, k], Vn[:, j]))
        assert abs(overlap - 1) < TOL[dtype] * 10


def test_layouts_transposed_sliced_and_expanded():
    a = matrices((6, 6), "float64", seed=5)
    base = torch.tensor(a)
    for ours, ref in [
        (base.t(), a.T),
        (base[::2, ::2], a[::2, ::2]),
        (base[:3, :3].unsqueeze(0).expand(2, 3, 3), np.broadcast_to(a[:3, :3], (2, 3, 3))),
    ]:
        assert not ours.is_contiguous()
        Lp = pt.linalg.eigvals(pt.tensor(np.ascontiguousarray(ref)))
        np.testing.assert_allclose(sort_values(torch.linalg.eigvals(ours).numpy(), Lp.numpy()), sort_values(Lp.numpy()), atol=1e-10)


def test_rotation_has_conjugate_pair_and_real_matrix_real_values():
    L = torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))
    assert L.dtype == torch.complex64
    np.testing.assert_allclose(sort_values(L.numpy()), [-1j, 1j], atol=1e-6)
    L = torch.linalg.eigvals(torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64))
    np.testing.assert_allclose(np.sort(L.numpy().real), [(5 - 5**0.5) / 2, (5 + 5**0.5) / 2], atol=1e-12)
    np.testing.assert_allclose(L.numpy().imag, 0, atol=1e-12)


def test_named_tuple_fields():
    out = torch.linalg.eig(torch.eye(3))
    assert out.eigenvalues is out[0] and out.eigenvectors is out[1]


SHAPE_AND_DTYPE_ERRORS = [
    lambda lib: lib.zeros(2, 3),
    lambda lib: lib.zeros(3),
    lambda lib: lib.zeros(3, 3, dtype=lib.int64),
]
NON_FINITE = [
    lambda lib: lib.tensor([[1.0, float("nan")], [0.0, 1.0]]),
    lambda lib: lib.tensor([[1.0, float("inf")], [0.0, 1.0]]),
]


@pytest.mark.parametrize("make", SHAPE_AND_DTYPE_ERRORS + NON_FINITE)
def test_eig_errors_match_torch(make):
    with pytest.raises(Exception) as theirs:
        pt.linalg.eig(make(pt))
    with pytest.raises(type(theirs.value)) as ours:
        torch.linalg.eig(make(torch))
    assert str(ours.value).split(": ", 1)[-1] == str(theirs.value).split(": ", 1)[-1]


@pytest.mark.parametrize("make", SHAPE_AND_DTYPE_ERRORS)
def test_eigvals_errors_match_torch(make):
    with pytest.raises(Exception) as theirs:
        pt.linalg.eigvals(make(pt))
    with pytest.raises(type(theirs.value)):
        torch.linalg.eigvals(make(torch))


@pytest.mark.parametrize("make", NON_FINITE)
def test_eigvals_of_non_finite_input_raises(make):
    # PyTorch 2.15's CPU eigvals does not check (MKL's gebal rejects NaN and the process can
    # crash); ferrotorch refuses the input as eig does.
    with pytest.raises(RuntimeError, match="infs or NaNs"):
        torch.linalg.eigvals(make(torch))


PHASE_FREE = {
    "eigvals": lambda lib, A: lib.linalg.eigvals(A),
    "values": lambda lib, A: lib.linalg.eig(A)[0],
    "abs_vectors": lambda lib, A: lib.linalg.eig(A)[1].abs(),
    "both": lambda lib, A: lib.linalg.eig(A)[0].sum() * lib.linalg.eig(A)[1].abs().sum(),
    # V diag(L) V^H: each column's phase cancels against its conjugate.
    "reconstruction": lambda lib, A: (lambda L, V: (V * L.unsqueeze(-2)) @ V.mH)(*lib.linalg.eig(A)),
}


@pytest.mark.parametrize("name", ["eigvals", "values", "abs_vectors", "both"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck(name, dtype):
    fn = PHASE_FREE[name]
    A = torch.tensor(matrices((2, 3, 3), dtype, seed=7), requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: fn(torch, x), (A,))


@pytest.mark.parametrize("name", ["eigvals", "values", "abs_vectors", "both", "reconstruction"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_gradients_match_torch(name, dtype):
    fn = PHASE_FREE[name]
    a = matrices((3, 3), dtype, seed=11)
    ours = torch.tensor(a, requires_grad=True)
    theirs = pt.tensor(a, requires_grad=True)
    fn(torch, ours).abs().sum().backward()
    fn(pt, theirs).abs().sum().backward()
    tol = 1e-3 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=tol, rtol=tol)


def test_loss_depending_on_eigenvector_phase_is_refused_like_torch():
    a = matrices((3, 3), "float64", seed=2)
    with pytest.raises(RuntimeError, match="ill-defined"):
        x = pt.tensor(a, requires_grad=True)
        pt.linalg.eig(x)[1].sum().real.backward()
    x = torch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="ill-defined"):
        torch.linalg.eig(x)[1].sum().real.backward()


def test_no_graph_without_requires_grad_or_under_no_grad():
    A = torch.randn(3, 3, requires_grad=True)
    with torch.no_grad():
        assert torch.linalg.eig(A)[0].grad_fn is None
    assert torch.linalg.eig(torch.randn(3, 3))[0].requires_grad is False

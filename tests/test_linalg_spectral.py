"""torch.linalg.qr, eigh, eigvalsh, svd and svdvals against PyTorch. Where PyTorch's outputs
are unique only up to signs (eigenvectors, singular vectors), both sides are brought to one
sign convention before comparing, and reconstructions are checked; gradients are checked on
functions that do not depend on those signs."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_cases import TOL, Arg, Case, dense, general, leaves, numpy_of, raises_like_torch, run

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

G, D = general, dense


def sym(L, X):
    """A symmetric matrix from any X, so perturbations in gradcheck stay symmetric."""
    return X + X.transpose(-2, -1)


def column_signs(U):
    """+-1 per column of U (numpy): the sign of each column's largest entry."""
    idx = np.abs(U).argmax(axis=-2)[..., None, :]
    s = np.sign(np.take_along_axis(U, idx, axis=-2))
    return np.where(s == 0, 1.0, s)


def same_up_to_signs(ours, theirs, tol, kind):
    """Compare decompositions after fixing the signs of vectors (columns of U / V, rows of Vh)."""
    o = [numpy_of(t) for t in ours]
    t = [numpy_of(x) for x in theirs]
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    if kind == "eigh":
        np.testing.assert_allclose(o[0], t[0], **tol)
        np.testing.assert_allclose(o[1] * column_signs(o[1]), t[1] * column_signs(t[1]), **tol)
    elif kind == "svd":
        U, S, Vh = o
        k = S.shape[-1]
        np.testing.assert_allclose(S, t[1], **tol)
        so, st = column_signs(U[..., :k]), column_signs(t[0][..., :k])
        np.testing.assert_allclose(U[..., :k] * so, t[0][..., :k] * st, **tol)
        np.testing.assert_allclose(Vh[..., :k, :] * np.swapaxes(so, -1, -2), t[2][..., :k, :] * np.swapaxes(st, -1, -2), **tol)
        # The extra columns of a full U (rows of Vh) are any orthonormal completion.
        for M in (U, np.swapaxes(Vh, -1, -2)):
            np.testing.assert_allclose(np.swapaxes(M, -1, -2) @ M, np.broadcast_to(np.eye(M.shape[-1]), M.shape[:-2] + (M.shape[-1],) * 2), atol=tol["atol"] * 50)
    elif kind == "qr":
        Q, R = o
        if Q.size and R.size:
            k = min(R.shape[-2], R.shape[-1])
            do = np.sign(np.diagonal(R[..., :k, :k], axis1=-2, axis2=-1))[..., None, :]
            dt = np.sign(np.diagonal(t[1][..., :k, :k], axis1=-2, axis2=-1))[..., None, :]
            np.testing.assert_allclose(Q[..., :k] * do, t[0][..., :k] * dt, **tol)
            np.testing.assert_allclose(R[..., :k, :] * np.swapaxes(do, -1, -2), t[1][..., :k, :] * np.swapaxes(dt, -1, -2), **tol)
        else:
            np.testing.assert_allclose(np.abs(R), np.abs(t[1]), **tol)


def eigh_fixed(L, A, **kw):
    """eigh with each eigenvector's sign fixed by its first entry (differentiable)."""
    w, V = L.linalg.eigh(A, **kw)
    return w, V * V[..., :1, :].sign()


def svd_fixed(L, A, full_matrices=True):
    U, S, Vh = L.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    s = U[..., :1, :].sign()
    return U * s, S, Vh * s.transpose(-2, -1)


QR = [
    Case("qr_square", lambda L, A: L.linalg.qr(A), [Arg(D, (4, 4))]),
    Case("qr_tall", lambda L, A: L.linalg.qr(A), [Arg(D, (5, 3))]),
    Case("qr_wide", lambda L, A: L.linalg.qr(A), [Arg(D, (3, 5))]),
    Case("qr_batched_transposed", lambda L, A: L.linalg.qr(A), [Arg(D, (2, 3, 4, 3), True)]),
    Case("qr_complete_wide", lambda L, A: L.linalg.qr(A, mode="complete"), [Arg(D, (2, 3, 4))]),
    Case("qr_complete_square", lambda L, A: L.linalg.qr(A, mode="complete"), [Arg(D, (3, 3))]),
    Case("qr_complete_tall", lambda L, A: L.linalg.qr(A, mode="complete"), [Arg(D, (5, 2))], grad=False),
    Case("qr_r", lambda L, A: L.linalg.qr(A, mode="r"), [Arg(D, (2, 4, 3))], grad=False),
    Case("qr_zero_batch", lambda L, A: L.linalg.qr(A), [Arg(D, (0, 3, 2))], grad=False),
    Case("qr_large", lambda L, A: L.linalg.qr(A), [Arg(D, (80, 50))], grad=False),
]
EIGH = [
    Case("eigh", lambda L, X: eigh_fixed(L, sym(L, X)), [Arg(D, (4, 4))]),
    Case("eigh_upper", lambda L, X: eigh_fixed(L, sym(L, X), UPLO="U"), [Arg(D, (2, 3, 3))]),
    Case("eigh_reads_lower", lambda L, A: eigh_fixed(L, A), [Arg(D, (3, 4, 4))], grad=False),
    Case("eigh_reads_upper", lambda L, A: eigh_fixed(L, A, UPLO="U"), [Arg(D, (3, 4, 4), True)], grad=False),
    Case("eigh_transposed", lambda L, X: eigh_fixed(L, sym(L, X)), [Arg(D, (2, 5, 5), True)]),
    Case("eigh_large", lambda L, X: eigh_fixed(L, sym(L, X)), [Arg(D, (60, 60))], grad=False),
    Case("eigh_zero_batch", lambda L, A: L.linalg.eigh(A), [Arg(D, (0, 3, 3))], grad=False),
]
EIGVALSH = [
    Case("eigvalsh", lambda L, X: L.linalg.eigvalsh(sym(L, X)), [Arg(D, (4, 4))]),
    Case("eigvalsh_upper_batched", lambda L, A: L.linalg.eigvalsh(A, UPLO="U"), [Arg(D, (2, 3, 3))], grad=False),
    Case("eigvalsh_grad_upper", lambda L, X: L.linalg.eigvalsh(sym(L, X), UPLO="U"), [Arg(D, (2, 3, 3), True)]),
]
SVD = [
    Case("svd_square", lambda L, A: svd_fixed(L, A), [Arg(D, (4, 4))]),
    Case("svd_tall_full", lambda L, A: svd_fixed(L, A), [Arg(D, (5, 3))]),
    Case("svd_wide_full", lambda L, A: svd_fixed(L, A), [Arg(D, (2, 3, 5))]),
    Case("svd_tall_reduced", lambda L, A: svd_fixed(L, A, full_matrices=False), [Arg(D, (2, 5, 3), True)]),
    Case("svd_wide_reduced", lambda L, A: svd_fixed(L, A, full_matrices=False), [Arg(D, (3, 5))]),
    Case("svd_large", lambda L, A: svd_fixed(L, A, full_matrices=False), [Arg(D, (70, 40))], grad=False),
]
SVD_RAW = [
    Case("svd_full_raw", lambda L, A: L.linalg.svd(A), [Arg(D, (2, 5, 3))], grad=False),
    Case("svd_wide_full_raw", lambda L, A: L.linalg.svd(A), [Arg(D, (3, 5), True)], grad=False),
    Case("svd_reduced_raw", lambda L, A: L.linalg.svd(A, full_matrices=False), [Arg(D, (4, 4))], grad=False),
    Case("svd_zero_batch", lambda L, A: L.linalg.svd(A), [Arg(D, (0, 3, 2))], grad=False),
    Case("torch_svd", lambda L, A: (lambda r: (r[0], r[1], r[2].transpose(-2, -1)))(L.svd(A)), [Arg(D, (2, 4, 3))], grad=False),
    Case("torch_svd_some_false", lambda L, A: (lambda r: (r[0], r[1], r[2].transpose(-2, -1)))(A.svd(some=False)), [Arg(D, (3, 5))], grad=False),
]
SVDVALS = [
    Case("svdvals", lambda L, A: L.linalg.svdvals(A), [Arg(D, (4, 3))]),
    Case("svdvals_batched_transposed", lambda L, A: L.linalg.svdvals(A), [Arg(D, (2, 3, 5), True)]),
    Case("svdvals_zero_batch", lambda L, A: L.linalg.svdvals(A), [Arg(D, (0, 3, 2))], grad=False),
    Case("torch_svd_no_uv", lambda L, A: L.svd(A, compute_uv=False), [Arg(D, (2, 4, 3))], grad=False),
]

KINDS = [(c, "qr") for c in QR] + [(c, "eigh") for c in EIGH] + [(c, "svd") for c in SVD + SVD_RAW]
EXACT = EIGVALSH + SVDVALS
GRAD_TOL = {"float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-9)}
GRAD_CASES = [c for c in QR + EIGH + EIGVALSH + SVD + SVDVALS if c.grad]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case,kind", KINDS, ids=[c.name for c, _ in KINDS])
def test_decompositions_match_torch_up_to_signs(case, kind, dtype):
    ours = run(torch, case, leaves(torch, case, dtype))
    theirs = run(pt, case, leaves(pt, case, dtype))
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=2e-3, atol=2e-4)
    same_up_to_signs(list(ours), list(theirs), tol, kind)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", EXACT, ids=str)
def test_values_match_torch(case, dtype):
    ours = run(torch, case, leaves(torch, case, dtype))
    theirs = run(pt, case, leaves(pt, case, dtype))
    for a, b in zip(ours if isinstance(ours, tuple) else [ours], theirs if isinstance(theirs, tuple) else [theirs]):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(numpy_of(a), numpy_of(b), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,mode", [((4, 4), "reduced"), ((2, 6, 3), "reduced"), ((3, 6), "complete"), ((6, 3), "complete")])
def test_qr_reconstructs_with_orthonormal_q(shape, mode, dtype):
    A = torch.tensor(dense(np.random.default_rng(5), shape).tolist(), dtype=getattr(torch, dtype))
    Q, R = torch.linalg.qr(A, mode=mode)
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(numpy_of(Q @ R), numpy_of(A), **tol)
    np.testing.assert_allclose(numpy_of(Q.transpose(-2, -1) @ Q), np.broadcast_to(np.eye(Q.shape[-1]), tuple(Q.shape[:-2]) + (Q.shape[-1],) * 2), **tol)
    assert np.allclose(np.tril(numpy_of(R), -1), 0)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradcheck(case):
    xs = leaves(torch, case, "float64", requires_grad=True)
    assert torch.autograd.gradcheck(lambda *a: run(torch, case, a), xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradients_match_torch(case, dtype):
    """The same upstream gradients give PyTorch's input gradients (symmetric for eigh)."""
    grads = []
    for lib in (torch, pt):
        xs = leaves(lib, case, dtype, requires_grad=True)
        out = run(lib, case, xs)
        outs = list(out) if isinstance(out, tuple) else [out]
        rng = np.random.default_rng(1)
        seeds = [lib.tensor(rng.uniform(-1, 1, tuple(o.shape)).tolist(), dtype=getattr(lib, dtype)) for o in outs]
        loss = sum((o * s).sum() for o, s in zip(outs, seeds))
        grads.append([np.array(g.tolist()) for g in lib.autograd.grad(loss, xs)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, **GRAD_TOL[dtype], err_msg=case.name)


def test_gradients_of_unused_outputs_ignore_repeated_values():
    """Only eigenvalues (singular values) used: no NaN from repeated ones, as in PyTorch."""
    for lib in (torch, pt):
        A = lib.eye(3, dtype=lib.float64, requires_grad=True)
        lib.linalg.eigh(A).eigenvalues.sum().backward()
        assert np.allclose(np.array(A.grad.tolist()), np.eye(3))
        B = lib.eye(3, dtype=lib.float64, requires_grad=True)
        lib.linalg.svd(B).S.sum().backward()
        assert np.allclose(np.array(B.grad.tolist()), np.eye(3))


def test_second_derivatives():
    rng = np.random.default_rng(2)
    x = torch.tensor(dense(rng, (3, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    a = torch.tensor(dense(rng, (4, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x: torch.linalg.eigvalsh(sym(torch, x)), (x,))
    assert torch.autograd.gradgradcheck(lambda a: torch.linalg.qr(a), (a,))
    assert torch.autograd.gradgradcheck(lambda a: torch.linalg.svdvals(a), (a,))


def test_backward_errors_match_torch():
    for mode, shape in (("r", (3, 3)), ("complete", (4, 2))):
        messages = []
        for lib in (torch, pt):
            A = lib.ones(*shape, dtype=lib.float64).triu().requires_grad_()
            Q, R = lib.linalg.qr(A + lib.eye(*shape, dtype=lib.float64), mode=mode)
            with pytest.raises(RuntimeError) as e:
                R.sum().backward()
            messages.append(str(e.value))
        assert messages[0] == messages[1]


def _t(L, *shape, dtype="float32"):
    return L.ones(*shape, dtype=getattr(L, dtype))


ERRORS = [
    lambda L: L.linalg.qr(_t(L, 3)),
    lambda L: L.linalg.qr(_t(L, 3, 3), mode="x"),
    lambda L: L.linalg.qr(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.qr(_t(L, 3, 3, dtype="float16")),
    lambda L: L.linalg.eigh(_t(L, 3, 3), UPLO="X"),
    lambda L: L.linalg.eigvalsh(_t(L, 3, 3), UPLO="x"),
    lambda L: L.linalg.eigh(_t(L, 2, 3)),
    lambda L: L.linalg.eigh(_t(L, 3)),
    lambda L: L.linalg.eigh(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.eigvalsh(_t(L, 2, 3)),
    lambda L: L.linalg.svd(_t(L, 3)),
    lambda L: L.linalg.svd(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.svdvals(_t(L, 3, 3, dtype="int64")),
    lambda L: L.linalg.svdvals(_t(L, 3)),
    lambda L: L.linalg.svd(_t(L, 3, 3), driver="gesvd"),
    lambda L: L.svd(_t(L, 3)),
    lambda L: L.linalg.svd(L.full((3, 3), float("nan"))),
    lambda L: L.linalg.eig(_t(L, 3)),
    lambda L: L.linalg.eigvals(_t(L, 2, 3)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_match_torch(fn):
    raises_like_torch(fn)


def test_eigh_of_non_finite_input_is_a_linalg_error():
    with pytest.raises(torch.linalg.LinAlgError, match="linalg.eigh: The algorithm failed to converge"):
        torch.linalg.eigh(torch.full((3, 3), float("nan")))


def test_named_tuples():
    A = torch.eye(3)
    assert torch.linalg.qr(A)._fields == ("Q", "R")
    assert torch.linalg.eigh(A)._fields == ("eigenvalues", "eigenvectors")
    assert torch.linalg.svd(A)._fields == ("U", "S", "Vh")
    assert torch.svd(A)._fields == ("U", "S", "V")
    assert type(torch.linalg.svd(A)).__name__ == "linalg_svd"

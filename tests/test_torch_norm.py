"""torch.norm and Tensor.norm against PyTorch over every kind of ``p`` (numbers, None, 'fro',
'nuc', unknown strings) and ``dim`` (None, an int, pairs, triples, repeats), dtypes, layouts
and zero sizes; the deprecated nuclear_norm / frobenius_norm; float64 gradchecks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch

PS = [None, "fro", "nuc", 2, 1, math.inf, -math.inf, 0, -1, 3.5, "abc"]
DIMS = [None, 0, -1, (0, 1), (1, 2), (-1, 0), (0, 1, 2), (0, 0)]
DTYPES = ["float64", "float32", "int64", "complex64"]


def operands(shape, dtype, seed=0):
    a = np.random.RandomState(seed).randn(*shape)
    if dtype == "int64":
        a = (a * 3).astype(np.int64)
    elif dtype == "complex64":
        a = (a + 1j * np.random.RandomState(seed + 1).randn(*shape)).astype(np.complex64)
    else:
        a = a.astype(dtype)
    return torch.tensor(a), pt.tensor(a)


def outcome(call):
    try:
        return call(), None
    except Exception as e:  # noqa: BLE001 - the class is compared with PyTorch's
        return None, e


def compare(ours_call, theirs_call, what):
    ours, ours_err = outcome(ours_call)
    theirs, theirs_err = outcome(theirs_call)
    if theirs_err is not None:
        assert ours_err is not None, f"{what}: PyTorch raised {theirs_err!r}, ferrotorch returned"
        assert type(ours_err) is type(theirs_err), f"{what}: {ours_err!r} vs {theirs_err!r}"
        return
    assert ours_err is None, f"{what}: ferrotorch raised {ours_err!r}"
    assert_close(ours, theirs, rtol=1e-4, atol=1e-4, what=what)


def complex_nuclear(p, dim, dtype):
    # The nuclear and spectral norms need complex singular values, which have no kernel yet.
    return dtype == "complex64" and p == "nuc" and dim in ((0, 1), (1, 2), (-1, 0))


@pytest.mark.parametrize("p", PS, ids=str)
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_torch_norm_and_method_match_torch(p, dim, dtype, keepdim):
    if complex_nuclear(p, dim, dtype):
        pytest.skip("complex SVD is not implemented")
    x, y = operands((2, 3, 4), dtype)
    what = f"norm(p={p}, dim={dim}, {dtype}, keepdim={keepdim})"
    compare(lambda: torch.norm(x, p, dim, keepdim), lambda: pt.norm(y, p, dim, keepdim), what)
    compare(lambda: x.norm(p=p, dim=dim, keepdim=keepdim), lambda: y.norm(p=p, dim=dim, keepdim=keepdim), "Tensor." + what)


@pytest.mark.parametrize("shape", [(4, 3), (1, 1), (0, 3), (3, 0), (2, 0, 3), (5, 2)])
@pytest.mark.parametrize("p", ["nuc", "fro"])
def test_matrix_orders_on_matrices_and_zero_sizes(shape, p):
    x, y = operands(shape, "float64", 3)
    compare(lambda: torch.norm(x, p), lambda: pt.norm(y, p), f"{p} {shape}")
    compare(lambda: torch.norm(x, p, dim=(-1, -2), keepdim=True), lambda: pt.norm(y, p, dim=(-1, -2), keepdim=True), f"{p} {shape} dims")


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
def test_non_contiguous_inputs(layout):
    x, y = operands((4, 6), "float64", 4)
    if layout == "transposed":
        x, y = x.t(), y.t()
    elif layout == "sliced":
        x, y = x[::2, 1::2], y[::2, 1::2]
    else:
        x, y = x[:1].expand(3, 6), y[:1].expand(3, 6)
    for p in ["nuc", "fro", 2, None]:
        compare(lambda: x.norm(p), lambda: y.norm(p), f"{layout} {p}")
    compare(lambda: torch.norm(x.unsqueeze(0).expand(2, -1, -1), "nuc", (1, 2)), lambda: pt.norm(y.unsqueeze(0).expand(2, -1, -1), "nuc", (1, 2)), layout)


@pytest.mark.parametrize("p,dim", [("nuc", None), ("nuc", (0, 2)), ("fro", (0, 2)), ("fro", None), ("fro", 1), (3.0, (1, 2))])
def test_gradcheck_float64(p, dim):
    a = np.random.RandomState(5).randn(3, 2, 4) if dim is not None else np.random.RandomState(5).randn(3, 4)
    x = torch.tensor(a, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.norm(t, p, dim), (x,))
    assert torch.autograd.gradcheck(lambda t: t.norm(p, dim, keepdim=True), (x,))


def test_nuclear_gradient_matches_torch():
    a = np.random.RandomState(6).randn(2, 4, 3)
    x, y = torch.tensor(a, requires_grad=True), pt.tensor(a, requires_grad=True)
    torch.norm(x, "nuc", (1, 2)).sum().backward()
    pt.norm(y, "nuc", (1, 2)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
@pytest.mark.parametrize("p", ["nuc", "fro", 2])
def test_dtype_argument(dtype, p):
    x, y = operands((3, 3), "float64", 7)
    compare(lambda: torch.norm(x, p, dtype=getattr(torch, dtype)), lambda: pt.norm(y, p, dtype=getattr(pt, dtype)), f"{p} dtype={dtype}")
    x32, y32 = operands((3, 3), "float32", 7)
    compare(lambda: torch.norm(x32, p, dtype=torch.float64), lambda: pt.norm(y32, p, dtype=pt.float64), f"{p} float32 -> float64")


def test_out_argument():
    x, y = operands((3, 3), "float64", 8)
    out = torch.empty((), dtype=torch.float64)
    assert torch.norm(x, "nuc", out=out) is out
    np.testing.assert_allclose(out.numpy(), pt.norm(y, "nuc").numpy(), rtol=1e-12)


@pytest.mark.parametrize("dim,keepdim", [(None, False), ((0, 2), True), ((1, 2), False)])
def test_deprecated_nuclear_and_frobenius_norm(dim, keepdim):
    x, y = operands((2, 3, 4), "float64", 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuc_dim = dim if dim is not None else (-2, -1)
        compare(lambda: torch.nuclear_norm(x, nuc_dim, keepdim), lambda: pt.nuclear_norm(y, nuc_dim, keepdim), "nuclear_norm")
        if dim is None:
            compare(lambda: torch.nuclear_norm(x, keepdim=keepdim), lambda: pt.nuclear_norm(y, keepdim=keepdim), "nuclear_norm")
            compare(lambda: torch.frobenius_norm(x, (0, 1, 2)), lambda: pt.frobenius_norm(y, (0, 1, 2)), "frobenius_norm 3 dims")
        else:
            compare(lambda: torch.frobenius_norm(x, dim, keepdim), lambda: pt.frobenius_norm(y, dim, keepdim), "frobenius_norm")
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        torch.nuclear_norm(x)

"""torch.special.airy_ai against mpmath (where installed) and PyTorch: values across the
oscillating left half line, the turning region and the decaying right half line, the special
points (0, inf, NaN), dtypes and integer promotion, layouts, zero sizes, and no derivative
(PyTorch's result never requires grad)."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch
mpmath = pytest.importorskip("mpmath")


def points():
    rng = np.random.RandomState(0)
    special = [0.0, -0.0, 1e-300, -1e-300, 0.25, -0.25, 1.0, -1.0, 2.09, -2.09, 8.32, 9.75, 10.0, -10.0, -9.75, 20.0, -20.0, 100.0, 103.8]
    return np.concatenate([special, rng.uniform(-12, 12, 400), rng.uniform(-300, 0, 150), rng.uniform(0, 100, 100)])


def reference(x):
    mpmath.mp.dps = 40
    return np.array([float(mpmath.airyai(mpmath.mpf(float(v)))) for v in x])


def test_float64_is_accurate_against_mpmath():
    x = points()
    ours = torch.special.airy_ai(torch.tensor(x)).numpy()
    ref = reference(x)
    # Relative to the size of the function: its envelope on the left, itself on the right.
    scale = np.where(x < -1, 0.57 * np.maximum(np.abs(x), 1) ** -0.25, np.abs(ref))
    # The phase zeta = 2/3 |x|^1.5 is only known to its rounding, about 1e-16 zeta.
    tol = 4e-15 + 2e-16 * (2 / 3) * np.abs(np.minimum(x, 0)) ** 1.5 + 4e-16 * np.maximum(x, 0) ** 1.5
    err = np.abs(ours - ref) / np.maximum(scale, 1e-300)
    assert np.all(err <= tol), f"worst at x = {x[np.argmax(err / tol)]}: {err.max()}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_torch(dtype):
    x = points().astype(dtype)
    ours = torch.special.airy_ai(torch.tensor(x))
    theirs = pt.special.airy_ai(pt.tensor(x))
    assert ours.dtype == getattr(torch, dtype)
    # PyTorch's kernel is off by up to 1.3e-6 near x = -2.2 (float64) and 4e-5 in float32, where
    # ours is within 1e-13 of mpmath; above x = 103.892 it returns 0 for the denormal values.
    rtol, atol = (1e-3, 1e-4) if dtype == "float32" else (1e-9, 2e-6)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(dtype):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e10, 1e30], dtype=dtype)
    ours = torch.special.airy_ai(torch.tensor(x)).numpy()
    theirs = pt.special.airy_ai(pt.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours[~np.isnan(ours)], theirs[~np.isnan(theirs)], rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
def test_integers_and_bools_compute_in_float32(dtype):
    x = np.array([0, 1, 2, 1, 0]).astype(dtype)
    ours = torch.special.airy_ai(torch.tensor(x))
    theirs = pt.special.airy_ai(pt.tensor(x))
    assert ours.dtype == torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128"])
def test_unsupported_dtypes_raise_as_torch(dtype):
    with pytest.raises(NotImplementedError) as theirs:
        pt.special.airy_ai(pt.zeros(2, dtype=getattr(pt, dtype)))
    with pytest.raises(NotImplementedError) as ours:
        torch.special.airy_ai(torch.zeros(2, dtype=getattr(torch, dtype)))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("layout", ["0-d", "zero-size", "transposed", "sliced", "expanded", "batched"])
def test_layouts(layout):
    a = np.random.RandomState(1).uniform(-15, 15, (4, 6))
    t, p = torch.tensor(a), pt.tensor(a)
    pick = {
        "0-d": lambda m: m[1, 2],
        "zero-size": lambda m: m[:0],
        "transposed": lambda m: m.t(),
        "sliced": lambda m: m[::2, 1::3],
        "expanded": lambda m: m[:1].expand(3, 6),
        "batched": lambda m: m.reshape(2, 2, 6),
    }[layout]
    ours, theirs = torch.special.airy_ai(pick(t)), pt.special.airy_ai(pick(p))
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=2e-6)
    np.testing.assert_allclose(ours.numpy(), reference(pick(t).numpy().ravel()).reshape(tuple(ours.shape)), rtol=1e-12, atol=1e-13)


def test_no_derivative_as_in_torch():
    x = torch.tensor([-1.0, 0.5], dtype=torch.float64, requires_grad=True)
    y = torch.special.airy_ai(x)
    assert not y.requires_grad and y.grad_fn is None
    assert not pt.special.airy_ai(pt.tensor([-1.0, 0.5], dtype=pt.float64, requires_grad=True)).requires_grad

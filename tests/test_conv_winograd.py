"""conv2d's Winograd F(2x2, 3x3) path (3x3, stride 1, 16-256 channels; the filter gradient to 512)
and its input and filter gradients,
against PyTorch: every padding it takes (0, 1, 2, and unequal), odd output sizes (a partial
last tile), one image and several (both ways of spreading the work), float32 and float64,
with and without bias, and non-contiguous inputs. By default only the shapes where Winograd
measured faster take it; the whole module also runs in a subprocess with
FERROTORCH_CONV_WINOGRAD=all, where every case that fits does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ferrotorch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

TOL = {"float32": 2e-5, "float64": 1e-11}
CASES = [
    # (n, c, o, h, w, padding, dtype, bias)
    (2, 16, 16, 8, 8, 1, "float32", True),
    (3, 32, 24, 7, 9, 0, "float32", False),
    (1, 16, 32, 5, 5, 2, "float64", True),
    (4, 64, 64, 14, 14, 1, "float32", True),
    (2, 17, 19, 3, 2, 1, "float32", True),
    (5, 16, 16, 2, 2, 1, "float64", False),
    (2, 16, 16, 6, 6, (1, 2), "float32", True),
    (1, 256, 256, 8, 8, 1, "float32", True),
    (3, 20, 16, 11, 4, (2, 0), "float64", True),
    # Over 256 channels: the forward and input gradient on the column path, the filter
    # gradient still Winograd.
    (2, 300, 272, 4, 5, 1, "float32", True),
]


def _run(L, case, x, w, b, g, strided):
    n, c, o, h, wd, pad, dt, bias = case
    d = getattr(L, dt)
    if strided:
        # The same values read through a transposed layout.
        X = L.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2)), dtype=d).transpose(2, 3).requires_grad_()
    else:
        X = L.tensor(x, dtype=d, requires_grad=True)
    W = L.tensor(w, dtype=d, requires_grad=True)
    B = L.tensor(b, dtype=d, requires_grad=True) if bias else None
    y = L.nn.functional.conv2d(X, W, B, padding=pad)
    y.backward(L.tensor(g, dtype=d))
    out = [y, X.grad, W.grad] + ([B.grad] if bias else [])
    return [np.array(t.detach().tolist()) for t in out]


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_winograd_conv_matches_torch(case, strided: bool) -> None:
    n, c, o, h, wd, pad, dt, bias = case
    rng = np.random.default_rng(len(CASES) * 7 + c + o + h)
    x = rng.standard_normal((n, c, h, wd))
    w = rng.standard_normal((o, c, 3, 3)) * 0.2
    b = rng.standard_normal(o)
    ph, pw = (pad, pad) if isinstance(pad, int) else pad
    g = rng.standard_normal((n, o, h + 2 * ph - 2, wd + 2 * pw - 2))
    ours, theirs = _run(ferrotorch, case, x, w, b, g, strided), _run(pt, case, x, w, b, g, False)
    for a, t in zip(ours, theirs):
        assert a.shape == t.shape
        np.testing.assert_allclose(a, t, rtol=TOL[dt], atol=TOL[dt] * max(1.0, np.abs(t).max()))


def test_winograd_conv_input_grad_only() -> None:
    # Only the input needs a gradient: the backward stops after the Winograd input gradient.
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 16, 9, 9)), rng.standard_normal((24, 16, 3, 3))
    res = []
    for L in (ferrotorch, pt):
        X = L.tensor(x, requires_grad=True)
        L.nn.functional.conv2d(X, L.tensor(w), padding=1).square().sum().backward()
        res.append(np.array(X.grad.tolist()))
    np.testing.assert_allclose(res[0], res[1], rtol=2e-5, atol=2e-4)


def test_winograd_gradcheck_float64() -> None:
    rng = np.random.default_rng(4)
    x = ferrotorch.tensor(rng.standard_normal((1, 16, 4, 5)), dtype=ferrotorch.float64, requires_grad=True)
    w = ferrotorch.tensor(rng.standard_normal((16, 16, 3, 3)), dtype=ferrotorch.float64, requires_grad=True)
    assert ferrotorch.autograd.gradcheck(lambda a, b: ferrotorch.nn.functional.conv2d(a, b, padding=1), (x, w))


@pytest.mark.skipif(os.environ.get("FERROTORCH_CONV_WINOGRAD") == "all", reason="this is the subprocess")
def test_every_case_through_the_winograd_kernels() -> None:
    """The cases above again with the speed thresholds off, so that the small ones (one image,
    16 channels, a few tiles) run the Winograd kernels rather than the column path."""
    env = {**os.environ, "FERROTORCH_CONV_WINOGRAD": "all"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__]
    r = subprocess.run(cmd, env=env, cwd=Path(__file__).parent, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "skipped" in r.stdout

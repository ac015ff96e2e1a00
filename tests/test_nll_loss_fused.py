"""nll_loss / cross_entropy through the fused host loop (float32/float64) against PyTorch:
every reduction, class weights, ignore_index (some and all rows), spatial targets, a 1-D
input, uint8 targets, out-of-range targets, the gradient and its gradient (float64)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest

import ferrotorch as ft
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _run(L: Any, x: np.ndarray, t: np.ndarray, w: Optional[np.ndarray], reduction: str, ignore: int, fn: str) -> list:
    X = L.tensor(x, requires_grad=True)
    W = L.tensor(w) if w is not None else None
    T = L.tensor(t)
    out = getattr(L.nn.functional, fn)(X, T, weight=W, ignore_index=ignore, reduction=reduction)
    g = L.ones_like(out) * 0.7 if out.ndim else L.tensor(0.7, dtype=out.dtype)
    (gx,) = L.autograd.grad(out, X, g)
    return [out.detach().numpy(), gx.numpy()]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,)])
def test_fused_nll_matches_pytorch(dtype: str, reduction: str, weighted: bool, fn: str, shape: tuple) -> None:
    rng = np.random.default_rng(len(shape) * 10 + weighted)
    c = shape[0] if len(shape) == 1 else shape[1]
    x = rng.standard_normal(shape).astype(dtype)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = rng.integers(0, c, tshape).astype("int64")
    if t.ndim:
        t.flat[1] = 2  # an ignored target
    w = rng.uniform(0.5, 2.0, c).astype(dtype) if weighted else None
    tol = 1e-6 if dtype == "float32" else 1e-12
    for ours, theirs in zip(_run(ft, x, t, w, reduction, 2, fn), _run(pt, x, t, w, reduction, 2, fn)):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_every_target_ignored(reduction: str) -> None:
    x = np.arange(12, dtype="float32").reshape(4, 3)
    t = np.full(4, -100)
    ours, theirs = _run(ft, x, t, None, reduction, -100, "nll_loss"), _run(pt, x, t, None, reduction, -100, "nll_loss")
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)  # NaN mean, zero gradient


def test_uint8_targets_and_out_of_range() -> None:
    x = np.zeros((3, 4), dtype="float32")
    for L in (ft, pt):
        t = L.tensor([1, 3, 0], dtype=L.uint8)
        assert float(L.nn.functional.nll_loss(L.tensor(x), t, reduction="sum")) == 0.0
    for bad in (4, -1):
        for L in (ft, pt):
            with pytest.raises(IndexError, match="out of bounds"):
                L.nn.functional.nll_loss(L.tensor(x), L.tensor([0, bad, 1]))


def test_fused_nll_gradcheck_and_double_backward() -> None:
    x = ft.randn(5, 4, dtype=ft.float64, requires_grad=True)
    t = ft.tensor([0, 3, 1, -100, 2])
    w = ft.tensor([0.5, 1.0, 2.0, 1.5], dtype=ft.float64)
    for reduction in ("mean", "sum", "none"):
        def f(a: Any) -> Any:
            return ft.nn.functional.cross_entropy(a, t, weight=w, reduction=reduction)
        assert ft.autograd.gradcheck(f, (x,))
        assert ft.autograd.gradgradcheck(f, (x,))


def test_weight_requiring_grad_keeps_the_composition() -> None:
    x = ft.randn(4, 3, requires_grad=True)
    w = ft.ones(3, requires_grad=True)
    ft.nn.functional.nll_loss(x, ft.tensor([0, 1, 2, 1]), weight=w).backward()
    assert x.grad is not None

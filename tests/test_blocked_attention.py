"""Causal self-attention through the blocked (flash-style) path against PyTorch: values and
all three gradients, float32 and float64, odd block remainders, value width != query width,
an explicit scale, double backward, and the default thresholds on a real-length input."""

from __future__ import annotations

from typing import Any, Iterator, Tuple

import numpy as np
import pytest

import ferrotorch as ft
from ferrotorch.nn import _blocked_attention as blocked
from torch_oracle import needs_torch, pt


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Blocks of 4 queries from length 8 on, so small inputs take the blocked path."""
    monkeypatch.setattr(blocked, "BLOCK", 4)
    monkeypatch.setattr(blocked, "MIN_LENGTH", 8)
    yield


def _run(L: Any, arrays: Tuple[np.ndarray, ...], scale: Any) -> list:
    q, k, v, g = arrays
    Q, K, V = (L.tensor(a, requires_grad=True) for a in (q, k, v))
    o = L.nn.functional.scaled_dot_product_attention(Q, K, V, is_causal=True, scale=scale)
    (o * L.tensor(g)).sum().backward()
    return [o.detach().numpy(), Q.grad.numpy(), K.grad.numpy(), V.grad.numpy()]


SHAPES = [((2, 3, 10, 5), 5), ((1, 16, 3), 4), ((2, 1, 8, 2), 3), ((3, 12, 4), 6), ((1, 2, 9, 7), 7)]


@needs_torch
@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,ev", SHAPES)
@pytest.mark.parametrize("scale", [None, 0.3])
def test_blocked_causal_matches_pytorch(shape: Tuple[int, ...], ev: int, dtype: str, scale: Any) -> None:
    rng = np.random.default_rng(len(shape) * 10 + ev)
    arrays = (
        rng.standard_normal(shape).astype(dtype),
        rng.standard_normal(shape).astype(dtype),
        rng.standard_normal(shape[:-1] + (ev,)).astype(dtype),
        rng.standard_normal(shape[:-1] + (ev,)).astype(dtype),
    )
    assert blocked.usable(*(ft.tensor(a) for a in arrays[:3]), 0.0)
    tol = 1e-5 if dtype == "float32" else 1e-11
    for what, ours, theirs in zip(("output", "grad q", "grad k", "grad v"), _run(ft, arrays, scale), _run(pt, arrays, scale)):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=what)


@pytest.mark.usefixtures("small_blocks")
def test_blocked_causal_gradcheck_and_double_backward() -> None:
    q, k, v = (ft.randn(1, 2, 9, 3, dtype=ft.float64, requires_grad=True) for _ in range(3))

    def attend(a: Any, b: Any, c: Any) -> Any:
        return ft.nn.functional.scaled_dot_product_attention(a, b, c, is_causal=True)

    assert ft.autograd.gradcheck(attend, (q, k, v))
    assert ft.autograd.gradgradcheck(attend, (q, k, v))


@pytest.mark.usefixtures("small_blocks")
def test_blocked_path_not_taken_where_it_does_not_apply() -> None:
    q = ft.randn(1, 12, 4)
    assert not blocked.usable(q, q, q, 0.1)  # dropout
    assert not blocked.usable(q[:, :6], q[:, :6], q[:, :6], 0.0)  # shorter than MIN_LENGTH
    assert not blocked.usable(q, q[:, :10], q[:, :10], 0.0)  # L != S
    assert not blocked.usable(q.half(), q.half(), q.half(), 0.0)  # half: the dense path


@needs_torch
def test_default_thresholds_on_a_long_context() -> None:
    rng = np.random.default_rng(7)
    n = blocked.MIN_LENGTH + blocked.BLOCK // 2 + 3
    arrays = tuple(rng.standard_normal((1, n, 8)).astype("float32") for _ in range(4))
    assert blocked.usable(*(ft.tensor(a) for a in arrays[:3]), 0.0)
    for what, ours, theirs in zip(("output", "grad q", "grad k", "grad v"), _run(ft, arrays, None), _run(pt, arrays, None)):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-5, err_msg=what)

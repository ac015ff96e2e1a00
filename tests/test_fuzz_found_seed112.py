"""Regression rows for fuzz seeds 111-113 (issue #12): logcumsumexp as PyTorch's running scan
(a shift by the row maximum lost every term before a huge later one), float16/bfloat16 means
summed and divided in float32 (a half sum overflowed before the division), and float16
div(rounding_mode="trunc") rounding its quotient to float16 first where PyTorch's vectorized
kernel runs (not for one element or a one-element divisor, its scalar path). Each row runs
under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

import ferrotorch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

RTOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 2e-5, "float64": 1e-12}
INF, NAN = math.inf, math.nan
HUGE_LATER = [5.324934164434305e-44, -1.030710220336914, -24832886.0, -1.8413061821228096e-42, 38414208.0]

ROWS = {
    "logcumsumexp_huge_later_term": lambda L: tensor_of(L, HUGE_LATER).logcumsumexp(0),
    "logcumsumexp_huge_later_float64": lambda L: tensor_of(L, HUGE_LATER, "float64").logcumsumexp(0),
    "logcumsumexp_rows_dim0": lambda L: tensor_of(L, [[0.5, 1e30], [-3.0, 2.0], [1e30, -1e30]]).logcumsumexp(0),
    "logcumsumexp_minus_inf_then_values": lambda L: tensor_of(L, [-INF, -INF, 0.0, -INF, 2.0], "float64").logcumsumexp(0),
    "logcumsumexp_plus_inf": lambda L: tensor_of(L, [1.0, INF, -2.0, INF], "float64").logcumsumexp(0),
    "logcumsumexp_nan": lambda L: tensor_of(L, [1.0, NAN, 2.0], "float64").logcumsumexp(0),
    "logcumsumexp_half": lambda L: tensor_of(L, [60000.0, 1.0, -65504.0, 3.5], "float16").logcumsumexp(0),
    "logcumsumexp_bfloat16_transposed": lambda L: tensor_of(L, [[1.0, 2.0, 3.0], [3e38, -1.0, 0.5]], "bfloat16").t().logcumsumexp(1),
    "mean_half_sum_beyond_range": lambda L: L.full((50,), 60000.0, dtype=L.float16).mean(),
    "mean_half_dim": lambda L: L.full((5, 10), 60000.0, dtype=L.float16).mean(1),
    "mean_half_keepdim": lambda L: tensor_of(L, [[1.1, 2.2], [3.3, 0.7]], "float16").mean(0, keepdim=True),
    "mean_bfloat16": lambda L: tensor_of(L, [1.1, 2.2, 3.3, 0.7], "bfloat16").mean(),
    "margin_ranking_half_mean": lambda L: L.margin_ranking_loss(tensor_of(L, [2190.0, 20800.0], "float16"), tensor_of(L, [1.0, -2.0], "float16"), L.full((5, 5, 2), -3, dtype=L.int16), 0.5, 1),
    "trunc_div_half_vectorized": lambda L: L.div(L.full((5, 7), 1.755859375, dtype=L.float16), L.full((5, 7), 0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_two": lambda L: L.div(L.full((2,), 1.755859375, dtype=L.float16), L.full((2,), 0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_one_element": lambda L: L.div(L.full((1,), 1.755859375, dtype=L.float16), L.full((1,), 0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_0d": lambda L: L.div(L.tensor(1.755859375, dtype=L.float16), L.tensor(0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_scalar_divisor": lambda L: L.div(L.full((8,), 1.755859375, dtype=L.float16), L.tensor(0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_python_divisor": lambda L: L.div(L.full((8,), 1.755859375, dtype=L.float16), 0.58544921875, rounding_mode="trunc"),
    "trunc_div_half_scalar_dividend": lambda L: L.div(L.tensor(1.755859375, dtype=L.float16), L.full((8,), 0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_outer_broadcast": lambda L: L.div(L.full((8, 1), 1.755859375, dtype=L.float16), L.full((1, 8), 0.58544921875, dtype=L.float16), rounding_mode="trunc"),
    "trunc_div_half_strided": lambda L: L.div(L.full((16,), 1.755859375, dtype=L.float16)[::2], L.full((16,), 0.58544921875, dtype=L.float16)[::2], rounding_mode="trunc"),
    "floor_div_half_vectorized": lambda L: L.div(L.full((5, 7), 1.755859375, dtype=L.float16), L.full((5, 7), 0.58544921875, dtype=L.float16), rounding_mode="floor"),
    "mse_half_mean": lambda L: L.nn.functional.mse_loss(tensor_of(L, [200.0] * 8, "float16"), tensor_of(L, [-200.0] * 8, "float16")),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed112_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logcumsumexp_gradient_matches_pytorch(dtype: str) -> None:
    """PyTorch's backward (log-space sums of the positive and negative parts of g), through
    -inf inputs and a huge later term."""
    values = [[0.5, -2.0, 3.0, -INF, 1e3], [1.0, 4.0, -1.0, 0.0, -50.0]]
    weights = [[1.0, -2.0, 0.5, 3.0, -1.0], [0.25, 1.0, 2.0, -1.0, 1.0]]
    grads = []
    for L in (ferrotorch, pt):
        x = L.tensor(values, dtype=getattr(L, dtype), requires_grad=True)
        (x.logcumsumexp(1) * L.tensor(weights, dtype=getattr(L, dtype))).sum().backward()
        grads.append(np.array(x.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6 if dtype == "float32" else 1e-12)


def test_logcumsumexp_double_backward() -> None:
    x = ferrotorch.tensor([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], dtype=ferrotorch.float64, requires_grad=True)
    assert ferrotorch.autograd.gradcheck(lambda t: t.logcumsumexp(1), (x,))
    assert ferrotorch.autograd.gradgradcheck(lambda t: t.logcumsumexp(0), (x,))


def test_half_mean_gradient() -> None:
    for L in (ferrotorch, pt):
        x = L.full((4, 3), 2.0, dtype=L.float16, requires_grad=True)
        x.mean().backward()
        assert x.grad.dtype == L.float16
        assert np.allclose(np.array(x.grad.float().tolist()), 1 / 12, rtol=1e-3)

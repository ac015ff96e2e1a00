"""Regression rows for fuzz seed 116 (issue #12): complex add/sub with alpha is one
multiply-add (alpha * b's infinite parts are added part by part, not multiplied by 1 + 0i
again), and clamp with two bounds, one of them NaN, fills NaN before the other bound is
converted. Each row runs under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

import ferrotorch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

RTOL = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 2e-6, "float64": 1e-12, "complex64": 2e-6, "complex128": 1e-12}
INF, NAN = math.inf, math.nan
A = [1 + 2j, 3 - 1j, complex(INF, 1), complex(NAN, 0.5)]
B = [0.5 - 1j, -2 + 3j, 1j, 2 + 0j]


def _c(L, v, dtype="complex128"):
    return L.tensor(v, dtype=getattr(L, dtype))


def _in_place(L, op, alpha):
    x = _c(L, A)
    getattr(x, op)(_c(L, B), alpha=alpha)
    return x


ROWS = {
    "add_alpha_inf": lambda L: L.add(_c(L, A), _c(L, B), alpha=INF),
    "sub_alpha_inf": lambda L: L.sub(_c(L, A), _c(L, B), alpha=INF),
    "add_alpha_two": lambda L: L.add(_c(L, A, "complex64"), _c(L, B, "complex64"), alpha=2.0),
    "add_alpha_complex": lambda L: L.add(_c(L, A), _c(L, B), alpha=1 - 2j),
    "add_alpha_broadcast": lambda L: L.add(_c(L, A).reshape(2, 2).t(), _c(L, B)[:2], alpha=-1.5),
    "add_real_tensor_complex_other": lambda L: L.add(tensor_of(L, [2.0, -1.0], "float64"), _c(L, B[:2]), alpha=3),
    "add_in_place_alpha_inf": lambda L: _in_place(L, "add_", INF),
    "sub_in_place_alpha_complex": lambda L: _in_place(L, "sub_", 2 + 1j),
    "clamp_nan_min_huge_max_bfloat16": lambda L: L.clamp(tensor_of(L, [1.0, -2.0, 3.0], "bfloat16"), NAN, 1e300),
    "clamp_huge_min_nan_max_bfloat16": lambda L: L.clamp(tensor_of(L, [1.0, -2.0, 3.0], "bfloat16"), 1e300, NAN),
    "clamp_nan_min_int_input": lambda L: L.clamp(L.tensor([1, 2, 3]), NAN, 2.0),
    "clamp_nan_max_float64": lambda L: L.clamp(tensor_of(L, [1.0, 2.0], "float64"), 0.0, NAN),
    "clamp_nan_min_only": lambda L: L.clamp(tensor_of(L, [1.0, 2.0]), NAN),
    "clamp_huge_bound_raises": lambda L: L.clamp(tensor_of(L, [1.0, 2.0], "bfloat16"), 0.0, 1e300),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed116_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)


def test_complex_add_alpha_gradients() -> None:
    grads = []
    for L in (ferrotorch, pt):
        x = _c(L, A[:2]).requires_grad_()
        y = _c(L, B[:2]).requires_grad_()
        L.add(x, y, alpha=2 - 1j).abs().sum().backward()
        grads.append((np.array(x.grad.tolist()), np.array(y.grad.tolist())))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_clamp_nan_bound_gradient_is_zero() -> None:
    for L in (ferrotorch, pt):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        L.clamp(x, NAN, 1.0).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0]

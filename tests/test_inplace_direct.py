"""In-place arithmetic written straight into the destination (rust/core/src/ops/inplace_direct.rs)
and the general path it falls back to: every layout and operand kind against PyTorch, with
the version counter and autograd's refusals unchanged."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

OPS = ["add_", "sub_", "mul_", "div_"]


def _data(L: Any, shape: Any, dtype: str, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return L.tensor(rng.uniform(0.5, 2.0, shape).tolist(), dtype=getattr(L, dtype))


CASES: dict = {
    "same_shape": lambda L, d: (_data(L, (4, 5), d, 1), _data(L, (4, 5), d, 2)),
    "python_number": lambda L, d: (_data(L, (4, 5), d, 1), 1.75),
    "zero_dim_tensor": lambda L, d: (_data(L, (4, 5), d, 1), L.tensor(0.5, dtype=getattr(L, d))),
    "one_element_tensor": lambda L, d: (_data(L, (4, 5), d, 1), L.tensor([3.0], dtype=getattr(L, d))),
    "row_broadcast": lambda L, d: (_data(L, (4, 5), d, 1), _data(L, (5,), d, 3)),
    "transposed_destination": lambda L, d: (_data(L, (5, 4), d, 1).t(), _data(L, (4, 5), d, 2)),
    "transposed_operand": lambda L, d: (_data(L, (4, 5), d, 1), _data(L, (5, 4), d, 2).t()),
    "other_dtype_operand": lambda L, d: (_data(L, (4, 5), d, 1), _data(L, (4, 5), "float64" if d == "float32" else "float32", 2)),
    "sliced_destination": lambda L, d: (_data(L, (4, 10), d, 1)[:, ::2], _data(L, (4, 5), d, 2)),
    "large_parallel": lambda L, d: (_data(L, (300_001,), d, 1), _data(L, (300_001,), d, 2)),
    "large_number": lambda L, d: (_data(L, (300_001,), d, 1), -0.25),
    "empty": lambda L, d: (L.zeros(0, 3, dtype=getattr(L, d)), L.zeros(0, 3, dtype=getattr(L, d))),
    "zero_dim_destination": lambda L, d: (L.tensor(2.0, dtype=getattr(L, d)), L.tensor(3.0, dtype=getattr(L, d))),
}


def _run(make: Callable[[Any, str], Any], L: Any, op: str, dtype: str) -> Any:
    x, y = make(L, dtype)
    v0 = x._version
    r = getattr(x, op)(y)
    assert r is x
    assert x._version > v0
    return np.array(x.tolist())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_in_place_matches_pytorch(case: str, op: str, dtype: str) -> None:
    ours, theirs = _run(CASES[case], ferrotorch, op, dtype), _run(CASES[case], pt, op, dtype)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("op", OPS)
def test_operand_is_the_destination(op: str) -> None:
    for n in (7, 300_001):
        got = [np.array(getattr(x, op)(x).tolist()) for x in (_data(L, (n,), "float32", 4) for L in (ferrotorch, pt))]
        np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("op", OPS)
def test_operand_inside_the_destination_is_refused(op: str) -> None:
    """A one-element view into the destination, or a shifted slice of it, partly overlaps it:
    PyTorch refuses the write (RuntimeError); a strided view it cannot judge is let through."""
    for L in (ferrotorch, pt):
        x = _data(L, (6,), "float64", 5)
        with pytest.raises(RuntimeError, match="single memory location"):
            getattr(x, op)(x[2])
        with pytest.raises(RuntimeError, match="single memory location"):
            getattr(x[1:], op)(x[:-1])
    got = []
    for L in (ferrotorch, pt):
        x = _data(L, (8,), "float64", 5)
        getattr(x[:4], op)(x[::2])
        got.append(np.array(x.tolist()))
    np.testing.assert_array_equal(got[0], got[1])


def test_partially_overlapping_operand_matches_pytorch() -> None:
    outcomes = []
    for L in (ferrotorch, pt):
        x = _data(L, (8,), "float32", 6)
        try:
            x[1:].add_(x[:-1])
            outcomes.append(("ok", np.array(x.tolist())))
        except RuntimeError:
            outcomes.append(("raise", None))
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "ok":
        np.testing.assert_array_equal(outcomes[0][1], outcomes[1][1])


def test_leaf_under_no_grad_is_updated_and_keeps_requires_grad() -> None:
    for L in (ferrotorch, pt):
        p = L.ones(5, requires_grad=True)
        with L.no_grad():
            p.add_(L.full((5,), 0.5))
            p.mul_(2.0)
        assert p.requires_grad and p.grad_fn is None
        assert p.tolist() == [3.0] * 5


def test_leaf_with_grad_mode_still_refuses() -> None:
    p = ferrotorch.ones(5, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        p.add_(ferrotorch.ones(5))


def test_tracked_in_place_still_records_gradient() -> None:
    grads = []
    for L in (ferrotorch, pt):
        w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 1.0
        y.mul_(L.tensor([2.0, 3.0, 4.0]))
        y.add_(1.5)
        y.sum().backward()
        grads.append(w.grad.tolist())
    assert grads[0] == grads[1]


def test_saved_tensor_modified_in_place_is_detected() -> None:
    """The version counter still moves on the direct path: a tensor saved for backward and
    then changed in place makes backward raise."""
    w = ferrotorch.tensor([1.0, 2.0], requires_grad=True)
    x = ferrotorch.tensor([3.0, 4.0])
    y = (w * x).sum()
    x.add_(1.0)
    with pytest.raises(RuntimeError):
        y.backward()

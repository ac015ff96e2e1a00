"""allclose/isclose/equal, diag/trace/diff, addmm/addcmul/addcdiv, unique/bincount/median."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np


def test_closeness():
    a = torch.tensor([1.0, 2.0, float("nan")])
    b = torch.tensor([1.0 + 1e-7, 2.1, float("nan")])
    assert torch.isclose(a, b).tolist() == [True, False, False]
    assert torch.isclose(a, b, equal_nan=True).tolist()[2]
    assert torch.allclose(torch.ones(3), torch.ones(3) + 1e-9)
    assert not torch.allclose(torch.ones(3), torch.zeros(3))
    assert torch.equal(torch.arange(3), torch.arange(3)) and not torch.equal(torch.arange(3), torch.arange(4))


def test_diag_trace_diff():
    x = np.arange(9.0).reshape(3, 3)
    t = torch.tensor(x.tolist())
    np.testing.assert_array_equal(to_np(torch.diag(t)), np.diag(x))
    np.testing.assert_array_equal(to_np(torch.diag(t, 1)), np.diag(x, 1))
    np.testing.assert_array_equal(to_np(torch.diag(torch.tensor([1.0, 2.0]), -1)), np.diag([1.0, 2.0], -1))
    assert torch.trace(t).item() == 12.0
    np.testing.assert_array_equal(to_np(torch.diff(t, dim=0)), np.diff(x, axis=0))
    np.testing.assert_array_equal(to_np(torch.diff(torch.tensor([1, 4, 9, 16]), n=2)), np.diff([1, 4, 9, 16], n=2))


def test_fused_arithmetic_helpers():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    T = lambda v: torch.tensor(v.tolist(), dtype=torch.float64)  # noqa: E731
    np.testing.assert_allclose(to_np(torch.addmm(T(c), T(a), T(b), beta=0.5, alpha=2)), 0.5 * c + 2 * a @ b, rtol=1e-12)
    x = T(c)
    x.addcmul_(T(c), T(c), value=0.5)
    np.testing.assert_allclose(to_np(x), c + 0.5 * c * c, rtol=1e-12)
    np.testing.assert_allclose(to_np(torch.addcdiv(T(c), T(c), T(c) + 3, value=2)), c + 2 * c / (c + 3), rtol=1e-12)


def test_unique_bincount_median():
    t = torch.tensor([3, 1, 3, 2, 1, 3])
    u, inv, cnt = torch.unique(t, return_inverse=True, return_counts=True)
    assert u.tolist() == [1, 2, 3] and inv.tolist() == [2, 0, 2, 1, 0, 2] and cnt.tolist() == [2, 1, 3]
    assert torch.bincount(t).tolist() == [0, 2, 1, 3]
    assert torch.bincount(t, minlength=6).tolist() == [0, 2, 1, 3, 0, 0]
    assert torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0
    m = torch.tensor([[4.0, 1.0, 3.0], [0.0, 5.0, 2.0]]).median(1)
    assert m.values.tolist() == [3.0, 2.0] and m.indices.tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="bincount only supports"):
        torch.bincount(torch.tensor([-1]))


def test_format_and_round():
    assert f"{torch.tensor(3.14159):.2f}" == "3.14"
    assert round(torch.tensor([1.26]), 1).tolist()[0] == pytest.approx(1.3)

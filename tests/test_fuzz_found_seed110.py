"""Regression rows for fuzz seed 110 and the complex residue of seeds 100-109 (issue #12):
complex division times the reciprocal of the denominator (PyTorch's rounding), C's cpow rules
for zero and non-finite complex powers, logcumsumexp's scan from -inf, scatter_reduce's mean
of an empty index, negative-p norms of infinite values, and the order of argument checks in
kthvalue and nansum. Each row runs under ferrotorch and PyTorch and requires PyTorch's outcome
(complex results part by part)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

import ferrotorch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

RTOL = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-9, "complex64": 2e-5, "complex128": 1e-9}
INF, NAN = math.inf, math.nan
Z = -1.4325311 + 2.2525296j


def _c(L: Any, values: Any, dtype: str = "complex64") -> Any:
    return L.tensor(values, dtype=getattr(L, dtype))


ROWS = {
    # (3z) / 3 gives z back bit for bit in PyTorch's (a + b r) * (1 / den); a correctly rounded
    # division does not, and corrcoef of a constant variable is then 1, not 0/0.
    "div_by_three_exact": lambda L: (_c(L, [Z]) * 3) / 3 - _c(L, [Z]),
    "div_tensor_by_three": lambda L: (_c(L, [Z] * 9) * 3) / _c(L, [3 + 0j] * 9),
    "mean_of_constant": lambda L: _c(L, [Z]).expand(3).mean() - _c(L, [Z]),
    "corrcoef_constant_complex": lambda L: L.corrcoef(_c(L, [Z]).expand(3)),
    "div_complex128": lambda L: _c(L, [1e300 + 3j, 2 - 1e-300j, 5 + 7j], "complex128") / _c(L, [3 + 1e-300j, 7 + 3j, 1e-5 - 2e5j], "complex128"),
    "div_infinite_numerator": lambda L: _c(L, [complex(-INF, 2), complex(1, INF)]) / 1,
    # scatter_reduce "mean" divides by the counts (all 1) even for an empty index.
    "scatter_mean_empty_index": lambda L: _c(L, [[complex(-INF, 2), complex(1, INF), 0.5 + 1j]]).scatter_reduce(1, L.zeros(1, 0, dtype=L.int64), _c(L, [[1j, 1j, 1j]]), "mean"),
    "scatter_mean_empty_index_exclude_self": lambda L: _c(L, [complex(-INF, 2), 3j]).scatter_reduce(0, L.zeros(0, dtype=L.int64), _c(L, [1j]), "mean", include_self=False),
    "scatter_sum_empty_index": lambda L: _c(L, [complex(-INF, 2), 3j]).scatter_reduce(0, L.zeros(0, dtype=L.int64), _c(L, [1j]), "sum"),
    # logcumsumexp starts its scan at -inf + 0i: the first element's -inf real part drops its
    # phase, a NaN part makes both parts NaN.
    "logcumsumexp_minus_inf_first": lambda L: _c(L, [complex(-INF, 0.1521), -1.1385j]).logcumsumexp(0),
    "logcumsumexp_nan_part_first": lambda L: _c(L, [complex(NAN, -0.085), complex(NAN, 2.3369)]).logcumsumexp(0),
    "logcumsumexp_finite": lambda L: _c(L, [[0.5 + 1j, -2 + 0.25j, 3 - 1j], [1j, 2.0, -1.0]], "complex128").logcumsumexp(1),
    "logcumsumexp_plus_inf": lambda L: _c(L, [complex(INF, 1.0), complex(INF, -2.0), 1 + 1j]).logcumsumexp(0),
    # A p < 0 norm of values that are all infinite: the sum of |x|^p is 0, its 1/p power inf.
    "dist_negative_p_infinite": lambda L: L.dist(tensor_of(L, [-INF, -INF, -INF], "float16"), L.tensor([9223372036854775807]), -1.0),
    "dist_negative_p_float32": lambda L: L.dist(tensor_of(L, [INF, -INF]), tensor_of(L, [0.0]), -2.5),
    "dist_negative_p_with_zero": lambda L: L.dist(tensor_of(L, [0.0, 1.0]), tensor_of(L, [0.0]), -1.0),
    "norm_negative_p_dim": lambda L: L.linalg.vector_norm(tensor_of(L, [[INF, -INF], [1.0, 2.0]], "float64"), -1.5, dim=1),
    # kthvalue checks dim, size and k before the dtype (a 0-d input of any dtype is its answer).
    "kthvalue_complex_empty_dim": lambda L: L.zeros(7, 3, 0, dtype=L.complex128).kthvalue(2, 2),
    "kthvalue_complex_k_out_of_range": lambda L: L.zeros(3, 2, dtype=L.complex64).kthvalue(5, 1),
    "kthvalue_complex_0d": lambda L: L.tensor(1 + 2j).kthvalue(1),
    "kthvalue_bool_raises": lambda L: L.zeros(3, 2, dtype=L.bool).kthvalue(1, 1),
    # nansum checks its dims one by one: a repeated 0 before an out-of-range 3.
    "nansum_repeat_before_range": lambda L: L.zeros(7, 2, 7).nansum([0, 0, 3, 2]),
    "nansum_range_before_repeat": lambda L: L.zeros(7, 2, 7).nansum([3, 0, 0]),
    "nansum_complex_repeat": lambda L: L.zeros(2, 2, dtype=L.complex64).nansum([1, 1]),
    "nansum_negative_dims": lambda L: tensor_of(L, [[1.0, NAN], [2.0, 3.0]]).nansum([-1, 0]),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed110_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)


def _assert_parts_match(ours: np.ndarray, theirs: np.ndarray) -> None:
    """NaN and infinite parts exactly; finite parts within 3e-5 of the value's modulus (a
    float32 exp(e log z) leaves that much noise in a part that is exactly 0)."""
    scale = np.where(np.isfinite(theirs), np.abs(theirs), 0.0)
    for part in (np.real, np.imag):
        a, b = part(ours), part(theirs)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.where(np.isinf(b), b, 0), np.where(np.isinf(a), a, 0))
        fin = np.isfinite(b)
        assert np.all(np.abs(a[fin] - b[fin]) <= 3e-5 * np.maximum(scale[fin], 1.0)), (a[fin] - b[fin]).max()


_SPECIAL = [0.0, -0.0, 1.5, -2.0, 1e-3, INF, -INF, NAN]
_BASES = [complex(a, b) for a in _SPECIAL for b in _SPECIAL]
_EXPONENTS = [complex(a, b) for a in (0.0, -0.0, 1.0, 2.0, -1.0, 3.0, -2.0, 0.5, INF, -INF, NAN) for b in (0.0, -0.0, 1.0, INF, NAN)]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_pow_special_values_match_cpow(dtype: str) -> None:
    """Every pairing of zero, infinite and NaN parts in base and exponent (tensor ** tensor):
    PyTorch's kernel is C's cpow there, which our special-value path follows part by part."""
    xs = [b for b in _BASES for _ in _EXPONENTS]
    ys = [e for _ in _BASES for e in _EXPONENTS]
    ours = np.array((_c(ferrotorch, xs, dtype) ** _c(ferrotorch, ys, dtype)).tolist())
    _assert_parts_match(ours, (_c(pt, xs, dtype) ** _c(pt, ys, dtype)).numpy())




@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, 0.5, -0.5, 0.0, 2.0, 1j, 2 + 0j, 0j, 1.5 + 2j, INF, NAN, 4, 7, -3])
def test_complex_pow_python_exponent_kernels(dtype: str, exponent: Any) -> None:
    """A Python-number exponent picks PyTorch's kernel by value (0 fills ones, 1 copies, 2 and
    3 multiply, -2 divides, +-0.5 and -1 are sqrt/rsqrt/reciprocal, others cpow): the special
    bases follow each kernel's own rules, e.g. (inf i) ** 2 is -inf + NaN i, not cpow's."""
    ours = np.array((_c(ferrotorch, _BASES, dtype) ** exponent).tolist())
    _assert_parts_match(ours, (_c(pt, _BASES, dtype) ** exponent).numpy())


@pytest.mark.parametrize("exponent", [2, 3, -2, 0.5, -1, 2.5, 1.5 - 0.5j, 0])
def test_complex_pow_python_exponent_gradients(exponent: Any) -> None:
    """d/dz z ** e = e z ** (e - 1) through each kernel choice (0 for e = 0): PyTorch's
    gradients, on a complex input and on a real one raised to a complex power."""
    z = [0.7 + 0.4j, -1.2 + 0.3j, 0.5 - 2.0j]
    grads = []
    for L in (ferrotorch, pt):
        x = L.tensor(z, dtype=L.complex128, requires_grad=True)
        r = L.tensor([1.5, 0.25, 2.0], dtype=L.float64, requires_grad=True)
        w = L.tensor([0.3 - 1j, 2 + 0.5j, -1 + 1j], dtype=L.complex128)
        ((x ** exponent) * w).real.sum().backward()
        ((r ** (exponent * (1 + 0.5j) if exponent else 0j)) * w).real.sum().backward()
        grads.append((np.array(x.grad.tolist()), np.array(r.grad.tolist())))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=1e-12)


def test_complex_pow_python_exponent_gradcheck() -> None:
    x = ferrotorch.tensor([0.7 + 0.4j, -1.2 + 0.3j], dtype=ferrotorch.complex128, requires_grad=True)
    for e in (2, 3, -2, 0.5, -0.5, -1, 2.5, 1.5 - 0.5j):
        assert ferrotorch.autograd.gradcheck(lambda t, e=e: t ** e, (x,))

"""Regression rows for fuzz seed 118 (issue #12): median of a bool input along an empty dim
checks the dim's size before the dtype (IndexError, as PyTorch's), and isin/matmul-family
results match PyTorch's. Each row runs under ferrotorch and PyTorch and requires PyTorch's
outcome."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 2e-6, "float64": 1e-12}


def _bools(L, shape):
    return L.zeros(shape, dtype=L.bool)


ROWS = {
    "median_bool_empty_dim": lambda L: _bools(L, (2, 2, 1, 0)).median(3),
    "median_bool_empty_dim_negative": lambda L: _bools(L, (2, 0)).median(-1),
    "median_bool_nonempty_dim_of_empty": lambda L: _bools(L, (2, 0)).median(0),
    "median_bool_dim": lambda L: _bools(L, (2, 3)).median(1),
    "median_bool_all_empty": lambda L: _bools(L, (2, 0)).median(),
    "nanmedian_bool_empty_dim": lambda L: _bools(L, (2, 0)).nanmedian(1),
    "median_complex_empty_dim": lambda L: L.zeros((2, 0), dtype=L.complex64).median(1),
    "isin_int64_small_float_test": lambda L: L.isin(L.tensor([2**62, 3, 7]), tensor_of(L, [1.5, -2.0, 3.0, 7.0], "float64")),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed118_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

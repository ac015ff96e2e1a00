"""Regression rows for fuzz seed 120 (issue #12): cov (and so corrcoef) averages as PyTorch's
sum divided by the count, the sum in the input's dtype: a bfloat16 row of three 0.8203125 sums
to 2.46875 (rounded), its mean is not the row's value, and its correlation is 1, not NaN.
Each row runs under ferrotorch and PyTorch and requires PyTorch's values to the last bit."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

EXACT = {"bfloat16": 0.0, "float16": 0.0}
RTOL = {"float32": 2e-6, "float64": 1e-12, "complex64": 2e-6, "complex128": 1e-12}
ROW = [0.8203125] * 3
TWO_ROWS = [ROW, [1.0, 2.0, 3.5]]

EXACT_ROWS = {
    "cov_bfloat16_constant": lambda L: L.cov(tensor_of(L, ROW, "bfloat16")),
    "corrcoef_bfloat16_constant": lambda L: L.corrcoef(tensor_of(L, ROW, "bfloat16")),
    "corrcoef_bfloat16_expanded": lambda L: L.corrcoef(tensor_of(L, ROW[:1], "bfloat16").expand(3)),
    "cov_bfloat16_two_rows": lambda L: L.cov(tensor_of(L, TWO_ROWS, "bfloat16")),
    "cov_float16_two_rows": lambda L: L.cov(tensor_of(L, [[1000.5, 1001.0, 999.0], [1.0, 2.0, 3.5]], "float16")),
}
TOL_ROWS = {
    "cov_int64": lambda L: L.cov(L.tensor([[1, 2, 3], [4, 5, 7]])),
    "cov_float32_correction_0": lambda L: L.cov(tensor_of(L, TWO_ROWS), correction=0),
    "cov_complex": lambda L: L.cov(L.tensor([[1 + 2j, 2, 3], [4, 5j, 7]])),
}


@pytest.mark.parametrize("name", sorted(EXACT_ROWS))
def test_seed120_exact_row(name: str) -> None:
    assert_same_outcome(EXACT_ROWS[name], EXACT)


@pytest.mark.parametrize("name", sorted(TOL_ROWS))
def test_seed120_row(name: str) -> None:
    assert_same_outcome(TOL_ROWS[name], RTOL)

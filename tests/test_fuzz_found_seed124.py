"""Regression rows for fuzz seed 124 (issue #12): clamp of a float tensor reads each bound as
a double first, so a complex bound raises even beside a NaN bound; nanmean of a complex input
checks its dims (all ranges, then repeats) before refusing the complex dtype. Each row runs
under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float32": 2e-6, "float64": 1e-12}

NAN = float("nan")

ROWS = {
    "clamp_nan_min_complex_max": lambda L: L.clamp(L.tensor(1.0), NAN, 1.5 + 1j),
    "clamp_complex_min_nan_max": lambda L: L.clamp(L.tensor([1.0, 2.0]), 1.5 + 1j, NAN),
    "clamp_nan_min_real_complex_max": lambda L: L.clamp(L.tensor(1.0), NAN, 1.5 + 0j),
    "clamp_float64_complex_max": lambda L: L.clamp(L.tensor([1.0], dtype=L.float64), 0.0, 2 + 1j),
    "clamp_int_nan_min_complex_max": lambda L: L.clamp(L.tensor([1, 2]), NAN, 1.5 + 1j),
    "nanmean_complex_dim_out_of_range": lambda L: L.nanmean(L.ones(5, 5, 4, 3, dtype=L.complex128), (-2, 0, -4, -5, 4)),
    "nanmean_complex_repeated_dim": lambda L: L.nanmean(L.ones(5, 4, dtype=L.complex128), (0, -2)),
    "nanmean_complex": lambda L: L.nanmean(L.ones(5, 4, dtype=L.complex64), 0),
    "nanmean_complex_all": lambda L: L.nanmean(L.ones(5, 4, dtype=L.complex64)),
    "nanmean_float_dims": lambda L: L.nanmean(L.tensor([[1.0, NAN], [3.0, 4.0]], dtype=L.float64), (0, 1), keepdim=True),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed124_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

"""Regression rows for fuzz seed 123 (issue #12): a convolution of an input with no samples and
a kernel of zero size fails as PyTorch's does (IndexError), while an input without channels
still gives its empty output. Each row runs under ferrotorch and PyTorch and requires PyTorch's
outcome."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float32": 2e-6, "float16": 2e-3}


def _conv(L, x, w, dtype="float32"):
    dt = getattr(L, dtype)
    fn = {3: L.conv1d, 4: L.conv2d, 5: L.conv3d}[len(x)]
    return fn(L.zeros(x, dtype=dt), L.zeros(w, dtype=dt))


ROWS = {
    "conv2d_no_samples_zero_kernel": lambda L: _conv(L, (0, 2, 0, 0), (1, 2, 0, 0), "float16"),
    "conv2d_no_samples_zero_kernel_width": lambda L: _conv(L, (0, 2, 3, 3), (1, 2, 1, 0)),
    "conv1d_no_samples_zero_kernel": lambda L: _conv(L, (0, 2, 0), (1, 2, 0)),
    "conv3d_no_samples_zero_kernel": lambda L: _conv(L, (0, 2, 1, 1, 1), (1, 2, 0, 0, 0)),
    "conv2d_no_channels_zero_kernel": lambda L: _conv(L, (2, 0, 3, 3), (1, 0, 0, 0)),
    "conv2d_no_samples_no_channels_zero_kernel": lambda L: _conv(L, (0, 0, 3, 3), (1, 0, 0, 0)),
    "conv1d_no_channels_zero_kernel": lambda L: _conv(L, (2, 0, 3), (1, 0, 0)),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed123_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

"""Regression rows for fuzz seed 122 (issue #12): a complex convolution checks that the weight
has its dtype before it looks at sizes, so even an empty complex input with an integer or
complex128 weight raises PyTorch's RuntimeError; an empty real input still passes. Each row
runs under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float32": 2e-6, "complex64": 2e-6}


def _z(L, shape, dtype):
    return L.zeros(shape, dtype=getattr(L, dtype))


ROWS = {
    "conv2d_empty_complex_int_weight": lambda L: L.conv2d(_z(L, (5, 0, 3, 0), "complex64"), _z(L, (5, 0, 3, 0), "int32")),
    "conv2d_empty_complex_complex128_weight": lambda L: L.conv2d(_z(L, (0, 2, 3, 3), "complex64"), _z(L, (5, 2, 3, 3), "complex128")),
    "conv1d_empty_complex_float_weight": lambda L: L.conv1d(_z(L, (0, 2, 3), "complex64"), _z(L, (5, 2, 3), "float32")),
    "conv2d_empty_real_complex_weight": lambda L: L.conv2d(_z(L, (5, 0, 3, 0), "float32"), _z(L, (5, 0, 3, 0), "complex64")),
    "conv2d_empty_real_int_weight": lambda L: L.conv2d(_z(L, (5, 0, 3, 0), "float32"), _z(L, (5, 0, 3, 0), "int32")),
    "conv2d_empty_complex_same_weight": lambda L: L.conv2d(_z(L, (0, 2, 3, 3), "complex64"), _z(L, (5, 2, 3, 3), "complex64")),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed122_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

"""Regression rows for fuzz seed 129 (issue #12): a complex power with a small integer tensor
exponent is a product of squarings whose first factor is taken as it is (multiplying by
1 + 0i first turned the finite part of an infinite square into NaN: (3e307 + 1.26i) ** 2 is
inf + 7.8e307i in PyTorch). Each row runs under ferrotorch and PyTorch and requires PyTorch's
outcome."""

from __future__ import annotations

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"complex64": 1e-5, "complex128": 1e-12}
BIG = complex(3.09e307, 1.26)


ROWS = {
    "float_power_huge_square": lambda L: L.float_power(L.tensor([BIG, BIG, BIG], dtype=L.complex128), L.tensor([2, 3, 1])),
    "pow_tensor_huge_square": lambda L: L.tensor([BIG], dtype=L.complex128) ** L.tensor([2.0 + 0j], dtype=L.complex128),
    "pow_tensor_int_exponent": lambda L: L.pow(L.tensor([BIG, 1 + 1j], dtype=L.complex128), L.tensor([2, 4])),
    "pow_tensor_complex64_huge": lambda L: L.tensor([complex(3e38, 0.5)], dtype=L.complex64) ** L.tensor([2.0 + 0j], dtype=L.complex64),
    "pow_tensor_negative_int": lambda L: L.tensor([1e200 + 1e-10j, 2 - 1j], dtype=L.complex128) ** L.tensor([-2.0 + 0j, -3.0 + 0j], dtype=L.complex128),
    "pow_tensor_small_values": lambda L: L.tensor([0.5 + 0.25j, -1 + 2j], dtype=L.complex128) ** L.tensor([5.0 + 0j, 6.0 + 0j], dtype=L.complex128),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed129_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

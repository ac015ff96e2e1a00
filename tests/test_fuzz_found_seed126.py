"""Regression rows for fuzz seed 126 (issue #12): amax/amin of an empty complex input along a
dim of non-zero size give the empty result (no kernel runs; a non-empty complex input still
raises), and 1 ** x of a complex tensor is ones whatever x holds (NaN and inf parts too), as
PyTorch computes it. Each row runs under ferrotorch and PyTorch and requires PyTorch's
outcome."""

from __future__ import annotations

from typing import Any

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"complex64": 1e-6, "complex128": 1e-12, "float32": 1e-6}
NAN, INF = float("nan"), float("inf")


def _special(L: Any, dtype: str = "complex64") -> Any:
    return L.tensor([complex(NAN, 0), complex(INF, 1), complex(0, NAN), 2 - 1j], dtype=getattr(L, dtype))


def _grad_of_one_pow(L: Any) -> Any:
    x = L.tensor([1 + 1j, -2 + 0.5j], requires_grad=True)
    (1 ** x).abs().sum().backward()
    return x.grad


ROWS = {
    "amax_complex_empty_last_dim": lambda L: L.amax(L.zeros(5, 1, 0, 4, dtype=L.complex128), -1),
    "amin_complex_empty_first_dim": lambda L: L.amin(L.zeros(5, 1, 0, 4, dtype=L.complex64), (0,), keepdim=True),
    "amax_complex_empty_zero_dim": lambda L: L.amax(L.zeros(5, 0, dtype=L.complex64), 1),
    "amax_complex_empty_no_dim": lambda L: L.amax(L.zeros(5, 0, dtype=L.complex64)),
    "amax_complex_nonempty": lambda L: L.amax(L.ones(2, 3, dtype=L.complex64), 1),
    "rpow_one_complex_special": lambda L: 1 ** _special(L),
    "rpow_one_float_complex_special": lambda L: 1.0 ** _special(L, "complex128"),
    "rpow_complex_one_special": lambda L: (1 + 0j) ** _special(L),
    "pow_scalar_one_complex": lambda L: L.pow(1, _special(L)),
    "rpow_two_complex_special": lambda L: 2 ** _special(L),
    "rpow_one_complex_grad": _grad_of_one_pow,
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed126_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

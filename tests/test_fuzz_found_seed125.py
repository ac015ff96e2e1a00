"""Regression rows for fuzz seed 125 (issue #12): a masked write into an expanded complex
tensor sets a memory location wherever one of its elements was selected (it used to take the
value of the location's last element, selected or not), as real dtypes already did. Each row
runs under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from fuzz_found_checks import assert_same_outcome

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"complex64": 1e-6, "complex128": 1e-12, "float32": 1e-6}


def _expanded(L: Any, dtype: str) -> Any:
    return L.tensor([[1 - 2j], [-3 - 2.5j], [-1 + 1.5j]]).to(getattr(L, dtype)).expand(3, 4)


def _mask(L: Any) -> Any:
    return L.tensor([[False, True, False, False], [True, False, True, False], [False, False, False, False]])


def _setitem(L: Any, dtype: str, value: Any) -> Any:
    x = _expanded(L, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch deprecates writes into expanded tensors
        x[_mask(L)] = value
    return x


def _masked_fill(L: Any, dtype: str, value: Any) -> Any:
    x = _expanded(L, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return x.masked_fill_(_mask(L), value)


ROWS = {
    "setitem_mask_expanded_complex64": lambda L: _setitem(L, "complex64", 1j),
    "setitem_mask_expanded_complex128": lambda L: _setitem(L, "complex128", 2 - 1j),
    "setitem_mask_expanded_complex_real_value": lambda L: _setitem(L, "complex64", 5.0),
    "masked_fill_expanded_complex64": lambda L: _masked_fill(L, "complex64", 1j),
    "masked_fill_expanded_complex128_nan": lambda L: _masked_fill(L, "complex128", complex(float("nan"), 1)),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed125_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

"""Regression cases found by the differential fuzzer (issue #12) for mode, median, isin,
histc, trapezoid and rsub, checked against PyTorch."""

from __future__ import annotations

import pytest

import ferrotorch as ft
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _both(fn):
    """(result or exception class) from PyTorch and from ferrotorch."""
    out = []
    for L in (pt, ft):
        try:
            r = fn(L)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e))
            continue
        out.append(r)
    return out


def _same(a, b):
    if isinstance(a, type):
        assert isinstance(b, type) and issubclass(b, a), (a, b)
        return
    assert not isinstance(b, type), b
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _same(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert a.tolist() == b.tolist()


CASES = [
    # mode: the empty reduced dim is checked before the complex dtype; empty complex -> empty result
    ("mode_c128_empty", lambda L: tuple(L.mode(L.zeros(4, 1, 0, 3, dtype=L.complex128), 1, False))),
    ("mode_c128_empty_keepdim", lambda L: tuple(L.mode(L.zeros(1, 1, 0, 0, dtype=L.complex128), 1, True))),
    ("mode_c128_empty_reduced", lambda L: L.mode(L.zeros(1, 1, 1, 0, dtype=L.complex128), -1)),
    ("mode_c64_nonempty", lambda L: L.mode(L.zeros(2, dtype=L.complex64), 0)),
    ("mode_c64_0d", lambda L: tuple(L.mode(L.zeros((), dtype=L.complex64), 0))),
    ("mode_int", lambda L: tuple(L.mode(L.tensor([[3, 1, 1, 3, 2, 2], [0, 0, 5, 5, 5, 1]]), 1))),
    # isin: a Python int beyond 64 bits fails parsing, before the bool-dtype refusal
    ("isin_bool_bigint", lambda L: L.isin(L.zeros(3, 0, 3, 0, dtype=L.bool), 2**64)),
    ("isin_bool_negbig", lambda L: L.isin(L.zeros(2, dtype=L.bool), -(2**63) - 1)),
    ("isin_bool_int", lambda L: L.isin(L.zeros(2, dtype=L.bool), 1)),
    ("isin_float_bigint", lambda L: L.isin(L.zeros(2), 2**64)),
    # histc: the empty range of equal data is widened by a dtype step when that is larger
    ("histc_equal_large_f32", lambda L: L.histc(L.tensor([1e8, 1e8]), 3, 0, 0)),
    ("histc_equal_large_f32_4", lambda L: L.histc(L.tensor([1e8] * 5), 4, 0, 0)),
    ("histc_equal_f64", lambda L: L.histc(L.tensor([1e16] * 5, dtype=L.float64), 5, 0, 0)),
    ("histc_equal_max_f32", lambda L: L.histc(L.tensor([3.4e38] * 3), 3, 0, 0)),
    ("histc_equal_tiny_f32", lambda L: L.histc(L.tensor([1e-40] * 3), 3, 0, 0)),
    ("histc_equal_half", lambda L: L.histc(L.tensor([1000.0, 1000.0], dtype=L.float16), 3, 0, 0)),
    ("histc_equal_bf16_lost", lambda L: L.histc(L.tensor([1e30, 1e30], dtype=L.bfloat16), 3, 0, 0)),
    # histc: a product overflowing the dtype lands in bin 0 (PyTorch's x86 conversion)
    ("histc_overflow_f32", lambda L: L.histc(L.tensor([3.5757e07, 1.1221e38, 0.51728, -4.1899e-43, 3.4017e-10, -1.5802e08, 0.0]), 4, 2.5, 2.5)),
    ("histc_overflow_given", lambda L: L.histc(L.tensor([0.0, 1e38, 3e38]), 4, 0, 3e38)),
    ("histc_overflow_half", lambda L: L.histc(L.tensor([-6e4, 0, 6e4, 100.0], dtype=L.float16), 4, -6e4, 6e4)),
    ("histc_step_inf_f32", lambda L: L.histc(L.tensor([-3e38, 0, 3e38, 1e38]), 4, -3e38, 3e38)),
    ("histc_nearly_equal_range", lambda L: L.histc(L.tensor([1.0, 2, 3]), 5, 1.0, 1.0000001)),
    ("histc_plain", lambda L: L.histc(L.tensor([0.0, 1, 2, 3, float("nan")]), 3, 0, 3)),
    # trapezoid: an empty reduced dim gives zeros before the bool refusal
    ("trapz_bool_empty", lambda L: L.trapezoid(L.zeros(0, 3, 4, 0, dtype=L.bool), dim=0)),
    ("trapz_bool_empty_dx", lambda L: L.trapezoid(L.zeros(0, 4, dtype=L.bool), dx=2, dim=0)),
    ("trapz_bool_nonempty", lambda L: L.trapezoid(L.zeros(3, 0, dtype=L.bool), dim=0)),
    ("trapz_int_empty", lambda L: L.trapezoid(L.zeros(0, dtype=L.int64), dim=0)),
    # rsub: a bool scalar is refused
    ("rsub_bool_scalar", lambda L: L.rsub(L.ones(2), True)),
    ("rsub_bool_scalar_f16", lambda L: L.rsub(L.ones(2, dtype=L.float16), False)),
    ("rsub_number", lambda L: L.rsub(L.ones(2, dtype=L.float16), 3)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_vs_torch(name, fn):
    a, b = _both(fn)
    _same(a, b)

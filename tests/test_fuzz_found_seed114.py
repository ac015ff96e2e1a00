"""Regression rows for fuzz seed 114 (issue #12): x ** 0.5, ** -0.5 and ** -1 with a Python
exponent run PyTorch's sqrt/rsqrt/reciprocal kernels for float32, float64 and bfloat16 (not
float16, which keeps pow's values); a one-element bool tensordot follows mm's dot rule; a half
number too large for an empty slice still raises; an out-of-range index into width-0
embedding rows is ATen's RuntimeError. Each row runs under ferrotorch and PyTorch and requires
PyTorch's outcome."""

from __future__ import annotations

import math

import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 2e-6, "float64": 1e-12}
SPECIAL = [math.inf, -math.inf, math.nan, -0.0, 0.0, -1.5, 2.0, 0.25]
BOOL3 = [[1, 0, 1], [0, 1, 1], [1, 1, 0]]

ROWS = {}
for _dtype in ("float32", "float64", "bfloat16", "float16"):
    for _e in (0.5, -0.5, -1, -1.0, 1.5):
        ROWS[f"pow_{_dtype}_{_e}"] = lambda L, d=_dtype, e=_e: tensor_of(L, SPECIAL * 9, d) ** e
    ROWS[f"pow_{_dtype}_permuted"] = lambda L, d=_dtype: tensor_of(L, [SPECIAL] * 3, d).t() ** 0.5
ROWS.update({
    "pow_int_tensor_half_power": lambda L: L.tensor([4, 0, 9]) ** 0.5,
    "pow_method_rsqrt": lambda L: tensor_of(L, SPECIAL, "float64").pow(-0.5),
    "tensordot_bool_1x1_contiguous": lambda L: L.tensordot(tensor_of(L, BOOL3, "bool")[:1], tensor_of(L, BOOL3, "bool")[:, :1].contiguous(), 1),
    "tensordot_bool_1x1_first_strided": lambda L: L.tensordot(tensor_of(L, BOOL3, "bool")[:, :1].t(), tensor_of(L, BOOL3, "bool")[:, 2:3], 1),
    "tensordot_bool_1x1_second_strided": lambda L: L.tensordot(tensor_of(L, BOOL3, "bool")[:1], tensor_of(L, BOOL3, "bool")[:1].t(), 1),
    "tensordot_bool_1x1_empty": lambda L: L.tensordot(L.zeros(0, 1, dtype=L.bool), L.zeros(1, 0, dtype=L.bool), ([-2], [1])),
    "tensordot_bool_1x2_empty": lambda L: L.tensordot(L.zeros(1, 0, dtype=L.bool), L.zeros(0, 2, dtype=L.bool), 1),
    "tensordot_bool_vector_result_empty": lambda L: L.tensordot(L.zeros(1, 0, dtype=L.bool), L.zeros(0, dtype=L.bool), 1),
    "embedding_width0_out_of_range": lambda L: L.embedding(L.zeros(2, 0), L.tensor([1, 7, -3])),
    "embedding_width0_in_range": lambda L: L.embedding(L.zeros(2, 0), L.tensor([[1, 0], [0, 0]])),
    "embedding_out_of_range": lambda L: L.embedding(L.zeros(2, 3), L.tensor([1, 7])),
    "functional_embedding_width0": lambda L: L.nn.functional.embedding(L.tensor([4]), L.zeros(3, 0)),
})


def _setitem(L, shape, key, dtype):
    t = L.zeros(*shape, dtype=getattr(L, dtype))
    t[key] = 1e300
    return t


for _dtype in ("float16", "bfloat16"):
    ROWS[f"setitem_empty_slice_{_dtype}"] = lambda L, d=_dtype: _setitem(L, (1, 3, 0), 0, d)
    ROWS[f"setitem_empty_range_{_dtype}"] = lambda L, d=_dtype: _setitem(L, (3,), slice(0, 0), d)
    ROWS[f"setitem_one_element_{_dtype}"] = lambda L, d=_dtype: _setitem(L, (3,), 1, d)
    ROWS[f"setitem_two_elements_{_dtype}"] = lambda L, d=_dtype: _setitem(L, (3,), slice(0, 2), d)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed114_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)

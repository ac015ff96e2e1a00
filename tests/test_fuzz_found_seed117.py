"""Regression rows for fuzz seed 117 (issue #12): PyTorch's float16/bfloat16 kernels.

Multiply and the three divisions take a one-element right operand at its original value in
float32 (a float16 tensor times int64 70000 multiplies by 70000, where rounding it to float16
first gives inf); `//`, truncating division, xlogy and xlog1py round each intermediate step to
the half type. Each row runs under ferrotorch and PyTorch and requires PyTorch's values to the
last bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

EXACT = {"bfloat16": 0.0, "float16": 0.0, "float32": 0.0, "float64": 0.0}
INF = math.inf
SMALL = [1.0, -2.0, 3.0, 1000.0, 0.5, -0.0, INF, -7.25]
_rng = np.random.default_rng(117)
# Values across the half range, and divisors that leave large quotients (where `a - a % b`
# is not a half value).
WIDE = (_rng.standard_normal(200) * 10.0 ** _rng.uniform(-2, 4, 200)).astype(np.float32).tolist()
DIVISORS = (_rng.standard_normal(200) * 10.0 ** _rng.uniform(-2, 2, 200)).astype(np.float32).tolist()


def _one(L, value, dtype, shape=()):
    return L.tensor(value, dtype=getattr(L, dtype)).reshape(shape)


def _in_place(L, method, dtype, value):
    x = tensor_of(L, SMALL, dtype)
    getattr(x, method)(_one(L, value, "int64"))
    return x


ROWS = {}
for dt in ("float16", "bfloat16"):
    for value, int_dtype in ((70000, "int64"), (257, "int64"), (2049, "int32"), (2**63 - 1, "int64")):
        for shape in ((), (1,)):
            tag = f"{dt}_{int_dtype}_{value}_{len(shape)}d"
            ROWS[f"mul_one_element_{tag}"] = lambda L, dt=dt, v=value, i=int_dtype, s=shape: tensor_of(L, SMALL, dt) * _one(L, v, i, s)
            ROWS[f"div_one_element_{tag}"] = lambda L, dt=dt, v=value, i=int_dtype, s=shape: tensor_of(L, SMALL, dt) / _one(L, v, i, s)
            ROWS[f"trunc_div_one_element_{tag}"] = lambda L, dt=dt, v=value, i=int_dtype, s=shape: L.div(tensor_of(L, WIDE, dt), _one(L, v, i, s), rounding_mode="trunc")
            ROWS[f"floor_div_one_element_{tag}"] = lambda L, dt=dt, v=value, i=int_dtype, s=shape: L.div(tensor_of(L, WIDE, dt), _one(L, v, i, s), rounding_mode="floor")
    ROWS[f"mul_in_place_{dt}"] = lambda L, dt=dt: _in_place(L, "mul_", dt, 70000)
    ROWS[f"div_in_place_{dt}"] = lambda L, dt=dt: _in_place(L, "div_", dt, 2049)
    ROWS[f"div_float64_one_element_{dt}"] = lambda L, dt=dt: tensor_of(L, WIDE, dt) / _one(L, 1.1e-3, "float64")
    ROWS[f"floor_divide_{dt}"] = lambda L, dt=dt: L.floor_divide(tensor_of(L, WIDE, dt), tensor_of(L, DIVISORS, dt))
    ROWS[f"floor_divide_scalar_left_{dt}"] = lambda L, dt=dt: L.floor_divide(_one(L, 2049, "int32"), tensor_of(L, DIVISORS, dt))
    ROWS[f"floor_divide_broadcast_{dt}"] = lambda L, dt=dt: tensor_of(L, WIDE, dt).reshape(20, 10) // tensor_of(L, DIVISORS[:10], dt)
    ROWS[f"trunc_divide_{dt}"] = lambda L, dt=dt: L.div(tensor_of(L, WIDE, dt), tensor_of(L, DIVISORS, dt), rounding_mode="trunc")
    ROWS[f"xlogy_{dt}"] = lambda L, dt=dt: L.xlogy(tensor_of(L, DIVISORS, dt), tensor_of(L, WIDE, dt).abs())
    ROWS[f"xlogy_int_other_{dt}"] = lambda L, dt=dt: L.xlogy(tensor_of(L, SMALL, dt), _one(L, 257, "int64"))
    ROWS[f"xlog1py_{dt}"] = lambda L, dt=dt: L.special.xlog1py(tensor_of(L, WIDE, dt), tensor_of(L, DIVISORS, dt))
    ROWS[f"xlog1py_int_other_{dt}"] = lambda L, dt=dt: L.special.xlog1py(tensor_of(L, SMALL, dt), _one(L, [-578, 1444, 70000], "int64", (3, 1)))
ROWS["xlog1py_float32"] = lambda L: L.special.xlog1py(tensor_of(L, WIDE), tensor_of(L, DIVISORS))
ROWS["xlog1py_float32_int_other"] = lambda L: L.special.xlog1py(tensor_of(L, WIDE), _one(L, [2**40 + 1] * 200, "int64", (200,)))
ROWS["div_float16_huge_int_special"] = lambda L: tensor_of(L, [1.0, INF, 0.0, -INF, math.nan], "float16") / _one(L, [2**63 - 1], "int64", (1,))


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed117_row(name: str) -> None:
    assert_same_outcome(ROWS[name], EXACT)

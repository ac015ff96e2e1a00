"""Regression rows for residual fuzz mismatches (issue #12): bool tensordot's full contraction,
grid_sample with an empty result, gradient's uniform-spacing central difference. Each row runs
under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float32": 2e-5, "float64": 1e-9, "complex64": 2e-5, "complex128": 1e-9}
BOOL3 = [[1, 0, 1], [0, 0, 1], [1, 1, 0]]


def _bools(L: Any, values: Any) -> Any:
    return tensor_of(L, values, "bool")


# Full contraction of bool operands: PyTorch's dot (contiguous operands) has no bool kernel,
# its product-sum (a non-contiguous operand) gives a value; partial contractions use mm.
TENSORDOT = {
    "transposed_first": lambda L: L.tensordot(_bools(L, BOOL3).t(), _bools(L, BOOL3), 2),
    "transposed_second": lambda L: L.tensordot(_bools(L, BOOL3), _bools(L, BOOL3).t(), 2),
    "sliced": lambda L: L.tensordot(_bools(L, BOOL3)[:, ::2], _bools(L, BOOL3)[:, 1:], 2),
    "contiguous_raises": lambda L: L.tensordot(_bools(L, BOOL3), _bools(L, BOOL3), 2),
    "empty_contiguous_raises": lambda L: L.tensordot(L.zeros(0, dtype=L.bool), L.zeros(0, dtype=L.bool), 1),
    "scalars_raise": lambda L: L.tensordot(L.tensor(True), L.tensor(True), 0),
    "size1_broadcast_sliced": lambda L: L.tensordot(L.zeros(5, 5, 0, dtype=L.bool), L.ones(5, 2, 2, dtype=L.bool)[:, :1, :1], 3),
    "size1_broadcast_contiguous": lambda L: L.tensordot(L.zeros(5, 5, 0, dtype=L.bool), L.ones(5, 1, 1, dtype=L.bool), 3),
    "partial_empty": lambda L: L.tensordot(L.zeros(2, 0, dtype=L.bool), L.ones(0, 4, dtype=L.bool)[:, ::2], 1),
    "partial_raises": lambda L: L.tensordot(_bools(L, BOOL3).t(), _bools(L, BOOL3), 1),
    "float_full_transposed": lambda L: L.tensordot(tensor_of(L, [[1.5, -2.0], [0.25, 3.0]]).t(), tensor_of(L, [[2.0, 1.0], [-1.0, 4.0]]), 2),
}


def _grid_sampler(x_shape: Any, x_dtype: str, g_shape: Any, g_dtype: str, mode: int = 0) -> Callable[[Any], Any]:
    return lambda L: L.grid_sampler(L.zeros(*x_shape, dtype=getattr(L, x_dtype)), L.zeros(*g_shape, dtype=getattr(L, g_dtype)), mode, 0, False)


# An empty result returns before the 2-D kernel's dtype dispatch and dtype comparison; the
# 3-D kernel dispatches first; the shape checks come before both.
GRID = {
    "empty_batch_half_grid": _grid_sampler((0, 0, 7, 3), "float64", (0, 3, 2, 2), "float16"),
    "empty_batch_complex_input": _grid_sampler((0, 2, 3, 3), "complex64", (0, 2, 3, 2), "float32", 2),
    "empty_channels_int_input": _grid_sampler((1, 0, 3, 3), "int64", (1, 2, 3, 2), "float32"),
    "empty_channels_bool_input": _grid_sampler((1, 0, 3, 3), "bool", (1, 2, 3, 2), "float32"),
    "empty_grid_other_dtype": _grid_sampler((1, 2, 3, 3), "float32", (1, 0, 3, 2), "float64"),
    "empty_3d_other_dtype": _grid_sampler((1, 2, 3, 3, 3), "float32", (1, 0, 3, 2, 3), "float64"),
    "empty_3d_int_raises": _grid_sampler((0, 2, 3, 3, 3), "int64", (0, 2, 3, 2, 3), "float64"),
    "nonempty_dtype_mismatch_raises": _grid_sampler((1, 2, 3, 3), "float32", (1, 2, 3, 2), "float64"),
    "nonempty_complex_raises": _grid_sampler((1, 2, 3, 3), "complex64", (1, 2, 3, 2), "float32"),
    "complex_batch_mismatch_shape_first": _grid_sampler((1, 2, 3, 3), "complex64", (2, 2, 3, 2), "float32"),
    "empty_spatial_dim_raises": _grid_sampler((0, 2, 3, 0), "complex64", (0, 2, 3, 2), "float32"),
    "functional_empty_complex": lambda L: L.nn.functional.grid_sample(
        L.zeros(0, 2, 3, 3, dtype=L.complex64), L.zeros(0, 2, 3, 2), "bicubic", "reflection", False
    ),
}

Z = [2.0240707 - 0.2392584j, 2.4724720 + 0.3200679j, 2.0717878 - 1.0772262j, 1 + 1j]

# (difference / h) / 2: overflow of difference / h, a subnormal h, complex infinities / 2.
GRADIENT = {
    "complex_zero_spacing": lambda L: L.gradient(L.tensor(Z, dtype=L.complex64), spacing=0.0),
    "complex_zero_spacing_edge2": lambda L: L.gradient(L.tensor(Z, dtype=L.complex64), spacing=0.0, edge_order=2),
    "overflow_of_difference_over_h": lambda L: L.gradient(tensor_of(L, [0.0, 1.0, 3e38, 5.0]), spacing=0.5),
    "overflow_edge2": lambda L: L.gradient(tensor_of(L, [0.0, 1.0, 3e38, 5.0]), spacing=0.5, edge_order=2),
    "subnormal_spacing": lambda L: L.gradient(tensor_of(L, [0.0, 1e-40, 3e-40]), spacing=1e-45),
    "int_input_int_spacing": lambda L: L.gradient(L.tensor([[1, 2, 4], [3, 5, 9]]), spacing=2),
    "float64_ordinary": lambda L: L.gradient(tensor_of(L, [1.0, 2.0, 4.0, 8.0, 3.0], "float64"), spacing=0.3),
}


@pytest.mark.parametrize("name", sorted(TENSORDOT))
def test_tensordot_bool_full_contraction(name: str) -> None:
    assert_same_outcome(TENSORDOT[name], RTOL)


@pytest.mark.parametrize("name", sorted(GRID))
def test_grid_sampler_empty_result(name: str) -> None:
    assert_same_outcome(GRID[name], RTOL)


@pytest.mark.parametrize("name", sorted(GRADIENT))
def test_gradient_uniform_spacing(name: str) -> None:
    assert_same_outcome(GRADIENT[name], RTOL)


# A row of equal values normalizes to exact zeros (its mean is exactly the value, as with
# PyTorch's moments), whatever the row length, the value and the layout.
LAYER_NORM_CONSTANT = {
    "expanded_3": lambda L: L.nn.functional.layer_norm(tensor_of(L, [[-1.234567], [0.3], [2.71828]]).expand(3, 3), (3,)),
    "row_7": lambda L: L.nn.functional.layer_norm(tensor_of(L, [[0.1] * 7, [1e-3] * 7]), (7,)),
    "row_37_affine": lambda L: L.nn.functional.layer_norm(tensor_of(L, [[2.2] * 37]), (37,), tensor_of(L, [0.5] * 37), tensor_of(L, [0.25] * 37)),
    "float64_row_5": lambda L: L.nn.functional.layer_norm(tensor_of(L, [[0.7] * 5], "float64"), (5,)),
}


@pytest.mark.parametrize("name", sorted(LAYER_NORM_CONSTANT))
def test_layer_norm_constant_rows(name: str) -> None:
    assert_same_outcome(LAYER_NORM_CONSTANT[name], {"float32": 0.0, "float64": 0.0})

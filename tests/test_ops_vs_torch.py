"""The op table (op_table.py) run a second time with PyTorch in place of ferrotorch: every op,
dtype and layout (contiguous, transposed, sliced, broadcast, zero-size, 0-d) gives PyTorch's
result dtype and values, and for float64 the same gradients. NumPy references stay in
test_ops_table.py; here PyTorch itself is the oracle."""

from __future__ import annotations

import sys
import types
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict

import numpy as np
import pytest
from op_table import BINARY, REDUCTIONS, UNARY
from test_ops_table import REDUCE_DIMS, TOL, sample, shaped

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _table_under_pytorch() -> Dict[str, Any]:
    """op_table.py executed with `torch` bound to PyTorch: the same lambdas call PyTorch."""
    src = (Path(__file__).parent / "op_table.py").read_text().replace("import ferrotorch as torch", "import torch")
    mod = types.ModuleType("op_table_pytorch")
    sys.modules[mod.__name__] = mod  # dataclasses look their module up while the class is built
    exec(compile(src, "op_table_pytorch", "exec"), mod.__dict__)
    return {op.name: op.fn for op in mod.UNARY + mod.BINARY + mod.REDUCTIONS}


PT_FNS = _table_under_pytorch() if pt is not None else {}
# Entries that call ferrotorch-private kernels: PyTorch's public equivalents.
if pt is not None:
    F = pt.nn.functional
    PT_FNS.update(
        softplus=lambda t: F.softplus(t, 1.0, 20.0),
        softplus_beta=lambda t: F.softplus(t, 2.0, 1.0),
        leaky_relu=lambda t: F.leaky_relu(t, 0.1),
        elu=lambda t: F.elu(t, 1.0),
        gelu=F.gelu,
        gelu_tanh=lambda t: F.gelu(t, approximate="tanh"),
        silu=F.silu,
    )


def _layout(lib: Any, a: np.ndarray, dtype: str, layout: str) -> Any:
    """A tensor of ``lib`` with the values of ``a`` in the given memory layout."""
    dt = getattr(lib, dtype)
    if a.size == 0:
        return lib.zeros(*a.shape, dtype=dt)
    if layout == "transposed" and a.ndim >= 2:
        return lib.tensor(np.ascontiguousarray(a.T).tolist(), dtype=dt).t()
    if layout == "sliced" and a.ndim >= 1:
        big = lib.tensor(np.repeat(a, 2, axis=-1).tolist(), dtype=dt)
        return big.unflatten(-1, (a.shape[-1], 2)).select(-1, 0)
    return lib.tensor(a.tolist(), dtype=dt)


def _compare(ours: Any, theirs: Any, dtype: str, what: str) -> None:
    if isinstance(theirs, (tuple, list)):
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _compare(a, b, dtype, f"{what}[{k}]")
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], f"{what}: dtype {ours.dtype} vs torch {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    a = np.array(ours.detach().float().tolist() if ours.dtype in (torch.bfloat16, torch.float16) else ours.detach().tolist())
    b = np.array(theirs.detach().float().tolist() if theirs.dtype in (pt.bfloat16, pt.float16) else theirs.detach().tolist())
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        tol = max(TOL.get(dtype, 2e-5), 2e-5 if str(theirs.dtype).endswith(("float32", "complex64")) else 0)
        wide = np.complex128 if "c" in (a.dtype.kind, b.dtype.kind) else np.float64
        np.testing.assert_allclose(a.astype(wide), b.astype(wide), rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def _grads(fn_ft: Callable, fn_pt: Callable, inputs: list, what: str) -> None:
    """float64 gradients of both libraries for the same output gradient."""
    xs = [torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True) for x in inputs]
    ys = [pt.tensor(x.tolist(), dtype=pt.float64, requires_grad=True) for x in inputs]
    out_o, out_t = fn_ft(*xs), fn_pt(*ys)
    if not out_t.requires_grad:
        return
    g = np.random.default_rng(7).standard_normal(tuple(out_t.shape))
    out_o.backward(torch.tensor(g.tolist(), dtype=torch.float64))
    out_t.backward(pt.tensor(g.tolist(), dtype=pt.float64))
    for k, (a, b) in enumerate(zip(xs, ys)):
        if b.grad is None:
            continue
        assert a.grad is not None, f"{what}: no gradient for input {k}"
        np.testing.assert_allclose(np.array(a.grad.tolist()), b.grad.numpy(), rtol=1e-7, atol=1e-9, err_msg=f"{what} grad {k}")


LAYOUTS = ["contiguous", "transposed", "sliced", "expanded", "zero_size", "zero_dim"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", UNARY, ids=[o.name for o in UNARY])
def test_unary_vs_torch(op: Any, layout: str) -> None:
    fn_pt = PT_FNS[op.name]
    rng = np.random.default_rng(0)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        x_o, x_t = _layout(torch, a, dtype, layout), _layout(pt, a, dtype, layout)
        if layout == "expanded":
            x_o, x_t = x_o.expand(3, 4), x_t.expand(3, 4)
        _compare(op.fn(x_o), fn_pt(x_t), dtype, f"{op.name} {dtype} {layout}")
    if op.grad and layout in ("contiguous", "zero_dim"):
        _grads(op.fn, fn_pt, [shaped(layout, rng, op, "float64")], f"{op.name} {layout}")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary_vs_torch(op: Any, layout: str) -> None:
    fn_pt = PT_FNS[op.name]
    rng = np.random.default_rng(1)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        b = shaped(layout, rng, op, dtype) if layout != "expanded" else shaped("contiguous", rng, op, dtype)[:, :1]
        _compare(
            op.fn(_layout(torch, a, dtype, layout), _layout(torch, b, dtype, "contiguous")),
            fn_pt(_layout(pt, a, dtype, layout), _layout(pt, b, dtype, "contiguous")),
            dtype,
            f"{op.name} {dtype} {layout}",
        )
    if op.grad and layout in ("contiguous", "expanded"):
        a = shaped(layout, rng, op, "float64")
        b = shaped("contiguous", rng, op, "float64")[:, :1] if layout == "expanded" else shaped(layout, rng, op, "float64")
        _grads(op.fn, fn_pt, [a, b], f"{op.name} {layout}")


@pytest.mark.parametrize("op", REDUCTIONS, ids=[o.name for o in REDUCTIONS])
@pytest.mark.parametrize("dim,keepdim", REDUCE_DIMS)
def test_reductions_vs_torch(op: Any, dim: Any, keepdim: bool) -> None:
    if isinstance(dim, (tuple, list)) and not op.tuple_dims:
        pytest.skip("op takes a single dim")
    fn_pt = PT_FNS[op.name]
    rng = np.random.default_rng(2)
    for dtype in op.dtypes:
        a = sample(op, dtype, (3, 4, 5), rng)
        for layout in ("contiguous", "transposed"):
            x_o, x_t = _layout(torch, a, dtype, "contiguous"), _layout(pt, a, dtype, "contiguous")
            if layout == "transposed":
                x_o = _layout(torch, np.ascontiguousarray(a.transpose(2, 1, 0)), dtype, "contiguous").permute(2, 1, 0)
                x_t = _layout(pt, np.ascontiguousarray(a.transpose(2, 1, 0)), dtype, "contiguous").permute(2, 1, 0)
            _compare(op.fn(x_o, dim, keepdim), fn_pt(x_t, dim, keepdim), dtype, f"{op.name} {dtype} {layout} dim={dim}")
    if op.grad:
        a = rng.uniform(*op.domain, (3, 4, 5))
        _grads(lambda t: op.fn(t, dim, keepdim), lambda t: fn_pt(t, dim, keepdim), [a], f"{op.name} dim={dim}")


# Edge cases found by the differential fuzzer (tests/fuzz), each written once against a library
# module ``L`` and compared with PyTorch: values, dtype and shape.
_INF = float("inf")
_NAN = float("nan")
EDGE_CASES = {
    # A complex source is multiplied by alpha even when it is 1 (NaN imaginary parts at -inf).
    "index_add_complex_infinite_source": lambda L: L.tensor([complex(-_INF, 2.0), 1 + 1j], dtype=L.complex128).index_add(0, L.tensor([1, 0]), L.tensor([complex(-_INF, 2.0), 3 - 1j], dtype=L.complex128)),
    # Only legacy empty (shape [0]) tensors: no dim is checked, the result is empty.
    "cat_only_legacy_empty_dim_minus_2": lambda L: L.cat([L.zeros(0, dtype=L.int64), L.zeros(0, dtype=L.bool)], -2),
    "cat_only_legacy_empty_dim_5": lambda L: L.cat([L.zeros(0)], 5),
    # Ints beyond int64 are stored only into a float dtype (read as a float).
    "tensor_int_beyond_uint64_as_float32": lambda L: L.tensor(2**64, dtype=L.float32),
    "tensor_ints_beyond_int64_as_float64": lambda L: L.tensor([2**63, 2**200], dtype=L.float64),
    "conv1d_complex": lambda L: L.conv1d(L.arange(28, dtype=L.float32).reshape(1, 7, 4).to(L.complex64) * (1 - 0.5j), L.linspace(-1, 1, 14).reshape(2, 7, 1).to(L.complex64) * (0.3 + 1j), padding=1),
    "conv2d_complex_bias_stride": lambda L: L.conv2d(L.linspace(-2, 2, 2 * 3 * 5 * 5, dtype=L.float64).reshape(2, 3, 5, 5) * (1 + 2j), L.linspace(-1, 1, 4 * 3 * 3 * 3, dtype=L.float64).reshape(4, 3, 3, 3) * (0.5 - 1j), L.tensor([1 + 1j, 0, -1j, 2], dtype=L.complex128), stride=2, padding=1),
    "logcumsumexp_complex_equal_real_parts": lambda L: L.logcumsumexp(L.tensor([0 + 3j, 0 - 3j, 0 + 2.5j, -1 + 1j], dtype=L.complex128), 0),
    "dist_one_element_negative_p": lambda L: L.stack([L.dist(L.tensor(3, dtype=L.int32), L.tensor(v), p) for v in (_INF, -_INF, 2.5) for p in (-1.0, -2.0, -0.5, 3.0)]),
    "addcmul_three_operand_promotion": lambda L: L.addcmul(L.tensor(3, dtype=L.int16), L.tensor(2, dtype=L.int16), L.ones(2, 3, dtype=L.uint8), value=-3),
    # A half sum with alpha runs in float32 on PyTorch's vectorized path (64 elements use it).
    "f16_add_alpha_in_float32": lambda L: L.add(L.full((64,), _INF, dtype=L.float16), L.full((64,), -35648.0, dtype=L.float16), alpha=2),
    "bf16_sub_alpha_in_float32": lambda L: L.linspace(-3, 3, 64, dtype=L.bfloat16).sub(L.linspace(1, 2, 64, dtype=L.bfloat16), alpha=0.37),
    "int64_pow_exponent_past_u32": lambda L: L.tensor([-(2**63) + 1, 3, -3]) ** L.tensor([2**63 - 2, 2**40 + 1, 2**33]),
    "f16_mul_int_scalar_in_float32": lambda L: L.tensor([3.0, -1.9609375], dtype=L.float16) * 2049,
    "bf16_floordiv_number_in_float32": lambda L: L.tensor([-1.9609375, 3.5], dtype=L.bfloat16) // 1.9587485790252686,
    "bf16_mul_number_in_float32": lambda L: L.tensor([3.0, -7.0], dtype=L.bfloat16) * 1.0039,
    # A 0-d float32 second operand of a half mul/div/floor-div keeps its float32 value.
    "bf16_floordiv_0d_float32": lambda L: L.tensor([-1.9609375, 3.5], dtype=L.bfloat16) // L.tensor(1.9587485790252686),
    "bf16_mul_0d_float32": lambda L: L.tensor([3.0, -7.0], dtype=L.bfloat16) * L.tensor(1.0039),
    "bf16_mul_method_0d_float64": lambda L: L.tensor([3.0, -7.0], dtype=L.bfloat16).mul(L.tensor(1.0039, dtype=L.float64)),
    "f16_div_0d_float32": lambda L: L.tensor([1.0, 1000.0], dtype=L.float16) / L.tensor(3.0001),
    "bf16_add_0d_float32_rounds": lambda L: L.tensor([3.0, -7.0], dtype=L.bfloat16) + L.tensor(0.0039),
    "cat_empty_1d_promotes": lambda L: L.cat([L.zeros(2, 3, dtype=L.int8), L.zeros(0)]),
    "cat_all_empty_promotes": lambda L: L.cat([L.zeros(0, dtype=L.int8), L.zeros(0)]),
    "nan_to_num_complex_parts": lambda L: L.nan_to_num(L.tensor([complex(_NAN, _INF), complex(-_INF, 1), 2 - 1j], dtype=L.complex64)),
    "nan_to_num_complex_args": lambda L: L.tensor([complex(_NAN, -_INF), complex(_INF, _NAN)], dtype=L.complex128).nan_to_num(1.5, 9.0, -9.0),
    "isnan_isinf_isfinite_complex": lambda L: L.stack([f(L.tensor([complex(_NAN, 0), complex(0, _INF), complex(_INF, _NAN), 1 + 2j, complex(_NAN, _INF)])) for f in (L.isnan, L.isinf, L.isfinite)]),
    # A real number added to (subtracted from) a half tensor is rounded to the half type first;
    # mul/div keep it in float32, methods and operators alike.
    "half_add_number_beyond_range": lambda L: L.stack([L.full((2,), -_INF, dtype=L.float16) + 70000.0, 70000.0 + L.full((2,), -_INF, dtype=L.float16), L.full((2,), _INF, dtype=L.float16) - 70000.0]),
    "half_0d_radd_beyond_range": lambda L: 70000.0 + L.tensor(-_INF, dtype=L.float16),
    "half_mul_div_methods_keep_float32": lambda L: L.stack([L.zeros(2, dtype=L.float16).mul(70000.0), L.full((2,), _INF, dtype=L.float16).div(70000.0), L.mul(L.zeros(2, dtype=L.float16), 70000.0)]),
    "tanh_complex64_near_pole": lambda L: L.tanh(L.tensor([complex(4.0040211e-09, -1.5711708), complex(0.5, 0.3), complex(30, 1), complex(-2.0, 1.5706)], dtype=L.complex64)),
    "tanh_complex128_near_pole": lambda L: L.tanh(L.tensor([complex(1e-9, 1.5707963), complex(0.25, -1.57)], dtype=L.complex128)),
    "cumprod_complex_starts_from_one": lambda L: L.tensor([complex(_INF, 2), 1 + 1j]).cumprod(0),
    "lerp_complex_infinite_start": lambda L: L.lerp(L.tensor([complex(_INF, -0.6749)], dtype=L.complex64), L.tensor([0.74 + 2.9j], dtype=L.complex64), L.tensor([1.776 + 0.377j], dtype=L.complex64)),
    "var_empty_dim_is_nan": lambda L: L.zeros(3, 0).var(1),
    "std_empty_all_is_nan": lambda L: L.zeros(0, 4, dtype=L.float64).std(),
    "var_overflowing_rows_along_dim": lambda L: L.tensor([[1e308, 1e308], [3.0, 5.0]], dtype=L.float64).var(1),
    # Scans in PyTorch's CPU accumulate type: float32 in double, half in float, complex64 in
    # complex128.
    "cumsum_float32_accumulates_in_double": lambda L: L.tensor([1e8] + [1.0] * 100).cumsum(0),
    "cumprod_float32_in_double": lambda L: L.tensor([1e30, 1e30, 1e-30]).cumprod(0),
    "cumsum_float16_in_float32": lambda L: L.tensor([60000.0, 60000.0, -60000.0], dtype=L.float16).cumsum(0),
    "cumprod_complex64_in_complex128": lambda L: L.tensor([1e30 + 0j, 1e30 + 0j, 1e-30 + 1j], dtype=L.complex64).cumprod(0),
    "cumsum_complex64_in_complex128": lambda L: L.tensor([3e38 + 0j, 3e38 + 0j, -3e38 + 0j], dtype=L.complex64).cumsum(0),
    # Complex var is var(real) + var(imag): a mean near the range stays finite.
    "var_complex_near_range": lambda L: L.tensor([1e308 + 1j, 1e308 + 2j], dtype=L.complex128).var(),
    "std_complex_near_range_dim": lambda L: L.tensor([[1e308 + 1j, 1e308 + 2j], [1.0 + 0j, 3.0 - 1j]], dtype=L.complex128).std(1),
    # Empty products PyTorch's bmm path returns before its dtype checks (second operand's dtype).
    "matmul_empty_mixed_dtypes_batched": lambda L: L.zeros(1, 2, 7, dtype=L.float16) @ L.zeros(1, 7, 0),
    "matmul_zero_depth_mixed_batched": lambda L: L.ones(2, 3, 0, dtype=L.float16) @ L.ones(2, 0, 2),
    "bmm_empty_batch_int8_uint8": lambda L: L.zeros(0, 1, 1, dtype=L.int8) @ L.zeros(0, 1, 2, dtype=L.uint8),
    "matmul_matrix_by_empty_batch_mixed": lambda L: L.zeros(7, 2, dtype=L.uint8) @ L.zeros(0, 2, 3, dtype=L.bfloat16),
    "matmul_bool_zero_depth": lambda L: L.ones(3, 0, dtype=L.bool) @ L.ones(0, 2, dtype=L.bool),
    "matmul_bool_empty_batched": lambda L: L.ones(5, 3, 5, dtype=L.bool) @ L.ones(5, 5, 0, dtype=L.bool),
    "tensor_minus_one_uint8_wraps": lambda L: L.tensor([-1, -255, 3], dtype=L.uint8),
    "tensor_float_in_uint8_range_truncates": lambda L: L.tensor([255.5, -0.0, 1.9], dtype=L.uint8),
    "floor_divide_inf_nan": lambda L: L.floor_divide(L.tensor([_INF, -_INF, 5.0, -0.5, 0.5, 7.0, -7.0, 1.0]), L.tensor([2.0, 2.0, _INF, _INF, -_INF, 0.0, 0.0, -0.0])),
    "floordiv_scalar_inf": lambda L: L.tensor([_INF, -3.5, 3.5], dtype=L.float64) // 2.0,
    "div_floor_float32": lambda L: L.div(L.tensor([-0.5, 1.0, _INF]), L.tensor([_INF, _INF, 3.0]), rounding_mode="floor"),
    "sum_int32_dtype_int32": lambda L: L.tensor([2**31 - 1, 1], dtype=L.int32).sum(dtype=L.int32),
    "sum_dim_dtype_int16": lambda L: L.ones(2, 3, dtype=L.int32).sum(1, dtype=L.int16),
    "prod_dtype_int8": lambda L: L.tensor([100, 3], dtype=L.int32).prod(dtype=L.int8),
    "int_remainder_empty_by_zero_scalar": lambda L: L.ones(0, 3, dtype=L.int64) % 0,
    "int_floor_divide_empty_by_zero": lambda L: L.ones(0, 3, dtype=L.int64) // L.zeros(3, dtype=L.int64),
    "int_remainder_empty": lambda L: L.remainder(L.ones(2, 0, dtype=L.int32), L.zeros(1, dtype=L.int32)),
    "median_empty_float": lambda L: L.median(L.zeros(0, dtype=L.float64)),
    "median_empty_int": lambda L: L.median(L.zeros(0, dtype=L.int64)),
    "median_0d_dim": lambda L: L.median(L.tensor(3), 0),
    "diff_zero_size": lambda L: L.diff(L.zeros(2, 0, 0)),
    "diff_empty_vector": lambda L: L.diff(L.zeros(0)),
    "movedim_0d": lambda L: L.movedim(L.tensor(1.5), 0, -1),
    # An int scalar stays exact where the op computes in float; elsewhere it wraps to the dtype.
    "rdiv_int_scalar_uint8": lambda L: -1 / L.tensor([0, 1, 2, 255], dtype=L.uint8),
    "div_int_scalar_uint8": lambda L: L.tensor([0, 1, 2, 255], dtype=L.uint8).div(-2),
    "div_int64_min_scalar": lambda L: (-(2**63)) / L.tensor([1, 3], dtype=L.uint8),
    "add_wraps_int_scalar": lambda L: L.tensor([0, 1, 200], dtype=L.uint8) + 300,
    "lt_wraps_int_scalar": lambda L: L.tensor([0, 1, 200], dtype=L.uint8) < -1,
    "add_uint64_range_scalar": lambda L: L.tensor([1.0, 2.0]) + 2**63,
    # A wider 0-d operand is cast to the common dtype before the kernel (wraps / rounds).
    "ne_0d_int32_vs_int16": lambda L: L.ne(L.tensor([[1, -1, 32767]], dtype=L.int16), L.tensor(2147483647, dtype=L.int32)),
    "floor_divide_0d_wider": lambda L: L.tensor([7, -7], dtype=L.int16) // L.tensor(65538, dtype=L.int32),
    "lt_half_vs_0d_float": lambda L: L.tensor([1.0], dtype=L.float16) < L.tensor(1.0001),
    "linspace_one_step": lambda L: L.linspace(2.5, -1.0, 1),
    "linspace_two_steps": lambda L: L.linspace(2.5, -1.0, 2),
    "nanmean_keepdim_no_dim": lambda L: L.nanmean(L.tensor([[1.0, float("nan")], [3.0, 4.0]]), None, True),
    "nansum_keepdim_no_dim": lambda L: L.nansum(L.ones(2, 3), None, True),
    "int_of_big_float": lambda L: L.tensor([int(L.tensor(-2.7)), int(L.tensor(1e30)) // 2**70]),
    "hardtanh_uint8": lambda L: L.nn.functional.hardtanh(L.tensor([0, 1, 200, 255], dtype=L.uint8)),
    "clamp_int_bounds_beyond_range": lambda L: L.tensor([0, 100, 255], dtype=L.uint8).clamp(-1, 300),
    "clamp_int8_min_below_range": lambda L: L.tensor([-128, 0, 127], dtype=L.int8).clamp(min=-200),
    "fill_uint8_minus_255_wraps": lambda L: L.zeros(2, dtype=L.uint8).fill_(-255),
    "fill_uint8_truncates": lambda L: L.zeros(2, dtype=L.uint8).fill_(255.5),
    "fill_half_inf": lambda L: L.zeros(2, dtype=L.float16).fill_(float("inf")),
    "full_half_one_element_rounds": lambda L: L.full((1,), 1e5, dtype=L.float16),
    "setitem_half_rounds": lambda L: _setitem(L.zeros(2, dtype=L.float16), 0, 1e5),
    "add_inplace_half_from_float32": lambda L: L.tensor(1.5, dtype=L.float16).add_(L.tensor(2.25)),
    "mul_inplace_int_by_bool": lambda L: L.tensor([1, 2]).mul_(L.tensor([True, False])),
    "fill_expanded": lambda L: L.zeros(3, 1).expand(3, 3).fill_(2.0),
    "pad_nothing_skips_value_check": lambda L: L.nn.functional.pad(L.ones(3, dtype=L.uint8), (0, 0), value=-1.0),
    "add_alpha_in_result_dtype": lambda L: L.add(L.tensor([0, 1]), L.tensor([100, 200], dtype=L.uint8), alpha=3),
    "add_alpha_0d_float64_with_bool": lambda L: L.add(L.tensor(1.5, dtype=L.float64), L.tensor([True, False]), alpha=2.0),
    "isclose_int_extremes": lambda L: L.isclose(L.tensor([1, 2**62, -(2**63), 5]), L.tensor([1, -(2**62), 2**63 - 1, 6])),
    "isclose_bool": lambda L: L.isclose(L.tensor([True, False]), L.tensor([True, True])),
    "isclose_float_inf": lambda L: L.isclose(L.tensor([float("inf"), 1.0, float("nan")]), L.tensor([-float("inf"), 1.0 + 1e-6, float("nan")])),
    "addcmul_int_value_truncates": lambda L: L.addcmul(L.tensor([1]), L.tensor([2]), L.tensor([3]), value=2.7),
    "addcmul_promotes_before_multiplying": lambda L: L.addcmul(L.tensor([1]), L.tensor([20], dtype=L.uint8), L.tensor([30], dtype=L.uint8)),
    "addcmul_0d_uint8": lambda L: L.addcmul(L.tensor(1, dtype=L.uint8), L.tensor(2), L.tensor(3), value=70000.0),
    "einsum_uint8_keeps_dtype": lambda L: L.einsum("ij,jk->ik", L.full((2, 3), 100, dtype=L.uint8), L.full((3, 2), 2, dtype=L.uint8)),
    "index_fill_0d": lambda L: L.tensor(2).index_fill(0, L.tensor([0]), 5),
    "norm_inf_empty_kept_dim": lambda L: L.zeros(2, 0).norm(float("inf"), 0),
    "div_inplace_bfloat16_by_float64": lambda L: L.ones(2, dtype=L.bfloat16).div_(L.full((2,), 3.0, dtype=L.float64)),
    "norm_one_element_near_range": lambda L: L.tensor([[3e38], [-1e-30]]).norm(dim=1),
    "normalize_one_element_near_range": lambda L: L.nn.functional.normalize(L.tensor([[3e38, -2e38]]), dim=-2),
    "add_inplace_expanded_empty": lambda L: L.zeros(0, 1).expand(0, 2).add_(L.ones(1, 2)),
    "diff_bool": lambda L: L.diff(L.tensor([True, False, False, True])),
    "softmax_method_empty_bool": lambda L: L.ones(4, 0, dtype=L.bool).softmax(0),
    "where_0d_float64_with_half": lambda L: L.where(L.tensor([True, False]), L.tensor(2.5, dtype=L.float64), L.ones(2, dtype=L.float16)),
    "lerp_infinite_ends": lambda L: L.lerp(L.tensor([1.0, float("inf"), -2.0, 0.0]), L.tensor([float("inf"), 1.0, 3.0, float("nan")]), -1.0),
    "lerp_weight_one_is_end": lambda L: L.lerp(L.tensor([float("inf"), 1.0]), L.tensor([2.0, float("-inf")]), L.tensor([1.0, 0.75])),
    "fill_bool_complex_value": lambda L: L.zeros(3, dtype=L.bool).fill_(-2j),
    "scatter_add_empty_index_no_shape_check": lambda L: L.zeros(2, 3).scatter_add(1, L.zeros(0, 7, dtype=L.int64), L.ones(1, 1)),
    "log_softmax_empty_int": lambda L: L.nn.functional.log_softmax(L.ones(0, 7, dtype=L.int64), 1),
    "softmax_empty_bool": lambda L: L.nn.functional.softmax(L.ones(2, 0, dtype=L.bool), 1),
    "std_near_float32_range": lambda L: L.tensor([3e38, -3e38, 1e38]).std(),
    "var_dim_near_float32_range": lambda L: L.tensor([[3e38, -3e38], [1.0, 2.0]]).var(1),
    "std_bfloat16_large": lambda L: L.tensor([3e38, -3e38], dtype=L.bfloat16).std(),
    "masked_fill_mask_wider_than_input": lambda L: L.tensor([1.0, 2.0]).masked_fill(L.tensor([[True, False], [False, True]]), 5.0),
    "masked_fill_0d_input_broadcast": lambda L: L.tensor(True).masked_fill(L.tensor([True, False]), 1.5j),
    "clamp_bool_int_bound": lambda L: L.clamp_min(L.tensor([True, False]), 0),
    "clamp_bool_float_bound": lambda L: L.clamp(L.tensor([True, False]), min=0.5, max=0.75),
    "clamp_int_float_bound": lambda L: L.clamp(L.tensor([1, 5], dtype=L.int16), max=2.5),
    "arange_int64_wrapping_length": lambda L: L.arange(-(2**63), 2**63 - 1, 2**62),
    "arange_int64_near_limits": lambda L: L.arange(2**63 - 1, 2**63 - 5, -1),
    "arange_huge_step_one_element": lambda L: L.arange(0.5, 1e300, 1e300),
    "arange_bool_bounds": lambda L: L.arange(True, 3),
    "getitem_out_of_range_with_empty_result": lambda L: L.zeros(2, 0)[L.tensor([5])],
    "logsumexp_empty_dims_keepdim": lambda L: L.logsumexp(L.ones(2, 3), dim=(), keepdim=True),
    "logsumexp_empty_dims_0d": lambda L: L.logsumexp(L.tensor(2.0), dim=()),
    "bincount_uint8": lambda L: L.bincount(L.tensor([1, 2, 2], dtype=L.uint8)),
    "bincount_int8_weights": lambda L: L.bincount(L.tensor([1, 0], dtype=L.int8), L.tensor([1.5, 2.0])),
    "bincount_empty_int16": lambda L: L.bincount(L.tensor([], dtype=L.int16)),
    "cosine_similarity_int_and_float": lambda L: L.nn.functional.cosine_similarity(L.ones(3, dtype=L.int64), L.ones(3), 0),
    "index_add_into_empty": lambda L: L.zeros(2, 0).index_add(0, L.tensor([5]), L.zeros(1, 0)),
    "index_add_int32_index": lambda L: L.zeros(3, 2).index_add(1, L.tensor([1, 1], dtype=L.int32), L.ones(3, 2)),
    "asin_complex": lambda L: L.asin(L.tensor([0.5 + 0.3j, 2 + 1j, -3 - 0.5j, 1e8 + 1j, 0j, 2 + 0j, -2 - 0j, 1e300 + 1e300j, complex(float("inf"), 1)], dtype=L.complex128)),
    "acos_complex": lambda L: L.acos(L.tensor([0.5 + 0.3j, 2 + 1j, -3 - 0.5j, 1e8 + 1j, 0j, 2 + 0j, -2 - 0j, 1e300 + 1e300j, complex(float("-inf"), 1)], dtype=L.complex128)),
    "atan_complex": lambda L: L.atan(L.tensor([0.5 + 0.3j, 2 + 1j, -3 - 0.5j, 1e8 + 1j, 0j, 1j, -1j, 2j, 1e300 + 1e300j, 1e-300 + 0j])),
    "asin_complex64_small": lambda L: L.asin(L.tensor([1e-6 + 2e-6j, -3e-5j, 0.999 + 0j], dtype=L.complex64)),
    "prod_complex": lambda L: L.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]]).prod(0),
    "prod_complex_all": lambda L: L.tensor([1 + 2j, 3 - 1j, 0.5j], dtype=L.complex128).prod(),
    "logaddexp_complex": lambda L: L.logaddexp(L.tensor([1 + 2j, 3 - 1j, complex(float("-inf"), 0)]), L.tensor([0.5 + 1j, -1 - 1j, complex(float("-inf"), 1)])),
    "logcumsumexp_complex": lambda L: L.logcumsumexp(L.tensor([[1 + 2j, 3 - 1j, -2 + 0.5j], [0j, 1j, -1j]], dtype=L.complex128), 1),
    "silu_complex": lambda L: L.nn.functional.silu(L.tensor([1 + 2j, 3 - 1j, -0.5j])),
    "setitem_mask_into_expanded": lambda L: _setitem(L.tensor([[1, 2, 3]], dtype=L.uint8).expand(3, 3), L.tensor([[True, False, False], [False, False, True], [False, False, False]]), 7),
    "masked_fill_inplace_expanded": lambda L: L.zeros(1, 3).expand(2, 3).masked_fill_(L.tensor([[True, False, False], [False, True, False]]), 2.5),
    "mse_loss_bool_target": lambda L: L.nn.functional.mse_loss(L.ones(4, 3, dtype=L.float16), L.tensor([[True], [False], [True], [False]])),
    "add_bool_alpha": lambda L: (L.add(L.tensor([True, False]), L.tensor([True, True]), alpha=2), L.add(L.tensor([True, False]), L.tensor([True, True]), alpha=0)),
    "logcumsumexp_float32_first_exact": lambda L: L.logcumsumexp(L.tensor([0.0, 1.0, -2.0]), 0),
    "where_half_number_beyond_range": lambda L: L.where(L.tensor([True, False]), L.tensor([1.0, 2.0], dtype=L.float16), 1e5),
    "clamp_bool_one_tensor_bound": lambda L: L.clamp(L.tensor([True, False]), L.tensor([False])),
    "pow_bool_true_false": lambda L: (L.tensor([True, False]) ** True, L.tensor([True, False]) ** False),
    "pow_int_exponent_zero_one": lambda L: (L.tensor([3, 2], dtype=L.uint8) ** 0, L.tensor([3, 2], dtype=L.int8) ** 1),
    "mul_half_by_number_beyond_half": lambda L: L.tensor([0.82, 0.5], dtype=L.float16) * 70000.0,
    "div_half_by_number_beyond_half": lambda L: L.tensor([0.82, 0.5], dtype=L.float16) / 70000.0,
    "rmul_half_0d_number_beyond_half": lambda L: 70000 * L.tensor(0.82, dtype=L.float16),
    "hardswish_near_float32_range": lambda L: L.nn.functional.hardswish(L.tensor([6e37, 3e37, 4.0, 1e-40])),
    "hardswish_half_large": lambda L: L.nn.functional.hardswish(L.tensor([6e4, 4.0], dtype=L.float16)),
    "cosine_similarity_infinite_norm": lambda L: L.nn.functional.cosine_similarity(L.tensor([-0.0, 2.7]), L.tensor([-1.25e8, -9.8e37]), 0),
    "chunk_zero_size_dim": lambda L: L.chunk(L.zeros(0, 2, dtype=L.bool), 3, 0),
    "chunk_zero_size_dim_1": lambda L: L.ones(2, 0).chunk(4, 1),
    "getitem_0d_int8_index": lambda L: L.arange(5)[L.tensor(2, dtype=L.int8)],
    "getitem_0d_uint8_mask": lambda L: (L.arange(5)[L.tensor(1, dtype=L.uint8)], L.arange(5)[L.tensor(0, dtype=L.uint8)]),
    "getitem_0d_int64_index": lambda L: L.arange(6).reshape(2, 3)[L.tensor(1), L.tensor(-1)],
    "rsub_number": lambda L: (L.rsub(L.tensor([1, 2]), 5), L.rsub(L.tensor([1.5, 2.0]), 3, alpha=2), L.rsub(L.tensor([1, 2], dtype=L.uint8), 2.5)),
    "rsub_tensor": lambda L: L.rsub(L.tensor([1.0, 2.0]), L.tensor([[3.0], [4.0]]), alpha=0.5),
    "index_fill_dim1_negative_index": lambda L: L.arange(6.0).reshape(2, 3).index_fill(1, L.tensor([-1, 0]), -2.5),
    "index_fill_0d_index": lambda L: L.zeros(2, 3, dtype=L.int32).index_fill(-1, L.tensor(1), 7),
    "index_fill_inplace_transposed": lambda L: L.zeros(3, 2).t().index_fill_(0, L.tensor([1]), L.tensor(4.0)),
    "index_copy_rows": lambda L: L.zeros(4, 3).index_copy(0, L.tensor([3, 1]), L.arange(6.0).reshape(2, 3)),
    "index_copy_cols_int": lambda L: L.zeros(2, 4, dtype=L.int64).index_copy(1, L.tensor([0, 2]), L.ones(2, 2, dtype=L.int64)),
    "index_copy_0d": lambda L: L.tensor(1.0).index_copy(0, L.tensor([0]), L.tensor(5.0)),
    "index_copy_inplace": lambda L: L.zeros(3).index_copy_(0, L.tensor([2]), L.tensor([9.0])),
    "index_copy_function": lambda L: L.index_copy(L.zeros(2, 2), -1, L.tensor([1]), L.ones(2, 1)),
    "index_add_0d": lambda L: L.tensor(1.0).index_add(0, L.tensor([0]), L.tensor(2.0), alpha=3),
    "glu_zero_size_dim": lambda L: L.nn.functional.glu(L.zeros(3, 0), 1),
    "median_empty_ints": lambda L: tuple(L.zeros(0, dtype=d).median() for d in (L.int64, L.int32, L.int16, L.int8, L.uint8)),
    "median_empty_bool_transposed": lambda L: L.zeros(0, 2, dtype=L.bool).t().median(),
    "l1_loss_0d_float64_target": lambda L: L.nn.functional.l1_loss(L.tensor([0.5, -1.0], dtype=L.bfloat16), L.tensor(0.25, dtype=L.float64)),
    "mse_loss_0d_float64_target": lambda L: L.nn.functional.mse_loss(L.tensor([0.5, -1.0]), L.tensor(0.25, dtype=L.float64), reduction="none"),
    "smooth_l1_loss_half_bfloat16": lambda L: L.nn.functional.smooth_l1_loss(L.tensor([0.5, -1.0], dtype=L.float16), L.tensor(0.25, dtype=L.bfloat16)),
    "huber_loss_bool_target": lambda L: L.nn.functional.huber_loss(L.tensor([0.0, 3.0]), L.tensor([True, False]), reduction="none"),
    "soft_margin_loss_bool_target": lambda L: L.nn.functional.soft_margin_loss(L.tensor([0.0, 3.0]), L.tensor([True, False]), reduction="none"),
    "scatter_value_broadcast": lambda L: L.zeros(2, 4).scatter(1, L.tensor([[0, 3], [1, 1]]), 2.5),
    "scatter_value_keyword_inplace": lambda L: L.zeros(5, dtype=L.int32).scatter_(0, L.tensor([4, 0]), value=7),
    "scatter_0d_source_one_index": lambda L: L.zeros(3).scatter(0, L.tensor([1]), L.tensor(5.0)),
    "scatter_0d_everything": lambda L: L.tensor(1.0).scatter(0, L.tensor(0), L.tensor(4.0)),
    "rtruediv_is_reciprocal_times": lambda L: (3 / L.tensor([3.0, 7.0, 1e-42, 0.0]), False / L.tensor([-1e-42, 2.0]), 2.5 / L.tensor([3.0, 7.0], dtype=L.float16), 2 / L.tensor([3, 4])),
    "half_minus_int64_rounds_to_half": lambda L: L.tensor([float("inf"), 1.0], dtype=L.float16) - L.tensor([2**62, 70000]),
    "int16_plus_half_rounds": lambda L: L.tensor([32767, -2049], dtype=L.int16) + L.tensor([0.0, 0.0], dtype=L.float16),
    "float64_to_bfloat16_near_ties": lambda L: L.tensor([1.00390625 + 2**-30, 1.01171875, 3.0e38, -1.00390625 - 2**-40], dtype=L.float64).to(L.bfloat16),
    "int64_to_half": lambda L: L.tensor([2049, 65519, 65520, 2**40]).to(L.float16),
    "sqrt_complex64_near_range": lambda L: L.sqrt(L.tensor([1e38 + 1e38j, 3e38 + 0j, -3e38 + 1j, 2e38 - 3e38j], dtype=L.complex64)),
    "log1p_complex_small": lambda L: L.log1p(L.tensor([-9.9e-13 + 1.4e-13j, 1e-9 - 2e-9j, 0.3 + 0.1j], dtype=L.complex128)),
    "round_decimals_half_beyond_range": lambda L: L.round(L.tensor([5840.123, 17920.0, 60000.0, 1.23456], dtype=L.float16), decimals=2),
    "round_negative_decimals": lambda L: L.round(L.tensor([1234.5678, 1255.0, -1250.0]), decimals=-1),
    "lerp_complex": lambda L: (L.lerp(L.tensor([1 + 1j, 2]), L.tensor([3, 4j]), 0.5), L.lerp(L.tensor([1 + 1j, 2]), L.tensor([3, 4j]), L.tensor([0.25 + 1j, 2]))),
    "view_dtype_same_size": lambda L: L.tensor([1.0, -2.0, 0.5]).view(L.int32),
    "view_dtype_narrower": lambda L: L.tensor([[1.0, -2.0], [0.5, 3.0]]).view(L.int16),
    "view_dtype_wider": lambda L: L.arange(8, dtype=L.int32).reshape(2, 4).view(L.float64),
    "view_dtype_complex_to_float": lambda L: L.tensor([1 + 2j, 3 - 4j]).view(L.float32),
    "index_fill_all_empty": lambda L: (L.zeros(2, 0, 0).index_fill(2, L.tensor([0, 1, 2]), -4), L.zeros(2, 0, 3).index_fill(2, L.tensor([5]), 1)),
    "float_power_complex_with_float": lambda L: L.float_power(L.tensor([1 + 1j, 2 - 0.5j], dtype=L.complex64), L.tensor([2.0, 0.5])),
    "roll_empty_any_dim": lambda L: L.zeros(1, 0, 0, dtype=L.uint8).roll(0, 3),
    "pad_to_empty_skips_value": lambda L: L.nn.functional.pad(L.zeros(2, 4, 2, 2, dtype=L.uint8), [-1, -1, 0, -1, -1, 0], value=float("inf")),
    "setitem_half_one_element_rounds_int": lambda L: _setitem(L.zeros(7, dtype=L.float16), -1, 2**63 - 1),
    "einsum_empty_expanded": lambda L: L.einsum("ij,jk->ik", L.zeros(1, 7, dtype=L.int64).expand(0, 7), L.ones(1, 7, dtype=L.int64).expand(7, 7)),
    "einsum_broadcast_batch": lambda L: L.einsum("bij,bjk->bik", L.ones(1, 2, 3), L.arange(30.0).reshape(5, 3, 2)),
    "sub_complex_nonfinite": lambda L: L.tensor([1 + 2j, 3 + 4j, 1 + 1j]) - L.tensor([complex(float("nan"), 0), complex(float("inf"), 0), 2 - 1j]),
    "new_ones_0d_and_legacy_empty": lambda L: (L.ones(2).new_ones(()), L.ones(2).new_zeros([]), L.FloatTensor()),
    "pad_crop_only_skips_value": lambda L: L.nn.functional.pad(L.arange(9, dtype=L.uint8).reshape(1, 3, 3), [-1, -1], value=float("nan")),
    "adaptive_max_pool_empty_batch": lambda L: (L.nn.functional.adaptive_max_pool1d(L.ones(0, 3, 4), 2), L.nn.functional.adaptive_max_pool2d(L.ones(0, 3, 4, 4), 2, return_indices=True)),
    "hinge_embedding_loss_int": lambda L: (L.nn.functional.hinge_embedding_loss(L.tensor([-2, 0, 1, 3], dtype=L.int8), L.tensor([-1, -1, -1, 1], dtype=L.int8), margin=1.5, reduction="none"), L.nn.functional.hinge_embedding_loss(L.tensor([-2, 0, 1, 3], dtype=L.int8), L.tensor([-1, -1, -1, 1], dtype=L.int8), margin=2.7, reduction="sum")),
    "conv1d_int64": lambda L: L.nn.functional.conv1d(L.arange(10, dtype=L.int64).reshape(1, 2, 5), L.arange(12, dtype=L.int64).reshape(3, 2, 2), stride=2, padding=1),
    "conv2d_int32_bias_groups": lambda L: L.nn.functional.conv2d(L.arange(100, dtype=L.int32).reshape(1, 4, 5, 5), L.arange(32, dtype=L.int32).reshape(4, 2, 2, 2) - 10, L.arange(4, dtype=L.int32), groups=2),
    "conv3d_int16": lambda L: L.nn.functional.conv3d(L.arange(54, dtype=L.int16).reshape(1, 2, 3, 3, 3), L.ones(1, 2, 2, 2, 2, dtype=L.int16)),
    "tanh_complex_large_real": lambda L: L.tanh(L.tensor([30 + 0.5j, -1e300 + 2j, 1 + 1j], dtype=L.complex128)),
    "add_complex_nonfinite_both_orders": lambda L: (L.tensor([1 + 2j]) + float("-inf"), float("-inf") + L.tensor([1 + 2j]), L.tensor([1], dtype=L.int8) + L.tensor([complex(float("-inf"), -1.8)])),
    "rsub_number_into_half": lambda L: (70000.0 - L.tensor([float("inf"), 1.0], dtype=L.float16), 2.5 - L.tensor([1.0], dtype=L.bfloat16)),
    "lerp_0d_weight_promotes": lambda L: (L.lerp(L.tensor([1, 2], dtype=L.int8), L.tensor(3, dtype=L.int8), L.tensor(0.5)), L.lerp(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]), L.tensor(0.25, dtype=L.float64))),
    "cumprod_complex": lambda L: L.tensor([[1 + 1j, 2 - 1j, 0.5j], [0j, 1 + 0j, 3 - 2j]], dtype=L.complex128).cumprod(1),
    "log_softmax_empty_complex": lambda L: L.zeros(5, 0, dtype=L.complex64).log_softmax(1),
    "cummax_empty_complex": lambda L: L.cummax(L.zeros(4, 5, 0, dtype=L.complex128), 1),
    "tensordot_bool_empty": lambda L: (L.tensordot(L.ones(2, 0, dtype=L.bool), L.ones(0, 3, dtype=L.bool), dims=1), L.tensordot(L.ones(0, 2, dtype=L.bool), L.ones(2, 3, dtype=L.bool), dims=1)),
}


def test_scatter_gradients_vs_torch() -> None:
    """The input's gradient is zero where scatter wrote (once a read of memory past a 0-d zero)."""
    grads = []
    for L in (torch, pt):
        a = L.arange(1.0, 7.0, dtype=L.float64).reshape(2, 3).requires_grad_()
        src = L.full((2, 2), 3.0, dtype=L.float64, requires_grad=True)
        out = a.scatter(1, L.tensor([[0, 2], [1, 1]]), src)
        out.backward(L.arange(6.0, dtype=L.float64).reshape(2, 3) + 1)
        grads.append((a.grad, src.grad))
    for ours, theirs in zip(grads[0], grads[1]):
        _compare(ours, theirs, "float64", "scatter grad")


def _setitem(t: Any, i: Any, v: Any) -> Any:
    t[i] = v
    return t


def test_sum_float64_partial_overflow_is_finite() -> None:
    # PyTorch's partial sums overflow to inf here; the sum is representable and ours gives it.
    values = [1e308, 1e308, -1.5e308, 5e307, -2e307]
    assert torch.tensor(values, dtype=torch.float64).sum().item() == float(sum(map(Fraction, values)))


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_fuzzer_edge_cases_vs_torch(name: str) -> None:
    fn = EDGE_CASES[name]
    _compare(fn(torch), fn(pt), "float64", name)


def test_complex_cumprod_gradients() -> None:
    """Complex cumprod (a product per position) against PyTorch's gradient and a gradcheck."""
    src = np.array([[1 + 1j, 2 - 1j, 0.5j], [0.3 - 0.2j, 1 + 0j, 3 - 2j]])
    a, b = torch.tensor(src, requires_grad=True), pt.tensor(src, requires_grad=True)
    w = np.array([[1 - 1j, 2j, 0.5], [1, -1j, 2 + 1j]])
    (a.cumprod(1) * torch.tensor(w)).real.sum().backward()
    (b.cumprod(1) * pt.tensor(w)).real.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)
    assert torch.autograd.gradcheck(lambda t: t.cumprod(1), (torch.tensor(src, requires_grad=True),))

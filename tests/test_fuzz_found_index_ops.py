"""Mismatches the differential fuzzer found in index, padding, searching and order-statistic ops
(scatter_reduce_/put_/index_reduce/index_fill/slice_scatter, block_diag, F.pad and constant
padding, cumulative_trapezoid, searchsorted/bucketize, histc, nanmedian, nanquantile), each
checked against PyTorch: the same result (dtype, shape, values), or both raising with our
exception an instance of PyTorch's class. Most are about which error comes first (PyTorch's
order of checks), empty or expanded (stride-0) tensors, complex and bool dtypes, and Python
numbers a dtype cannot hold."""

from __future__ import annotations

import math
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch.nn.modules.padding import constant_pad_scalar
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch

Case = Tuple[str, Callable[[Any], Any]]


def _run(L: Any, fn: Callable[[Any], Any]) -> Tuple[str, Any]:
    try:
        return "ok", fn(L)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return "raise", e


def _values(t: Any) -> np.ndarray:
    t = t.detach()
    name = str(t.dtype).split(".")[-1]
    if name in ("float16", "bfloat16"):
        t = t.float()
    if name.startswith("complex"):
        return np.array(t.tolist(), dtype=np.complex128).reshape(tuple(t.shape))
    return np.array(t.tolist()).reshape(tuple(t.shape))


def _same_result(ours: Any, theirs: Any, what: str) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), f"{what}: {ours!r} vs torch {theirs!r}"
        for a, b in zip(ours, theirs):
            _same_result(a, b, what)
        return
    assert isinstance(ours, torch.Tensor), f"{what}: ours is {type(ours).__name__}"
    dt_o, dt_t = str(ours.dtype).split(".")[-1], str(theirs.dtype).split(".")[-1]
    assert dt_o == dt_t, f"{what}: dtype {dt_o} vs torch {dt_t}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    a, b = _values(ours), _values(theirs)
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        rtol = {"float32": 1e-6, "complex64": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}.get(dt_t, 1e-12)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0, equal_nan=True, err_msg=what)


def check(fn: Callable[[Any], Any], what: str = "") -> None:
    """``fn(L)`` run with L = ferrotorch and L = PyTorch gives the same result, or both raise
    with ours an instance of PyTorch's (builtin) exception class."""
    same_outcome(_run(torch, fn), _run(pt, fn), what)


def same_outcome(ours_run: Tuple[str, Any], theirs_run: Tuple[str, Any], what: str = "") -> None:
    """Two ``_run`` outcomes agree (see ``check``)."""
    (k_o, ours), (k_t, theirs) = ours_run, theirs_run
    if k_t == "raise":
        assert k_o == "raise", f"{what}: torch raised {type(theirs).__name__}: {theirs}; ours gave {ours!r}"
        base = next(c for c in type(theirs).__mro__ if c.__module__ == "builtins")
        assert isinstance(ours, base), f"{what}: ours {type(ours).__name__}: {ours}; torch {type(theirs).__name__}: {theirs}"
        return
    assert k_o == "ok", f"{what}: ours raised {type(ours).__name__}: {ours}; torch gave {theirs!r}"
    _same_result(ours, theirs, what)


def _params(cases: List[Case]) -> Any:
    return pytest.mark.parametrize("fn", [c[1] for c in cases], ids=[c[0] for c in cases])


# ---------------------------------------------------------------------------------------------
# scatter_reduce_ / put_: dtype errors before index bounds; empty expanded self is writable

SCATTER_CASES: List[Case] = [
    ("bool_mean_bad_index", lambda L: L.zeros(3, dtype=L.bool).scatter_reduce_(0, L.tensor([0, 4, 1]), L.ones(3, dtype=L.bool), "mean")),
    ("bool_mean_empty_index", lambda L: L.zeros(3, dtype=L.bool).scatter_reduce_(0, L.tensor([], dtype=L.int64), L.ones(3, dtype=L.bool), "mean")),
    ("complex_amax", lambda L: L.zeros(1, 2, dtype=L.complex64).scatter_reduce_(1, L.tensor([[1]]), L.ones(1, 2, dtype=L.complex64), "amax")),
    ("complex_amin_bad_index", lambda L: L.zeros(3, dtype=L.complex64).scatter_reduce_(0, L.tensor([7]), L.ones(3, dtype=L.complex64), "amin")),
    ("complex_amax_empty_index", lambda L: L.zeros(3, dtype=L.complex64).scatter_reduce_(0, L.tensor([], dtype=L.int64), L.ones(3, dtype=L.complex64), "amax")),
    ("complex_amax_out_of_place", lambda L: L.scatter_reduce(L.zeros(3, dtype=L.complex128), 0, L.tensor([1]), L.ones(3, dtype=L.complex128), "amax")),
    ("complex_sum_bad_index", lambda L: L.zeros(3, dtype=L.complex64).scatter_reduce_(0, L.tensor([5]), L.ones(3, dtype=L.complex64), "sum")),
    ("complex_prod", lambda L: L.ones(3, dtype=L.complex64).scatter_reduce(0, L.tensor([0, 0, 2]), L.tensor([1j, 2, 3], dtype=L.complex64), "prod")),
    ("complex_mean", lambda L: L.ones(3, dtype=L.complex64).scatter_reduce(0, L.tensor([0, 0, 2]), L.tensor([1j, 2, 3], dtype=L.complex64), "mean")),
    ("expanded_empty_self", lambda L: L.zeros(1, 3, 7, 0, dtype=L.float64).expand(5, 3, 7, 0).scatter_reduce_(0, L.zeros(4, 0, 4, 1, dtype=L.int64), L.zeros(5, 3, 7, 0, dtype=L.float64), "sum")),
    ("expanded_empty_complex_max", lambda L: L.zeros(2, 1, 0, 0, dtype=L.complex128).expand(2, 4, 0, 0).scatter_reduce_(-3, L.zeros(2, 2, 0, 0, dtype=L.int64), L.zeros(2, 4, 0, 0, dtype=L.complex128), "amax")),
    ("expanded_self_refused", lambda L: L.zeros(1, 3).expand(4, 3).scatter_reduce_(0, L.zeros(1, 3, dtype=L.int64), L.ones(4, 3), "sum")),
    ("float_amax_values", lambda L: L.tensor([1.0, -2.0, 3.0]).scatter_reduce(0, L.tensor([0, 0, 2]), L.tensor([5.0, -1.0, 0.5]), "amax", include_self=False)),
    ("put_expanded_empty", lambda L: L.zeros(0, 1, 1, 3).expand(0, 2, 1, 3).put_(L.tensor([], dtype=L.int64), L.ones(0), accumulate=True)),
    ("put_expanded_refused", lambda L: L.zeros(1, 3).expand(4, 3).put_(L.tensor([1]), L.ones(1))),
    ("put_values", lambda L: L.zeros(2, 3).put_(L.tensor([1, -1, 1]), L.tensor([1.0, 2.0, 3.0]), accumulate=True)),
]


def _idx(L: Any, *shape: int) -> Any:
    return L.zeros(*shape, dtype=L.int64)


# Shape checks: sizes against self, then against src (a src with fewer dims is read out of
# range: IndexError), then src's rank, then the sizes' error.
SCATTER_SHAPE_CASES: List[Case] = [
    (f"{name}_{r}", (lambda f, r: lambda L: f(L, r))(f, r))
    for r in ("sum", "amax", "max", "mean")
    for name, f in (
        ("src_more_dims", lambda L, r: L.zeros(2, 2).scatter_reduce(0, _idx(L, 1, 1), L.ones(3, 3, 3), r)),
        ("src_0d", lambda L, r: L.zeros(2, 2).scatter_reduce(0, _idx(L, 1, 1), L.ones(()), r)),
        ("src_1d_dim1", lambda L, r: L.zeros(2, 2).scatter_reduce(1, _idx(L, 1, 3), L.ones(1), r)),
        ("index_too_big_src_1d", lambda L, r: L.zeros(2, 2).scatter_reduce(1, _idx(L, 3, 1), L.ones(1), r)),
        ("src_1d_dim0", lambda L, r: L.zeros(2, 2).scatter_reduce(0, _idx(L, 1, 1), L.ones(1), r)),
        ("index_1d", lambda L, r: L.zeros(2, 2).scatter_reduce(0, _idx(L, 1), L.ones(1), r)),
        ("3d_src_1d", lambda L, r: L.zeros(2, 5, 5, dtype=L.int32).scatter_reduce(1, _idx(L, 2, 4, 2), L.ones(4, dtype=L.int32), r)),
        ("self_0d", lambda L, r: L.zeros(()).scatter_reduce(0, _idx(L, 1), L.ones(3), r)),
        ("all_0d", lambda L, r: L.zeros(()).scatter_reduce(0, _idx(L), L.ones(()), r)),
        ("index_0d", lambda L, r: L.zeros(3).scatter_reduce(0, _idx(L), L.ones(()), r)),
        ("src_2d_index_1d", lambda L, r: L.zeros(3).scatter_reduce(0, _idx(L, 2), L.ones(2, 2), r)),
        ("index_wide_src_1d", lambda L, r: L.zeros(3, 1).scatter_reduce(0, _idx(L, 2, 2), L.ones(2), r)),
        ("bad_dim", lambda L, r: L.zeros(3, 1).scatter_reduce(5, _idx(L, 2, 2), L.ones(2), r)),
        ("float_index", lambda L, r: L.zeros(3, 1).scatter_reduce(0, _idx(L, 2, 1).float(), L.ones(2), r)),
        ("src_dtype", lambda L, r: L.zeros(3, 1).scatter_reduce(0, _idx(L, 2, 1), L.ones(2, dtype=L.float64), r)),
        ("bad_index_value", lambda L, r: L.zeros(3, 1).scatter_reduce(0, _idx(L, 2, 1) + 7, L.ones(2, 1), r)),
        ("bad_index_value_src_1d", lambda L, r: L.zeros(3, 1).scatter_reduce(0, _idx(L, 2, 1) + 7, L.ones(2), r)),
    )
]


@_params(SCATTER_CASES + SCATTER_SHAPE_CASES)
def test_scatter_and_put(fn: Callable[[Any], Any]) -> None:
    check(fn)


# ---------------------------------------------------------------------------------------------
# index_reduce: argument checks first, then the kernels' dtype dispatch, then the index values

def _index_reduce_case(dtype: str, ndim: int, reduce: str, include_self: bool, idx: List[int]) -> Callable[[Any], Any]:
    def fn(L: Any) -> Any:
        dt = getattr(L, dtype)
        x = L.arange(3 ** ndim).reshape((3,) * ndim).to(dt)
        src = (L.arange(len(idx) * 3 ** (ndim - 1)).reshape((len(idx),) + (3,) * (ndim - 1)) + 1).to(dt)
        return x.index_reduce(0, L.tensor(idx, dtype=L.int64), src, reduce, include_self=include_self)

    return fn


INDEX_REDUCE_CASES: List[Case] = [
    (f"{dt}_{nd}d_{r}_{'self' if inc else 'noself'}_{'-'.join(map(str, idx)) or 'empty'}", _index_reduce_case(dt, nd, r, inc, idx))
    for dt in ("complex64", "bool", "float32", "int16")
    for nd in (1, 2)
    for r in ("prod", "mean", "amax", "amin")
    for inc in (True, False)
    for idx in ([0, 2], [0, 5], [])
]

INDEX_REDUCE_CHECKS: List[Case] = [
    (f"zero_d_source_dim{d}_n{n}_{shape}", (lambda d, n, shape: lambda L: L.zeros(shape).index_reduce(d, L.zeros(n, dtype=L.int64), L.tensor(1.0), "prod"))(d, n, shape))
    for shape in ((4, 5, 1), (4,))
    for d in (0, 1, 2, -1)
    for n in (1, 3)
] + [
    ("dtype_before_count", lambda L: L.zeros(4, 5).index_reduce(0, L.zeros(3, dtype=L.int64), L.ones(2, 5, dtype=L.float64), "prod")),
    ("shape_mismatch", lambda L: L.zeros(4, 5).index_reduce(0, L.zeros(3, dtype=L.int64), L.ones(3, 4), "prod")),
    ("complex_1d_shape_mismatch", lambda L: L.zeros(3, dtype=L.complex64).index_reduce(0, L.tensor([0, 1]), L.ones(2, 2, dtype=L.complex64), "prod")),
    ("bad_reduce", lambda L: L.zeros(4, 5).index_reduce(0, L.zeros(3, dtype=L.int16), L.ones(3, 4), "foo")),
    ("bf16_0d_source_dim2", lambda L: L.zeros(4, 5, 1, dtype=L.bfloat16).index_reduce(2, L.tensor([0, 3, 1]), L.tensor(1.0, dtype=L.bfloat16), "prod")),
]


@_params(INDEX_REDUCE_CASES + INDEX_REDUCE_CHECKS)
def test_index_reduce(fn: Callable[[Any], Any]) -> None:
    check(fn)


# ---------------------------------------------------------------------------------------------
# index_fill: a complex value into a non-complex tensor is refused before the dim and the
# index values; a 0-d complex tensor value too; complex64 refuses out-of-range values

INDEX_FILL_CASES: List[Case] = [
    (f"{dt}_{name}", (lambda dt, f: lambda L: f(L, L.zeros(3, 3, dtype=getattr(L, dt))))(dt, f))
    for dt in ("bool", "float32", "int64", "float16", "complex64")
    for name, f in (
        ("complex", lambda L, x: x.index_fill(1, L.tensor([0, 1]), 2j)),
        ("complex_bad_index", lambda L, x: x.index_fill(1, L.tensor([0, 5]), 2j)),
        ("complex_zero_imag", lambda L, x: x.index_fill(1, L.tensor([0, 1]), 2 + 0j)),
        ("complex_tensor_value", lambda L, x: x.index_fill(1, L.tensor([0, 1]), L.tensor(2j))),
        ("complex_empty_index", lambda L, x: x.index_fill(1, L.tensor([], dtype=L.int64), 2j)),
        ("complex_bad_dim", lambda L, x: x.index_fill(5, L.tensor([0, 1]), 2j)),
        ("huge_float", lambda L, x: x.index_fill(1, L.tensor([0, 1]), 1e300)),
        ("huge_float_bad_dim", lambda L, x: x.index_fill(5, L.tensor([0, 1]), 1e300)),
        ("huge_float_bad_index", lambda L, x: x.index_fill(0, L.tensor([0, 7]), 1e300)),
        ("float_index", lambda L, x: x.index_fill(5, L.tensor([0.0, 1.0]), 2j)),
        ("matrix_index", lambda L, x: x.index_fill(0, L.tensor([[0, 1]]), 2j)),
        ("vector_value", lambda L, x: x.index_fill(0, L.tensor([0, 1]), L.tensor([1.0, 2.0]))),
        ("tensor_value", lambda L, x: x.index_fill(0, L.tensor([0, -1]), L.tensor(2.5, dtype=L.float64))),
        ("inf", lambda L, x: x.index_fill(0, L.tensor([0, 1]), math.inf)),
        ("in_place_complex", lambda L, x: x.index_fill_(1, L.tensor([0, 1]), 2j)),
    )
] + [
    ("bool_expanded_index_complex", lambda L: L.zeros(4, 3, 3, dtype=L.bool).index_fill(2, L.tensor([3]).expand(5), -2j)),
    ("bool_0d_complex", lambda L: L.zeros((), dtype=L.bool).index_fill(0, L.tensor([0]), 2j)),
    ("bool_0d_float", lambda L: L.zeros((), dtype=L.bool).index_fill(0, L.tensor([0]), 2.5)),
    ("uint8_minus_one", lambda L: L.zeros(3, dtype=L.uint8).index_fill(0, L.tensor([0, 1]), -1)),
    ("int8_overflow", lambda L: L.zeros(3, dtype=L.int8).index_fill(0, L.tensor([0, 1]), 200)),
    ("complex64_huge_imag", lambda L: L.zeros(3, dtype=L.complex64).index_fill(0, L.tensor([0, 1]), 1e300j)),
    ("torch_function_form", lambda L: L.index_fill(L.zeros(2, 3), 1, L.tensor([2]), -1.5)),
    ("int_2_64_bool_index", lambda L: L.zeros(0, 4, 3, 0, dtype=L.int8).index_fill(-2, L.zeros(0, dtype=L.bool), 2**64)),
    ("int_below_int64", lambda L: L.zeros(3).index_fill(0, L.tensor([0]), -(2**63) - 1)),
    ("int_2_64_minus_1_float", lambda L: L.zeros(3).index_fill(0, L.tensor([0]), 2**64 - 1)),
]


@_params(INDEX_FILL_CASES)
def test_index_fill(fn: Callable[[Any], Any]) -> None:
    check(fn)


def test_index_fill_gradient_flows() -> None:
    x = torch.ones(2, 3, requires_grad=True)
    x.index_fill(1, torch.tensor([0]), 5.0).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]


# ---------------------------------------------------------------------------------------------
# slice_scatter: a 0-d input, then the dim, then the step

SLICE_SCATTER_CASES: List[Case] = [
    ("bad_dim_negative_step", lambda L: L.slice_scatter(L.zeros(3), L.zeros(3), 1, -5, 1, -1)),
    ("negative_step", lambda L: L.slice_scatter(L.zeros(3), L.zeros(3), 0, -5, 1, -1)),
    ("zero_step", lambda L: L.slice_scatter(L.zeros(3), L.zeros(3), 0, -5, 1, 0)),
    ("zero_d_input", lambda L: L.slice_scatter(L.zeros(()), L.zeros(5), 0, -5, 1, 1)),
    ("values", lambda L: L.slice_scatter(L.zeros(2, 5), L.ones(2, 2), 1, 1, 5, 2)),
]


@_params(SLICE_SCATTER_CASES)
def test_slice_scatter(fn: Callable[[Any], Any]) -> None:
    check(fn)


# ---------------------------------------------------------------------------------------------
# block_diag: PyTorch's result_type, where a 0-d tensor counts only from a higher category

BLOCK_DIAG_DTYPES = [
    ((2,), "int32", (), "int64"),
    ((1,), "uint8", (), "int16"),
    ((1, 5), "bfloat16", (), "float16"),
    ((5, 3), "int16", (), "int32"),
    ((2,), "int32", (), "float64"),
    ((2,), "int32", (), "bool"),
    ((), "int32", (), "int64"),
    ((0,), "int32", (), "float32"),
    ((2,), "float16", (), "float64"),
    ((2,), "uint8", (), "int8"),
    ((2,), "float32", (), "complex128"),
    ((2, 2), "int8", (3,), "int16"),
]


@pytest.mark.parametrize("sa,da,sb,db", BLOCK_DIAG_DTYPES)
def test_block_diag_dtype(sa: tuple, da: str, sb: tuple, db: str) -> None:
    check(lambda L: L.block_diag(L.full(sa, -3).to(getattr(L, da)), L.full(sb, 2).to(getattr(L, db))), f"{da}{sa} {db}{sb}")


def test_block_diag_three_inputs() -> None:
    check(lambda L: L.block_diag(L.tensor(1, dtype=L.int32), L.tensor(3.0), L.ones(1, dtype=L.int8)))


# ---------------------------------------------------------------------------------------------
# F.pad (constant): the value is a float, converted (and refused where the dtype cannot hold
# it) exactly when some amount is positive, even where the input or result is empty

PAD_SHAPES = [(2, 3), (0, 3), (2, 0), (1, 1)]
PAD_AMOUNTS = [(0, 0), (1, 0), (-1, 0), (0, 0, -1, 0), (0, 0, 1, 0), (-1, 1), (1, -1), (0, 0, -1, 1), (-3, 0), (1, -4)]
PAD_VALUES = [math.inf, -1.0, 2.0**63, 0.5]


@pytest.mark.parametrize("shape", PAD_SHAPES)
@pytest.mark.parametrize("amounts", PAD_AMOUNTS)
@pytest.mark.parametrize("value", PAD_VALUES)
def test_pad_constant_value_check(shape: tuple, amounts: tuple, value: float) -> None:
    check(lambda L: L.nn.functional.pad(L.zeros(shape, dtype=L.uint8), list(amounts), value=value))


PAD_CASES: List[Case] = [
    ("expanded_empty_int64_inf", lambda L: L.nn.functional.pad(L.zeros(1, 7, 4, 0, dtype=L.int64).expand(0, 7, 4, 0), [0, 2, 0, 1], value=math.inf)),
    ("crop_to_empty_inf", lambda L: L.nn.functional.pad(L.ones(1, 1, 1, dtype=L.int64), [0, 0, 0, -1, 0, 2], value=math.inf)),
    ("complex_value", lambda L: L.nn.functional.pad(L.zeros(2, 3), [0, 0], value=2j)),
    ("complex_value_crop", lambda L: L.nn.functional.pad(L.zeros(2, 3), [-1, 0], value=2j)),
    ("int64_big_int_value", lambda L: L.nn.functional.pad(L.zeros(2, dtype=L.int64), [1, 0], value=2**63 - 1)),
    ("int64_2_53_plus_1", lambda L: L.nn.functional.pad(L.zeros(2, dtype=L.int64), [1, 0], value=2**53 + 1)),
    ("bool_value", lambda L: L.nn.functional.pad(L.zeros(2, dtype=L.uint8), [1, 0], value=True)),
    ("float_values", lambda L: L.nn.functional.pad(L.arange(6.0).reshape(2, 3), [1, 2, -1, 1], value=-0.5)),
    ("half_values", lambda L: L.nn.functional.pad(L.arange(6.0).reshape(2, 3).half(), [2, 0], value=1e5)),
    ("int_truncates", lambda L: L.nn.functional.pad(L.zeros(2, dtype=L.int32), [1, 1], value=2.7)),
]


@_params(PAD_CASES)
def test_pad_constant(fn: Callable[[Any], Any]) -> None:
    check(fn)


def test_pad_constant_gradient() -> None:
    x = torch.arange(6.0).reshape(2, 3).requires_grad_(True)
    torch.nn.functional.pad(x, [1, 2, -1, 0]).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


# The constant padding with a Scalar value (what torch.constant_pad_nd takes: an int stays
# exact, a complex fills a bool tensor), against PyTorch's constant_pad_nd.
CONSTANT_PAD_ND = [
    ((5,), "bool", [2, 1], -2j),
    ((5,), "bool", [1, 1], 0j),
    ((2, 2, 4), "int64", [-1, 1, 0, -1, 0, 1], 2**63 - 1),
    ((2, 2), "int64", [0, 0, 0, -1], 2**63 - 1),
    ((2,), "int64", [1, 0], 2**53 + 1),
    ((2,), "float32", [1, 0], 2j),
    ((2,), "int32", [1, 0], 2j),
    ((2,), "int32", [1, 0], 2.7),
    ((2,), "int32", [1, 0], True),
    ((2,), "complex64", [1, 0], 2j),
    ((2,), "uint8", [1, 0], -1),
    ((0,), "uint8", [1, 0], -1.0),
    ((0, 3), "uint8", [-1, 1], 300),
    ((2, 3), "uint8", [-1, 0], 300),
]


@pytest.mark.parametrize("shape,dtype,amounts,value", CONSTANT_PAD_ND)
def test_constant_pad_scalar(shape: tuple, dtype: str, amounts: list, value: Any) -> None:
    base = pt.arange(math.prod(shape)).reshape(shape).to(getattr(pt, dtype))
    ours = _run(torch, lambda L: constant_pad_scalar(to_ft(base), amounts, value))
    same_outcome(ours, _run(pt, lambda L: L.constant_pad_nd(base, amounts, value)), f"{dtype}{shape} {amounts} {value}")


# ---------------------------------------------------------------------------------------------
# cumulative_trapezoid: with x, the dim comes before the bool check; with dx, the bool check,
# dx, then the dim; complex64 accumulates in complex128

Y = lambda L: L.zeros(3)  # noqa: E731
CUMULATIVE_TRAPEZOID_CASES: List[Case] = [
    ("bool_y_bad_dim", lambda L: L.cumulative_trapezoid(L.zeros(3, dtype=L.bool), L.zeros(3), dim=5)),
    ("bool_x_bad_dim", lambda L: L.cumulative_trapezoid(Y(L), L.zeros(3, dtype=L.bool), dim=5)),
    ("bool_x", lambda L: L.cumulative_trapezoid(Y(L), L.zeros(3, dtype=L.bool), dim=0)),
    ("zero_d_y_bad_dim", lambda L: L.cumulative_trapezoid(L.zeros(()), L.zeros(3), dim=5)),
    ("zero_d_y_vector_x", lambda L: L.cumulative_trapezoid(L.zeros(()), L.zeros(3), dim=0)),
    ("zero_d_bool_y", lambda L: L.cumulative_trapezoid(L.zeros((), dtype=L.bool), L.zeros(3), dim=0)),
    ("zero_d_bool_y_bad_dim", lambda L: L.cumulative_trapezoid(L.zeros((), dtype=L.bool), L.zeros(3), dim=3)),
    ("zero_d_both", lambda L: L.cumulative_trapezoid(L.zeros(()), L.zeros(()), dim=0)),
    ("bool_y_dx", lambda L: L.cumulative_trapezoid(L.zeros(3, dtype=L.bool), dim=5)),
    ("bool_y_complex_dx", lambda L: L.cumulative_trapezoid(L.zeros(3, dtype=L.bool), dx=2j, dim=5)),
    ("complex_dx_bad_dim", lambda L: L.cumulative_trapezoid(Y(L), dx=2j, dim=5)),
    ("zero_d_complex_dx", lambda L: L.cumulative_trapezoid(L.zeros(()), dx=2j, dim=5)),
    ("zero_d_dx", lambda L: L.cumulative_trapezoid(L.zeros(()), dim=0)),
    ("x_length", lambda L: L.cumulative_trapezoid(Y(L), L.zeros(4), dim=0)),
    ("5d_bool_x_bad_dim", lambda L: L.cumulative_trapezoid(L.zeros(1, 1, 3, 7, dtype=L.bool), L.zeros(1, 1, 1, 3, 7, dtype=L.bool), dim=4)),
    ("bool_1d_x_bad_negative_dim", lambda L: L.cumulative_trapezoid(L.zeros(2, 2, 3, dtype=L.int64), L.zeros(7, dtype=L.bool), dim=-4)),
    ("int_values", lambda L: L.cumulative_trapezoid(L.tensor([1, 4, 2], dtype=L.int32), L.tensor([0, 1, 3], dtype=L.int8), dim=0)),
]


@_params(CUMULATIVE_TRAPEZOID_CASES)
def test_cumulative_trapezoid(fn: Callable[[Any], Any]) -> None:
    check(fn)


def test_cumulative_trapezoid_complex64_accumulates_in_complex128() -> None:
    # The fuzzer's case: a running sum back to zero, where float32 accumulation gives exactly 0
    # and PyTorch's complex128 accumulation leaves the rounding residue of the float32 terms.
    rng = np.random.default_rng(1)
    re = np.round(rng.uniform(-3, 3, (1, 3, 3)))
    y = (re + 1j * rng.uniform(-3, 3, (1, 3, 3))).astype(np.complex64)
    x = np.random.default_rng(344).integers(-3, 4, (7, 1, 1)).astype(np.int8)
    check(lambda L: L.cumulative_trapezoid(L.from_numpy(y.copy()).expand(7, 3, 3), L.from_numpy(x.copy()), dim=0))


# ---------------------------------------------------------------------------------------------
# searchsorted/bucketize: a Python number takes the sequence's dtype (wrapped, as a C++ cast);
# an empty input never reaches the comparison (which complex lacks)

SEARCH_DTYPES = ("uint8", "int8", "int32", "int64", "float16", "float32", "bool", "bfloat16")
SEARCH_VALUES = (-4, 2147483648, 2.5, 300, True, 1e10, math.nan, -1, 2**63 - 1, 2**63 + 5, 255.9, 131008.0)


@pytest.mark.parametrize("dtype", SEARCH_DTYPES)
@pytest.mark.parametrize("value", SEARCH_VALUES, ids=repr)
@pytest.mark.parametrize("right", (False, True))
def test_searchsorted_scalar(dtype: str, value: Any, right: bool) -> None:
    check(lambda L: L.searchsorted(L.tensor([0.0, 1.0, 3.0, 100.0]).to(getattr(L, dtype)), value, right=right))


def test_bucketize_scalar_wraps() -> None:
    check(lambda L: L.bucketize(-1, L.tensor([0, 3, 200], dtype=L.uint8)))


SEARCH_TENSOR_CASES: List[Case] = [
    ("bucketize_empty_complex", lambda L: L.bucketize(L.zeros(1, 1, 0, dtype=L.complex64), L.zeros(0, dtype=L.float64), right=True)),
    ("bucketize_empty_complex_left", lambda L: L.bucketize(L.zeros(0, 1, dtype=L.complex64), L.zeros(1, dtype=L.float16))),
    ("bucketize_complex", lambda L: L.bucketize(L.zeros(2, dtype=L.complex64), L.zeros(1, dtype=L.float16))),
    ("searchsorted_empty_rows", lambda L: L.searchsorted(L.zeros(2, 0), L.zeros(2, 0, dtype=L.complex64))),
    ("searchsorted_no_boundaries", lambda L: L.searchsorted(L.zeros(2, 0), L.zeros(2, 3))),
    ("searchsorted_empty_int32", lambda L: L.searchsorted(L.zeros(2, 0), L.zeros(2, 0), out_int32=True)),
    ("bucketize_0d_int64_in_uint8", lambda L: L.bucketize(L.tensor(-2), L.tensor([3], dtype=L.uint8), right=True)),
    ("bucketize_1d_int64_in_uint8", lambda L: L.bucketize(L.tensor([-2]), L.tensor([3], dtype=L.uint8), right=True)),
    ("searchsorted_0d_float_in_int", lambda L: L.searchsorted(L.tensor([1, 2, 3]), L.tensor(2.5))),
    ("searchsorted_0d_int8_in_uint8", lambda L: L.searchsorted(L.tensor([1, 200], dtype=L.uint8), L.tensor(-1, dtype=L.int8))),
]


@_params(SEARCH_TENSOR_CASES)
def test_search_tensors(fn: Callable[[Any], Any]) -> None:
    check(fn)


# ---------------------------------------------------------------------------------------------
# histc: the bins and range checks first; bool fails making edges, complex taking the range

HISTC_DTYPES = ("complex64", "complex128", "int64", "bool", "int8", "float16", "float32")
HISTC_ARGS = [
    ("data_range", lambda x: (x, 3, 0.0, 0.0)),
    ("given_range", lambda x: (x, 3, 0.0, 1.0)),
    ("no_bins", lambda x: (x, 0, 0.0, 1.0)),
    ("min_above_max", lambda x: (x, 3, 2.0, 1.0)),
    ("empty", lambda x: (x[:0], 3, 0.0, 0.0)),
    ("infinite_range", lambda x: (x, 3, math.inf, math.inf)),
]


@pytest.mark.parametrize("dtype", HISTC_DTYPES)
@pytest.mark.parametrize("args", [a[1] for a in HISTC_ARGS], ids=[a[0] for a in HISTC_ARGS])
def test_histc(dtype: str, args: Callable[[Any], tuple]) -> None:
    check(lambda L: L.histc(*args(L.tensor([1.0, 0.25, 0.9]).to(getattr(L, dtype)))))


# ---------------------------------------------------------------------------------------------
# nanmedian: the dim, an empty reduced dim, then the dtype; no element at all gives NaN

NANMEDIAN_CALLS = [
    ("all", lambda L, x: L.nanmedian(x)),
    ("dim0", lambda L, x: x.nanmedian(0)),
    ("dim_last_keepdim", lambda L, x: x.nanmedian(-1, True)),
    ("bad_dim", lambda L, x: x.nanmedian(3, True)),
]


@pytest.mark.parametrize("dtype", ("complex64", "complex128", "bool", "float32"))
@pytest.mark.parametrize("shape", ((0, 3), (2, 3), (0,), ()))
@pytest.mark.parametrize("call", [c[1] for c in NANMEDIAN_CALLS], ids=[c[0] for c in NANMEDIAN_CALLS])
def test_nanmedian(dtype: str, shape: tuple, call: Callable[[Any, Any], Any]) -> None:
    check(lambda L: call(L, L.ones(shape, dtype=getattr(L, dtype))))


# ---------------------------------------------------------------------------------------------
# quantile/nanquantile: ranks in float64 from q as the input's dtype holds it

QUANTILE_QS = (1 / 3, 2 / 3, 0.7, 0.1, 1 / 7, 0.55, 0.9)
QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


@pytest.mark.parametrize("fn", ("quantile", "nanquantile"))
@pytest.mark.parametrize("q", QUANTILE_QS, ids=lambda q: f"{q:.4f}")
@pytest.mark.parametrize("mode", QUANTILE_MODES)
@pytest.mark.parametrize("dtype", ("float32", "float64"))
def test_quantile_ranks(fn: str, q: float, mode: str, dtype: str) -> None:
    rng = np.random.default_rng(int(q * 1000))
    for n in (7, 11, 12, 22):
        x = rng.normal(size=(3, n)).astype(dtype)
        if fn == "nanquantile":
            x[rng.random(x.shape) < 0.3] = np.nan
        for dim in (None, 1):
            check(lambda L: getattr(L, fn)(L.from_numpy(x.copy()), q, dim, interpolation=mode), f"n={n} dim={dim}")


# ---------------------------------------------------------------------------------------------
# The fuzzer's own cases (tests/fuzz/fuzz_case.py builds the same values and layouts)

FUZZ_CASES = [
    {"op": "nanquantile", "inputs": [{"shape": [2, 2, 3], "dtype": "float32", "layout": "flipped", "values": "special", "seed": 4678040}], "args": [0.7, None, "midpoint"]},
    {"op": "nanquantile", "inputs": [{"shape": [4, 4, 7], "dtype": "float32", "layout": "expanded", "values": "normal", "seed": 2302, "expand_dim": 1}], "args": [1 / 3, -3, "higher"]},
    {"op": "nanquantile", "inputs": [{"shape": [7], "dtype": "float32", "layout": "permuted", "values": "normal", "seed": 0}], "args": [1 / 3, None, "higher"]},
    {"op": "cumulative_trapezoid_x", "inputs": [{"shape": [7, 3, 3], "dtype": "complex64", "layout": "expanded", "values": "ints", "seed": 1, "expand_dim": 0}, {"shape": [7, 1, 1], "dtype": "int8", "layout": "permuted", "values": "normal", "seed": 344}], "args": [0]},
    {"op": "searchsorted_scalar", "inputs": [{"shape": [1], "dtype": "uint8", "layout": "transposed", "values": "normal", "seed": 134789}], "args": [-4]},
    {"op": "searchsorted_scalar", "inputs": [{"shape": [1], "dtype": "int8", "layout": "flipped", "values": "special", "seed": 0}], "args": [2147483648]},
    {"op": "scatter_reduce_", "inputs": [{"shape": [3], "dtype": "bool", "layout": "permuted", "values": "special", "seed": 176893}, {"shape": [3], "dtype": "int64", "layout": "permuted", "values": "index", "seed": 4159, "lo": -5, "hi": 5}, {"shape": [3], "dtype": "bool", "layout": "flipped", "values": "special", "seed": 3536660}], "args": [-1, "mean"]},
    {"op": "index_reduce", "inputs": [{"shape": [3, 5], "dtype": "complex64", "layout": "contiguous", "values": "ints", "seed": 772}, {"shape": [2], "dtype": "int64", "layout": "permuted", "values": "index", "seed": 3418, "lo": 0, "hi": 4}], "args": [0, "mean", False]},
    {"op": "index_fill", "inputs": [{"shape": [4, 3, 3], "dtype": "bool", "layout": "contiguous", "values": "normal", "seed": 1998797}, {"shape": [5], "dtype": "int64", "layout": "contiguous", "values": "index", "seed": 233, "lo": 0, "hi": 3}], "args": [2, {"complex": [0.0, -2.0]}]},
    {"op": "F.pad", "inputs": [{"shape": [2, 0, 3, 1], "dtype": "uint8", "layout": "expanded", "values": "special", "seed": 48658360, "expand_dim": 2}], "args": [[1, -1, 0, 1], -1.0]},
    {"op": "histc", "inputs": [{"shape": [4, 2, 2], "dtype": "complex128", "layout": "flipped", "values": "special", "seed": 841104}], "args": [3, math.inf, math.inf]},
    {"op": "nanmedian_dim", "inputs": [{"shape": [7, 7, 7], "dtype": "complex128", "layout": "flipped", "values": "extreme", "seed": 3}], "args": [3, True]},
]


@pytest.mark.parametrize("case", FUZZ_CASES, ids=[f"{c['op']}-{k}" for k, c in enumerate(FUZZ_CASES)])
def test_fuzz_case(case: dict) -> None:
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fuzz"))
    from fuzz_case import run_case

    run_case(case)

"""Splitting, arranging, taking/putting, scatter variants, *_copy functions and checks
(python/ferrotorch/_shape_and_index_ops.py and the modules it gathers) against PyTorch: values,
dtypes, shapes, views, exception classes, gradients and float64 gradcheck."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch

RNG = np.random.default_rng(11)
DTYPES = ("float32", "float64", "int64", "bool")


def _arr(shape, dtype="float64", low=-4, high=5):
    a = RNG.integers(low, high, size=shape)
    return a.astype(np.bool_ if dtype == "bool" else dtype)


def _pair(a: np.ndarray, layout: str = "contig"):
    """The same values as a ferrotorch and a PyTorch tensor, laid out as asked: contiguous,
    transposed (a transposed copy viewed back) or sliced (every other element of a wider one)."""
    a = np.asarray(a)
    if layout == "transposed" and a.ndim >= 2:
        b = np.ascontiguousarray(np.swapaxes(a, 0, -1))
        return torch.from_numpy(b.copy()).transpose(0, -1), pt.from_numpy(b.copy()).transpose(0, -1)
    if layout == "sliced" and a.ndim >= 1:
        wide = np.repeat(a, 2, axis=-1)
        return torch.from_numpy(wide.copy())[..., ::2], pt.from_numpy(wide.copy())[..., ::2]
    return torch.from_numpy(a.copy()), pt.from_numpy(a.copy())


def _same(ours: Any, theirs: Any, what: str = "", rtol: float = 1e-6) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) == isinstance(theirs, tuple), f"{what}: {type(ours)} vs {type(theirs)}"
        assert len(ours) == len(theirs), f"{what}: {len(ours)} pieces vs {len(theirs)}"
        for a, b in zip(ours, theirs):
            _same(a, b, what, rtol)
    elif isinstance(theirs, pt.Tensor):
        assert isinstance(ours, torch.Tensor), f"{what}: {type(ours)}"
        assert_close(ours, theirs, rtol=rtol, atol=1e-9, what=what)
    else:
        assert ours == theirs and type(ours) is type(theirs), f"{what}: {ours!r} vs {theirs!r}"


def _convert(v: Any, lib: Any) -> Any:
    """Arguments given as numpy arrays become tensors of ``lib``; the rest pass as they are."""
    if isinstance(v, np.ndarray):
        return lib.from_numpy(v.copy())
    if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
        return [lib.from_numpy(x.copy()) for x in v]
    return v


def _run_both(fn: Callable, x: np.ndarray, args: tuple, layout: str):
    a, b = _pair(x, layout)
    ours = fn(torch, a, *[_convert(v, torch) for v in args])
    try:
        theirs = fn(pt, b, *[_convert(v, pt) for v in args])
    except RuntimeError:
        if b.is_contiguous():
            raise
        # PyTorch's kron refuses some non-contiguous inputs (it views where it should reshape):
        # the oracle is then its result on a contiguous copy.
        theirs = fn(pt, b.contiguous(), *[_convert(v, pt) for v in args])
    return ours, theirs


def _check_error(fn: Callable, x: np.ndarray, args: tuple = ()) -> None:
    b = pt.from_numpy(np.asarray(x).copy())
    with pytest.raises(Exception) as theirs:
        fn(pt, b, *[_convert(v, pt) for v in args])
    a = torch.from_numpy(np.asarray(x).copy())
    with pytest.raises(type(theirs.value)):
        fn(torch, a, *[_convert(v, torch) for v in args])


X2 = np.arange(24.0).reshape(4, 6)
X3 = np.arange(60.0).reshape(3, 4, 5)
L = np.int64

# (name, fn(lib, x, *args), x, args): fn is applied with PyTorch and with ferrotorch.
VALUE_CASES = [
    # splitting
    ("tensor_split_sections", lambda m, x: m.tensor_split(x, 3), X2, ()),
    ("tensor_split_uneven_dim1", lambda m, x: m.tensor_split(x, 4, 1), X2, ()),
    ("tensor_split_more_than_size", lambda m, x: m.tensor_split(x, 6, dim=0), X2, ()),
    ("tensor_split_indices", lambda m, x: m.tensor_split(x, [1, 5, 2]), X2, ()),
    ("tensor_split_negative", lambda m, x: m.tensor_split(x, [-1, 9], dim=-1), X2, ()),
    ("tensor_split_tuple", lambda m, x: m.tensor_split(x, (1,)), X2, ()),
    ("tensor_split_tensor0d", lambda m, x, t: m.tensor_split(x, t, 1), X2, (np.array(4),)),
    ("tensor_split_tensor1d", lambda m, x, t: m.tensor_split(x, t), X2, (np.array([1, 3]),)),
    ("tensor_split_method", lambda m, x: x.tensor_split(2, 1), X2, ()),
    ("tensor_split_empty", lambda m, x: m.tensor_split(x, 2, 1), np.zeros((2, 0)), ()),
    ("hsplit_int", lambda m, x: m.hsplit(x, 3), X2, ()),
    ("hsplit_list", lambda m, x: x.hsplit([1, 4]), X2, ()),
    ("hsplit_1d", lambda m, x: m.hsplit(x, 2), np.arange(6.0), ()),
    ("vsplit_int", lambda m, x: m.vsplit(x, 2), X2, ()),
    ("vsplit_list", lambda m, x: x.vsplit([3]), X2, ()),
    ("dsplit_int", lambda m, x: m.dsplit(x, 5), X3, ()),
    ("dsplit_list", lambda m, x: x.dsplit([1, 2]), X3, ()),
    ("split_with_sizes", lambda m, x: m.split_with_sizes(x, [1, 3]), X2, ()),
    ("split_with_sizes_dim", lambda m, x: x.split_with_sizes([2, 0, 4], 1), X2, ()),
    ("split_with_sizes_kw", lambda m, x: x.split_with_sizes(split_sizes=[4], dim=-2), X2, ()),
    ("unsafe_chunk", lambda m, x: m.unsafe_chunk(x, 3), X2, ()),
    ("unsafe_chunk_dim", lambda m, x: x.unsafe_chunk(4, 1), X2, ()),
    ("unsafe_split", lambda m, x: m.unsafe_split(x, 3), X2, ()),
    ("unsafe_split_dim", lambda m, x: x.unsafe_split(4, dim=1), X2, ()),
    ("unsafe_split_with_sizes", lambda m, x: m.unsafe_split_with_sizes(x, [3, 3], 1), X2, ()),
    ("unsafe_split_with_sizes_m", lambda m, x: x.unsafe_split_with_sizes([1, 3]), X2, ()),
    # arranging
    *[(f"rot90_k{k}", (lambda k: lambda m, x: m.rot90(x, k))(k), X2, ()) for k in range(-5, 6)],
    ("rot90_dims10", lambda m, x: m.rot90(x, 1, (1, 0)), X2, ()),
    ("rot90_dims_3d", lambda m, x: m.rot90(x, 3, [0, 2]), X3, ()),
    ("rot90_dims_neg", lambda m, x: x.rot90(2, [-1, 0]), X3, ()),
    ("rot90_kw", lambda m, x: m.rot90(x, k=-1, dims=[1, 2]), X3, ()),
    ("rot90_default", lambda m, x: x.rot90(), X2, ()),
    ("fliplr", lambda m, x: m.fliplr(x), X3, ()),
    ("flipud", lambda m, x: x.flipud(), X2, ()),
    ("flipud_1d", lambda m, x: m.flipud(x), np.arange(5.0), ()),
    ("atleast_3d_0d", lambda m, x: m.atleast_3d(x), np.array(3.0), ()),
    ("atleast_3d_1d", lambda m, x: m.atleast_3d(x), np.arange(3.0), ()),
    ("atleast_3d_2d", lambda m, x: m.atleast_3d(x), X2, ()),
    ("atleast_3d_3d", lambda m, x: m.atleast_3d(x), X3, ()),
    ("atleast_3d_many", lambda m, x: m.atleast_3d(x, x[0], x[0, 0]), X2, ()),
    ("atleast_3d_list", lambda m, x: m.atleast_3d([x, x[0]]), X2, ()),
    ("dstack", lambda m, x, y: m.dstack([x, y]), np.arange(3.0), (np.arange(3),)),
    ("dstack_2d", lambda m, x: m.dstack((x, x, x)), X2, ()),
    ("row_stack", lambda m, x, y: m.row_stack([x, y]), np.arange(3.0), (np.arange(3),)),
    ("row_stack_2d", lambda m, x: m.row_stack((x, x[0])), X2, ()),
    ("block_diag", lambda m, x, y, z: m.block_diag(x, y, z), X2, (np.array(2.0), np.arange(3))),
    ("block_diag_empty_block", lambda m, x, y: m.block_diag(x, y), X2, (np.zeros((0, 2)),)),
    ("block_diag_none", lambda m, x: m.block_diag(), X2, ()),
    ("block_diag_bool_int8", lambda m, x, y: m.block_diag(x, y), np.array([True, False]), (np.array([3], dtype=np.int8),)),
    ("diagflat", lambda m, x: m.diagflat(x), X2[:2, :3], ()),
    ("diagflat_offset", lambda m, x: x.diagflat(2), X2[:2, :3], ()),
    ("diagflat_neg", lambda m, x: m.diagflat(x, offset=-1), np.arange(3.0), ()),
    ("diagflat_0d", lambda m, x: m.diagflat(x), np.array(2.0), ()),
    ("kron_2d", lambda m, x, y: m.kron(x, y), X2[:2, :3], (np.arange(4.0).reshape(2, 2),)),
    ("kron_1d_2d", lambda m, x, y: x.kron(y), np.arange(3.0), (np.arange(4.0).reshape(2, 2),)),
    ("kron_3d_1d", lambda m, x, y: m.kron(x, y), X3[:2, :2], (np.array([1.0, -1.0]),)),
    ("kron_0d", lambda m, x, y: m.kron(x, y), np.array(2.0), (np.arange(3.0),)),
    ("kron_promote", lambda m, x, y: m.kron(x, y), np.arange(3), (np.array([0.5, 2.0]),)),
    ("kron_empty", lambda m, x, y: m.kron(x, y), np.zeros((0, 2)), (np.ones((2, 2)),)),
    ("tensordot_int", lambda m, x, y: m.tensordot(x, y, 1), X3, (np.arange(10.0).reshape(5, 2),)),
    ("tensordot_default", lambda m, x, y: m.tensordot(x, y), X3, (np.arange(40.0).reshape(4, 5, 2),)),
    ("tensordot_lists", lambda m, x, y: m.tensordot(x, y, dims=([1, 2], [1, 0])), X3, (np.arange(20.0).reshape(5, 4),)),
    ("tensordot_listlist", lambda m, x, y: m.tensordot(x, y, [[0], [1]]), X3, (np.arange(6.0).reshape(2, 3),)),
    ("tensordot_tensor0d", lambda m, x, y, d: m.tensordot(x, y, dims=d), X3, (np.arange(10.0).reshape(5, 2), np.array(1))),
    ("tensordot_tensor2d", lambda m, x, y, d: m.tensordot(x, y, d), X3, (np.arange(8.0).reshape(2, 4), np.array([[1], [1]]))),
    ("tensordot_zero", lambda m, x, y: m.tensordot(x, y, 0), X2[:2, :2], (np.arange(3.0),)),
    ("tensordot_long", lambda m, x, y: m.tensordot(x, y, 1), np.arange(6).reshape(2, 3), (np.arange(3),)),
    ("tensordot_0d", lambda m, x, y: m.tensordot(x, y, 0), np.array(2.0), (np.array(3.0),)),
    ("vdot", lambda m, x, y: m.vdot(x, y), np.arange(4.0), (np.array([1.0, -2.0, 3.0, 0.5]),)),
    ("vdot_int", lambda m, x, y: x.vdot(y), np.arange(4), (np.array([1, -2, 3, 5]),)),
    ("vdot_empty", lambda m, x, y: m.vdot(x, y), np.zeros(0), (np.zeros(0),)),
    ("cartesian_prod", lambda m, x, y: m.cartesian_prod(x, y), np.arange(2), (np.array([5, 6, 7]),)),
    ("cartesian_prod_3", lambda m, x: m.cartesian_prod(x, x, x), np.array([1.0, 2.0]), ()),
    ("cartesian_prod_1", lambda m, x: m.cartesian_prod(x), np.array([1.0, 2.0]), ()),
    ("cartesian_prod_empty", lambda m, x, y: m.cartesian_prod(x, y), np.zeros(0), (np.ones(2),)),
    ("combinations", lambda m, x: m.combinations(x), np.array([3.0, 1.0, 2.0, 5.0]), ()),
    ("combinations_r3", lambda m, x: m.combinations(x, 3), np.arange(5), ()),
    ("combinations_repl", lambda m, x: m.combinations(x, with_replacement=True), np.array([3.0, 1.0, 2.0]), ()),
    ("combinations_repl_r3", lambda m, x: m.combinations(x, r=3, with_replacement=True), np.arange(3), ()),
    ("combinations_r0", lambda m, x: m.combinations(x, 0), np.arange(3.0), ()),
    ("combinations_r1", lambda m, x: m.combinations(x, 1), np.arange(3.0), ()),
    ("combinations_too_many", lambda m, x: m.combinations(x, 5), np.arange(3.0), ()),
    ("combinations_empty", lambda m, x: m.combinations(x), np.zeros(0), ()),
    ("tril_indices", lambda m, x: m.tril_indices(3, 4), X2, ()),
    ("tril_indices_offset", lambda m, x: m.tril_indices(4, 3, 1), X2, ()),
    ("tril_indices_neg", lambda m, x: m.tril_indices(4, 4, offset=-2, dtype=m.int32), X2, ()),
    ("triu_indices", lambda m, x: m.triu_indices(3, 4), X2, ()),
    ("triu_indices_offset", lambda m, x: m.triu_indices(3, 4, -1, dtype=m.int32), X2, ()),
    ("triu_indices_far", lambda m, x: m.triu_indices(3, 4, 10), X2, ()),
    ("triu_indices_zero_rows", lambda m, x: m.triu_indices(0, 4), X2, ()),
    ("unravel_index", lambda m, x: m.unravel_index(x, (3, 4)), np.array([4, 1, 11, -1, -12]), ()),
    ("unravel_index_0d", lambda m, x: m.unravel_index(x, (3, 4)), np.array(5), ()),
    ("unravel_index_2d", lambda m, x: m.unravel_index(x, [10, 10, 10, 10]), np.array([[1234], [5678]]), ()),
    ("unravel_index_int", lambda m, x: m.unravel_index(x, 12), np.array([3, 7]), ()),
    ("unravel_index_int32", lambda m, x: m.unravel_index(x, (3, 4)), np.array([3, 7], dtype=np.int32), ()),
    ("unravel_index_noshape", lambda m, x: m.unravel_index(x, ()), np.array([0]), ()),
    ("unravel_index_size", lambda m, x: m.unravel_index(x, m.Size([2, 6])), np.array([7]), ()),
    ("msort", lambda m, x: m.msort(x), _arr((5, 3)), ()),
    ("msort_method", lambda m, x: x.msort(), _arr((5,)), ()),
    ("sum_to_size", lambda m, x: x.sum_to_size(1, 6), X2, ()),
    ("sum_to_size_tuple", lambda m, x: x.sum_to_size((4, 1)), X2, ()),
    ("sum_to_size_lead", lambda m, x: x.sum_to_size(6), X2, ()),
    ("sum_to_size_scalar", lambda m, x: x.sum_to_size([]), X2, ()),
    ("sum_to_size_kw", lambda m, x: x.sum_to_size(size=(1, 1)), X2, ()),
    ("sum_to_size_same", lambda m, x: x.sum_to_size(4, 6), X2, ()),
    ("sum_to_size_3d", lambda m, x: x.sum_to_size(4, 1), X3, ()),
    # zero-size inputs
    ("rot90_empty", lambda m, x: m.rot90(x, 1), np.zeros((0, 3)), ()),
    ("fliplr_empty", lambda m, x: m.fliplr(x), np.zeros((2, 0)), ()),
    ("atleast_3d_empty", lambda m, x: m.atleast_3d(x), np.zeros(0), ()),
    ("msort_empty", lambda m, x: m.msort(x), np.zeros((0, 3)), ()),
    ("tensordot_empty", lambda m, x, y: m.tensordot(x, y, 1), np.zeros((2, 0)), (np.zeros((0, 3)),)),
    ("diagflat_empty", lambda m, x: m.diagflat(x), np.zeros(0), ()),
    ("unravel_index_empty", lambda m, x: m.unravel_index(x, (0, 4)), np.zeros(0, dtype=L), ()),
    ("sum_to_size_empty", lambda m, x: x.sum_to_size(1, 3), np.zeros((0, 3)), ()),
    ("take_empty_input", lambda m, x, i: m.take(x, i), np.zeros((0, 3)), (np.zeros(0, dtype=L),)),
    ("put_empty", lambda m, x, i, s: m.put(x, i, s), np.zeros((0, 3)), (np.zeros(0, dtype=L), np.zeros(0))),
    ("select_scatter_empty", lambda m, x, s: m.select_scatter(x, s, 1, 0), np.zeros((0, 3)), (np.zeros(0),)),
    ("scatter_reduce_empty_self", lambda m, x, j, s: m.scatter_reduce(x, 1, j, s, "amax"), np.zeros((0, 3)),
     (np.zeros((0, 2), dtype=L), np.zeros((0, 2)))),
    ("index_reduce_empty", lambda m, x, j, s: m.index_reduce(x, 1, j, s, "prod"), np.zeros((0, 3)),
     (np.zeros(0, dtype=L), np.zeros((0, 0)))),
    # checks
    ("is_same_size", lambda m, x: (m.is_same_size(x, x), m.is_same_size(x, x.t()), x.is_same_size(x[0])), X2, ()),
    ("is_nonzero", lambda m, x: (m.is_nonzero(x[0, 0]), x[0, 1].is_nonzero(), m.is_nonzero(x[:1, :1])), X2, ()),
    ("is_signed", lambda m, x: (m.is_signed(x), m.is_signed(x.to(m.uint8)), m.is_signed(x.bool())), X2, ()),
]

# Cases that run for every dtype in DTYPES (the ops that accept them all).
DTYPE_CASES = [
    ("tensor_split", lambda m, x: m.tensor_split(x, 3, 1)),
    ("hsplit", lambda m, x: m.hsplit(x, [2])),
    ("split_with_sizes", lambda m, x: m.split_with_sizes(x, [1, 3])),
    ("unsafe_chunk", lambda m, x: m.unsafe_chunk(x, 2, -1)),
    ("rot90", lambda m, x: m.rot90(x, 3)),
    ("fliplr", lambda m, x: m.fliplr(x)),
    ("atleast_3d", lambda m, x: m.atleast_3d(x)),
    ("dstack", lambda m, x: m.dstack([x, x])),
    ("block_diag", lambda m, x: m.block_diag(x, x[0])),
    ("diagflat", lambda m, x: m.diagflat(x[:2, :2], 1)),
    ("kron", lambda m, x: m.kron(x[:2, :2], x[1:3, :3])),
    ("cartesian_prod", lambda m, x: m.cartesian_prod(x[0], x[1, :2])),
    ("combinations", lambda m, x: m.combinations(x[0], 2)),
    ("msort", lambda m, x: m.msort(x)),
    ("take", lambda m, x: m.take(x, m.tensor([[0, -1], [5, 7]]))),
    ("put", lambda m, x: m.put(x, m.tensor([1, -2]), x[0, :2].flip(0))),
    ("masked_scatter", lambda m, x: m.masked_scatter(x, x[0] > x[1], x.flip(0))),
    ("diagonal_scatter", lambda m, x: m.diagonal_scatter(x, x[0, :4], 1)),
    ("select_scatter", lambda m, x: m.select_scatter(x, x[0], 0, -1)),
    ("slice_scatter", lambda m, x: m.slice_scatter(x, x[:, :3], 1, 1, None, 2)),
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 1, 1, 3)),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, 1)),
]


@pytest.mark.parametrize("layout", ["contig", "transposed", "sliced"])
@pytest.mark.parametrize("name,fn,x,args", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_values(name, fn, x, args, layout):
    ours, theirs = _run_both(fn, x, args, layout)
    _same(ours, theirs, f"{name} ({layout})")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dtypes(name, fn, dtype):
    if name == "masked_scatter" and dtype == "bool":
        pytest.skip("x[0] > x[1] is not defined for bool in either library")
    x = _arr((4, 6), dtype)
    for layout in ("contig", "transposed"):
        ours, theirs = _run_both(fn, x, (), layout)
        _same(ours, theirs, f"{name} {dtype} ({layout})")


def test_splits_are_views():
    a = torch.arange(12.0).reshape(3, 4)
    for pieces in (torch.tensor_split(a, 2, 1), torch.hsplit(a, 2), torch.split_with_sizes(a, [1, 2]),
                   torch.unsafe_chunk(a, 2, 1), torch.unsafe_split(a, 2), a.vsplit([1])):
        before = float(a.sum().item())
        pieces[0].add_(1)
        assert float(a.sum().item()) == before + pieces[0].numel()


def test_copies_are_not_views():
    a = torch.arange(12.0).reshape(3, 4)
    outs = [torch.narrow_copy(a, 1, 0, 2), torch.t_copy(a), torch.alias_copy(a), torch.select_copy(a, 0, 1),
            torch.expand_copy(a[0], [2, 4]), torch.view_copy(a, [4, 3]), torch.diagonal_copy(a)]
    outs += list(torch.split_copy(a, 2)) + list(torch.unbind_copy(a)) + list(torch.split_with_sizes_copy(a, [1, 2]))
    for o in outs:
        o.add_(100)
    assert float(a.sum().item()) == 66.0
    assert torch.transpose_copy(a, 0, 1).is_contiguous()


COPY_CASES = [
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 1, -2, 2)),
    ("narrow_copy_method", lambda m, x: x.narrow_copy(0, 1, 2)),
    ("expand_copy", lambda m, x: m.expand_copy(x[:1], [3, 4, 6])),
    ("expand_copy_implicit", lambda m, x: m.expand_copy(x, (2, 4, 6), implicit=True)),
    ("permute_copy", lambda m, x: m.permute_copy(x, (1, 0))),
    ("select_copy", lambda m, x: m.select_copy(x, 1, -1)),
    ("slice_copy", lambda m, x: m.slice_copy(x, 1, 1, None, 2)),
    ("slice_copy_default", lambda m, x: m.slice_copy(x)),
    ("slice_copy_neg", lambda m, x: m.slice_copy(x, 0, -3, -1)),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1, None])),
    ("squeeze_copy_dim", lambda m, x: m.squeeze_copy(x[:1], 0)),
    ("squeeze_copy_dims", lambda m, x: m.squeeze_copy(x[:1, None], (0, 1))),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, -1)),
    ("t_copy", lambda m, x: m.t_copy(x)),
    ("t_copy_1d", lambda m, x: m.t_copy(x[0])),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 1, 0)),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1)),
    ("diagonal_copy_dims", lambda m, x: m.diagonal_copy(x, -1, 1, 0)),
    ("detach_copy", lambda m, x: m.detach_copy(x)),
    ("view_copy", lambda m, x: m.view_copy(x.contiguous(), (6, 4))),
    ("unbind_copy", lambda m, x: m.unbind_copy(x, 1)),
    ("split_copy", lambda m, x: m.split_copy(x, 4, 1)),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 3])),
    ("alias_copy", lambda m, x: m.alias_copy(x)),
]


@pytest.mark.parametrize("layout", ["contig", "transposed"])
@pytest.mark.parametrize("name,fn", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copy_variants(name, fn, layout):
    ours, theirs = _run_both(fn, _arr((4, 6)), (), layout)
    _same(ours, theirs, f"{name} ({layout})")


# Taking and putting: (name, fn(lib, x, *args), x, args)
X34 = _arr((3, 4))
MASK34 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
SCATTER_INDEX = np.array([[0, 1, 0, 2], [2, 0, 0, 1]])
PUT_CASES = [
    ("take", lambda m, x, i: m.take(x, i), X34, (np.array([[0, -1], [5, 2]]),)),
    ("take_method_0d", lambda m, x, i: x.take(i), X34, (np.array(3),)),
    ("take_from_0d", lambda m, x, i: m.take(x[0, 0], i), X34, (np.array([0, 0, -1]),)),
    ("take_empty_index", lambda m, x, i: m.take(x, i), X34, (np.zeros((0, 2), dtype=L),)),
    ("put", lambda m, x, i, s: m.put(x, i, s), X34, (np.array([0, -1, 5]), np.array([9.0, 8.0, 7.0]))),
    ("put_accumulate", lambda m, x, i, s: m.put(x, i, s, accumulate=True), X34, (np.array([0, -1, 0, 0]), np.arange(4.0))),
    ("put_2d_index", lambda m, x, i, s: x.put(i, s, True), X34, (np.array([[0, 1], [1, 11]]), np.ones((2, 2)))),
    ("put_", lambda m, x, i, s: x.clone().put_(i, s), X34, (np.array([3, 4]), np.array([-1.0, -2.0]))),
    ("put_acc_", lambda m, x, i, s: x.clone().put_(i, s, accumulate=True), X34, (np.array([3, 3]), np.array([-1.0, -2.0]))),
    ("put_0d", lambda m, x, i, s: m.put(x[1, 1], i, s), X34, (np.array([0]), np.array([5.0]))),
    ("masked_scatter", lambda m, x, k, s: m.masked_scatter(x, k, s), X34, (MASK34, np.arange(10.0, 22.0))),
    ("masked_scatter_bcast_mask", lambda m, x, k, s: x.masked_scatter(k, s), X34, (MASK34[0], np.arange(10.0, 22.0).reshape(3, 4))),
    ("masked_scatter_bcast_self", lambda m, x, k, s: m.masked_scatter(x[0], k, s), X34, (MASK34, np.arange(10.0, 22.0))),
    ("masked_scatter_none", lambda m, x, k, s: m.masked_scatter(x, k, s), X34, (np.zeros((3, 4), bool), np.zeros(0))),
    ("masked_scatter_0d", lambda m, x, k, s: m.masked_scatter(x[0, 0], k, s), X34, (np.array(True), np.array([7.0]))),
    ("masked_scatter_", lambda m, x, k, s: x.clone().masked_scatter_(k, s), X34, (MASK34[1], np.arange(10.0, 22.0))),
    ("diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s), X34, (np.ones(3),)),
    ("diagonal_scatter_offset", lambda m, x, s: x.diagonal_scatter(s, 1), X34, (np.ones(3),)),
    ("diagonal_scatter_neg", lambda m, x, s: m.diagonal_scatter(x, s, -1, 1, 0), X34, (np.ones(3),)),
    ("diagonal_scatter_long_src", lambda m, x, s: m.diagonal_scatter(x, s, 2), X34, (np.array([5, 6]),)),
    ("diagonal_scatter_empty", lambda m, x, s: m.diagonal_scatter(x, s, 9), X34, (np.zeros(0),)),
    ("select_scatter", lambda m, x, s: m.select_scatter(x, s, 0, 1), X34, (np.ones(4),)),
    ("select_scatter_neg", lambda m, x, s: x.select_scatter(s, -1, -1), X34, (np.ones(3),)),
    ("select_scatter_1d", lambda m, x, s: m.select_scatter(x[0], s, 0, 2), X34, (np.array(7.0),)),
    ("slice_scatter", lambda m, x, s: m.slice_scatter(x, s, 1, 0, None, 2), X34, (np.ones((3, 2)),)),
    ("slice_scatter_neg", lambda m, x, s: x.slice_scatter(s, 1, -2), X34, (np.ones((3, 2)),)),
    ("slice_scatter_clamp", lambda m, x, s: m.slice_scatter(x, s, start=-5, end=1), X34, (np.ones((1, 4)),)),
    ("slice_scatter_all", lambda m, x, s: m.slice_scatter(x, s, 1, 0, 100), X34, (np.ones((3, 4)),)),
    ("slice_scatter_empty", lambda m, x, s: m.slice_scatter(x, s, 1, 3, 1), X34, (np.ones((3, 0)),)),
]
for _red in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        PUT_CASES += [
            (f"scatter_reduce_{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, r, include_self=i))(_red, _inc),
             X34, (SCATTER_INDEX, _arr((2, 5)))),
            (f"scatter_reduce_dim1_{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: x.scatter_reduce(1, j, s, r, include_self=i))(_red, _inc),
             X34, (SCATTER_INDEX[:, :3], _arr((3, 4)))),
            (f"scatter_reduce_1d_{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: m.scatter_reduce(x[0], 0, j, s, r, include_self=i))(_red, _inc),
             X34, (np.array([0, 1, 0, 1, 2, 1, 0]), _arr((7,)))),
            (f"scatter_reduce__{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: x.clone().scatter_reduce_(-1, j, s, r, include_self=i))(_red, _inc),
             X34, (SCATTER_INDEX, _arr((2, 4)))),
        ]
for _red in ("prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        PUT_CASES += [
            (f"index_reduce_{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: m.index_reduce(x, 0, j, s, r, include_self=i))(_red, _inc),
             X34, (np.array([0, 2, 0, 0]), _arr((4, 4)))),
            (f"index_reduce_dim1_{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: x.index_reduce(1, j, s, r, include_self=i))(_red, _inc),
             X34, (np.array([3, 3, 1]), _arr((3, 3)))),
            (f"index_reduce__{_red}_{_inc}", (lambda r, i: lambda m, x, j, s: x.clone().index_reduce_(-1, j, s, r, include_self=i))(_red, _inc),
             X34, (np.array([1, 1]), _arr((3, 2)))),
        ]
PUT_CASES += [
    ("scatter_reduce_0d", lambda m, x, j, s: m.scatter_reduce(x[0, 0], 0, j, s, "prod"), X34, (np.array(0), np.array(5.0))),
    ("scatter_reduce_empty_index", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "amax", include_self=False), X34, (np.zeros((0, 4), dtype=L), _arr((3, 4)))),
    ("scatter_reduce_max_alias", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "max"), X34, (SCATTER_INDEX, _arr((2, 5)))),
    ("scatter_reduce_int32_index", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "sum"), X34, (SCATTER_INDEX.astype(np.int32), _arr((2, 5)))),
    ("scatter_reduce_nan_amax", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "amax"), np.array([1.0, np.nan, 3.0, 4.0]),
     (np.array([0, 1, 0, 1, 2, 1]), np.array([5.0, -6.0, np.nan, 8.0, 9.0, 10.0]))),
    ("scatter_reduce_nan_amin", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "amin", include_self=False), np.array([1.0, np.nan, 3.0, 4.0]),
     (np.array([0, 1, 0, 1, 2, 1]), np.array([5.0, -6.0, np.nan, 8.0, 9.0, 10.0]))),
    ("scatter_reduce_int_mean_floor", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "mean", include_self=False), np.array([1, 2, 3]),
     (np.array([0, 0, 1, 1, 1]), np.array([-5, -8, 1, 1, 2]))),
    ("scatter_reduce_uint8_mean", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "mean", include_self=False), np.zeros(3, np.uint8),
     (np.array([0, 0]), np.array([200, 100], dtype=np.uint8))),
    ("scatter_reduce_int_prod", lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, "prod"), np.array([1, 2, 3]),
     (np.array([0, 0, 1, 1, 1]), np.array([-5, 8, 1, 0, 2]))),
    *[(f"index_reduce_bool_2d_{r}", (lambda r: lambda m, x, j, s: m.index_reduce(x > 1, 0, j, s > 2, r))(r), X34,
        (np.array([0, 2, 0]), _arr((3, 4)))) for r in ("prod", "amax", "amin")],
    ("index_reduce_0d", lambda m, x, j, s: m.index_reduce(x[0, 0], 0, j, s, "prod"), X34, (np.array(0), np.array(3.0))),
    ("index_reduce_int_mean", lambda m, x, j, s: m.index_reduce(x, 0, j, s, "mean", include_self=False), np.array([2, 4]),
     (np.array([0, 0, 1]), np.array([-3, -4, 1]))),
]
for _red in ("sum", "prod", "amax", "amin"):
    PUT_CASES.append((f"scatter_reduce_bool_{_red}", (lambda r: lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, r, include_self=False))(_red),
                      np.array([True, False, False, True]), (np.array([0, 0, 1, 1, 2]), np.array([True, False, False, False, True]))))
    PUT_CASES.append((f"scatter_reduce_bool_self_{_red}", (lambda r: lambda m, x, j, s: m.scatter_reduce(x, 0, j, s, r))(_red),
                      np.array([True, False, False, True]), (np.array([0, 0, 1, 1, 2]), np.array([True, False, True, False, True]))))


@pytest.mark.parametrize("layout", ["contig", "transposed"])
@pytest.mark.parametrize("name,fn,x,args", PUT_CASES, ids=[c[0] for c in PUT_CASES])
def test_take_put_scatter(name, fn, x, args, layout):
    ours, theirs = _run_both(fn, x, args, layout)
    _same(ours, theirs, f"{name} ({layout})", rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
@pytest.mark.parametrize("red", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_dtypes(dtype, red):
    x, s = _arr((5, 3), dtype), _arr((6, 3), dtype)
    j = RNG.integers(0, 5, size=(6, 2))
    for inc in (True, False):
        ours, theirs = _run_both(lambda m, a, jj, ss: m.scatter_reduce(a, 0, jj, ss, red, include_self=inc), x, (j, s), "contig")
        _same(ours, theirs, f"scatter_reduce {red} {dtype} {inc}", rtol=1e-5)
        if red != "sum":
            ours, theirs = _run_both(lambda m, a, jj, ss: m.index_reduce(a, 0, jj, ss, red, include_self=inc), x, (j[:, 0], s), "contig")
            _same(ours, theirs, f"index_reduce {red} {dtype} {inc}", rtol=1e-5)


def test_inplace_variants_return_self_and_bump_version():
    for op in (lambda t: t.put_(torch.tensor([0]), torch.tensor([5.0])),
               lambda t: t.masked_scatter_(torch.tensor([True, False, True]), torch.tensor([1.0, 2.0])),
               lambda t: t.scatter_reduce_(0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0]), "amax"),
               lambda t: t.index_reduce_(0, torch.tensor([2]), torch.tensor([9.0]), "mean")):
        t = torch.zeros(3)
        v = t._version
        assert op(t) is t
        assert t._version > v


# Errors: (name, fn(lib, x, *args), x, args): the exception class must be PyTorch's.
ERROR_CASES = [
    ("tensor_split_0d", lambda m, x: m.tensor_split(x[0, 0], 2), X2, ()),
    ("tensor_split_zero", lambda m, x: m.tensor_split(x, 0), X2, ()),
    ("tensor_split_bad_dim", lambda m, x: m.tensor_split(x, 2, 2), X2, ()),
    ("tensor_split_float_tensor", lambda m, x, t: m.tensor_split(x, t), X2, (np.array([1.0]),)),
    ("tensor_split_2d_tensor", lambda m, x, t: m.tensor_split(x, t), X2, (np.array([[1]]),)),
    ("hsplit_indivisible", lambda m, x: m.hsplit(x, 4), X2, ()),
    ("hsplit_zero", lambda m, x: m.hsplit(x, 0), X2, ()),
    ("hsplit_0d", lambda m, x: m.hsplit(x[0, 0], 1), X2, ()),
    ("vsplit_1d", lambda m, x: m.vsplit(x[0], 2), X2, ()),
    ("dsplit_2d", lambda m, x: m.dsplit(x, 2), X2, ()),
    ("split_with_sizes_negative", lambda m, x: m.split_with_sizes(x, [5, -1]), X2, ()),
    ("split_with_sizes_sum", lambda m, x: m.split_with_sizes(x, [1, 1]), X2, ()),
    ("unsafe_chunk_zero", lambda m, x: m.unsafe_chunk(x, 0), X2, ()),
    ("unsafe_split_list", lambda m, x: m.unsafe_split(x, [1, 3]), X2, ()),
    ("unsafe_split_zero", lambda m, x: m.unsafe_split(x, 0), X2, ()),
    ("rot90_one_dim", lambda m, x: m.rot90(x, 1, [0]), X2, ()),
    ("rot90_same_dims", lambda m, x: m.rot90(x, 1, [0, -2]), X2, ()),
    ("rot90_bad_dim", lambda m, x: m.rot90(x, 1, [0, 2]), X2, ()),
    ("rot90_1d", lambda m, x: m.rot90(x[0]), X2, ()),
    ("fliplr_1d", lambda m, x: m.fliplr(x[0]), X2, ()),
    ("flipud_0d", lambda m, x: m.flipud(x[0, 0]), X2, ()),
    ("dstack_empty", lambda m, x: m.dstack([]), X2, ()),
    ("block_diag_3d", lambda m, x: m.block_diag(x, x[None]), X2, ()),
    ("tensordot_negative", lambda m, x: m.tensordot(x, x, -1), X2, ()),
    ("tensordot_too_many", lambda m, x: m.tensordot(x, x, 3), X2, ()),
    ("tensordot_mismatch", lambda m, x: m.tensordot(x, x, ([1], [1])) if False else m.tensordot(x, x, ([0], [1])), X2, ()),
    ("tensordot_dtype", lambda m, x: m.tensordot(x, x.long(), 1), X2, ()),
    ("tensordot_lengths", lambda m, x: m.tensordot(x, x, ([0, 1], [0])), X2, ()),
    ("tensordot_float_dims", lambda m, x: m.tensordot(x, x, 1.5), X2, ()),
    ("tensordot_int_pair", lambda m, x: m.tensordot(x, x.t(), (1, 0)), X2, ()),
    ("tensordot_repeat", lambda m, x: m.tensordot(x[:4, :4], x[:4, :4], [[0, 0], [1, 1]]), X2, ()),
    ("vdot_2d", lambda m, x: m.vdot(x, x), X2, ()),
    ("vdot_dtype", lambda m, x: m.vdot(x[0], x[0].long()), X2, ()),
    ("vdot_size", lambda m, x: m.vdot(x[0], x[0, :3]), X2, ()),
    ("cartesian_prod_2d", lambda m, x: m.cartesian_prod(x), X2, ()),
    ("cartesian_prod_dtypes", lambda m, x: m.cartesian_prod(x[0], x[0].long()), X2, ()),
    ("cartesian_prod_none", lambda m, x: m.cartesian_prod(), X2, ()),
    ("combinations_2d", lambda m, x: m.combinations(x), X2, ()),
    ("combinations_negative", lambda m, x: m.combinations(x[0], -1), X2, ()),
    ("tril_indices_negative", lambda m, x: m.tril_indices(-1, 3), X2, ()),
    ("triu_indices_float", lambda m, x: m.triu_indices(3, 3, dtype=m.float32), X2, ()),
    ("triu_indices_int8", lambda m, x: m.triu_indices(3, 3, dtype=m.int8), X2, ()),
    ("unravel_float", lambda m, x: m.unravel_index(x, (3, 4)), X2, ()),
    ("unravel_bool", lambda m, x: m.unravel_index(x > 0, (3, 4)), X2, ()),
    ("unravel_float_shape", lambda m, x: m.unravel_index(x.long(), [2.0, 3]), X2, ()),
    ("unravel_float_shape_int", lambda m, x: m.unravel_index(x.long(), 2.0), X2, ()),
    ("unravel_negative_shape", lambda m, x: m.unravel_index(x.long(), (3, -4)), X2, ()),
    ("unravel_zero_shape", lambda m, x: m.unravel_index(x.long(), (0, 4)), X2, ()),
    ("sum_to_size_bad", lambda m, x: x.sum_to_size(2, 2), X2, ()),
    ("sum_to_size_longer", lambda m, x: x.sum_to_size(1, 1, 6), X2, ()),
    ("is_nonzero_empty", lambda m, x: m.is_nonzero(x[:0]), X2, ()),
    ("is_nonzero_many", lambda m, x: x.is_nonzero(), X2, ()),
    ("take_int32", lambda m, x: m.take(x, m.tensor([1], dtype=m.int32)), X2, ()),
    ("take_out_of_range", lambda m, x: m.take(x, m.tensor([24])), X2, ()),
    ("take_out_of_range_neg", lambda m, x: m.take(x, m.tensor([-25])), X2, ()),
    ("take_from_empty", lambda m, x: m.take(x[:0], m.tensor([0])), X2, ()),
    ("put_dtype", lambda m, x: m.put(x, m.tensor([0]), m.tensor([1])), X2, ()),
    ("put_numel", lambda m, x: m.put(x, m.tensor([0, 1]), m.tensor([1.0, 2, 3], dtype=x.dtype)), X2, ()),
    ("put_range", lambda m, x: x.put(m.tensor([24]), m.tensor([1.0], dtype=x.dtype)), X2, ()),
    ("put_int32", lambda m, x: m.put(x, m.tensor([0], dtype=m.int32), m.tensor([1.0], dtype=x.dtype)), X2, ()),
    ("masked_scatter_float_mask", lambda m, x: m.masked_scatter(x, x > 0.5 if False else x * 0, x), X2, ()),
    ("masked_scatter_dtype", lambda m, x: m.masked_scatter(x, x > 3, x.long()), X2, ()),
    ("masked_scatter_short", lambda m, x: m.masked_scatter(x, x > 3, x[0]), X2, ()),
    ("masked_scatter_bcast", lambda m, x: m.masked_scatter(x, (x > 3)[:, :2], x), X2, ()),
    ("masked_scatter__expand", lambda m, x: x[0].clone().masked_scatter_(x > 3, x), X2, ()),
    ("diagonal_scatter_size", lambda m, x: m.diagonal_scatter(x, x[0]), X2, ()),
    ("select_scatter_size", lambda m, x: m.select_scatter(x, x[0, :3], 0, 0), X2, ()),
    ("select_scatter_range", lambda m, x: m.select_scatter(x, x[0], 0, 4), X2, ()),
    ("select_scatter_0d_src", lambda m, x: m.select_scatter(x, x[0, 0], 0, 1), X2, ()),
    ("slice_scatter_size", lambda m, x: m.slice_scatter(x, x, 1, 0, 3), X2, ()),
    ("slice_scatter_step", lambda m, x: m.slice_scatter(x, x, 1, step=0), X2, ()),
    ("scatter_reduce_bad_reduce", lambda m, x: m.scatter_reduce(x, 0, m.zeros(1, 1, dtype=m.int64), x, "multiply"), X2, ()),
    ("scatter_reduce_dtype", lambda m, x: m.scatter_reduce(x, 0, m.zeros(1, 1, dtype=m.int64), x.long(), "sum"), X2, ()),
    ("scatter_reduce_float_index", lambda m, x: m.scatter_reduce(x, 0, m.zeros(1, 1), x, "sum"), X2, ()),
    ("scatter_reduce_rank", lambda m, x: m.scatter_reduce(x, 0, m.zeros(2, dtype=m.int64), x, "sum"), X2, ()),
    ("scatter_reduce_big_index", lambda m, x: m.scatter_reduce(x, 0, m.zeros(5, 1, dtype=m.int64), x, "sum"), X2, ()),
    ("scatter_reduce_range", lambda m, x: m.scatter_reduce(x, 0, m.full((1, 1), 4), x, "amax"), X2, ()),
    ("scatter_reduce_negative", lambda m, x: m.scatter_reduce(x, 1, m.full((1, 1), -1), x, "prod"), X2, ()),
    ("scatter_reduce_bool_mean", lambda m, x: m.scatter_reduce(x > 2, 0, m.zeros(1, 1, dtype=m.int64), x > 3, "mean"), X2, ()),
    ("index_reduce_sum", lambda m, x: m.index_reduce(x, 0, m.tensor([0]), x[:1], "sum"), X2, ()),
    ("index_reduce_2d_index", lambda m, x: m.index_reduce(x, 0, m.tensor([[0]]), x[:1], "prod"), X2, ()),
    ("index_reduce_range", lambda m, x: m.index_reduce(x, 0, m.tensor([4]), x[:1], "amin"), X2, ()),
    ("index_reduce_negative", lambda m, x: m.index_reduce(x, 0, m.tensor([-1]), x[:1], "amin"), X2, ()),
    ("index_reduce_count", lambda m, x: m.index_reduce(x, 0, m.tensor([0, 1]), x[:1], "mean"), X2, ()),
    ("index_reduce_dtype", lambda m, x: m.index_reduce(x, 0, m.tensor([0]), x[:1].long(), "mean"), X2, ()),
    ("index_reduce_shape", lambda m, x: m.index_reduce(x, 0, m.tensor([0]), x[:1, :3], "mean"), X2, ()),
    ("index_reduce_source_dim", lambda m, x: m.index_reduce(x, 1, m.tensor([0, 1, 2, 3]), x[0, :4], "mean"), X2, ()),
    ("index_reduce_bool_1d", lambda m, x: m.index_reduce(x[0] > 1, 0, m.tensor([0]), x[0, :1] > 2, "amax"), X2, ()),
    ("index_reduce_bool_mean", lambda m, x: m.index_reduce(x > 1, 0, m.tensor([0]), x[:1] > 2, "mean"), X2, ()),
    ("narrow_copy_range", lambda m, x: m.narrow_copy(x, 1, 5, 2), X2, ()),
    ("narrow_copy_start", lambda m, x: m.narrow_copy(x, 1, -7, 1), X2, ()),
    ("t_copy_3d", lambda m, x: m.t_copy(x[None]), X2, ()),
    ("split_copy_list", lambda m, x: m.split_copy(x, [1, 3]), X2, ()),
]


@pytest.mark.parametrize("name,fn,x,args", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(name, fn, x, args):
    _check_error(fn, x, args)


def test_error_messages_name_the_op():
    x = torch.zeros(3, 4)
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0"):
        torch.tensordot(x, x, -1)
    with pytest.raises(RuntimeError, match=r"src size = \[3\], slice size = \[4\]"):
        torch.select_scatter(x, torch.zeros(3), 0, 0)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 3"):
        torch.split_with_sizes(x, [1, 1])
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"):
        torch.scatter_reduce(x, 0, torch.zeros(1, 1, dtype=torch.int64), x, "foo")


# Gradients (float64): (name, fn(lib, *tensors), arrays). Each is compared with PyTorch's under a
# random output weighting, then gradchecked (arrays without ties, so max/min are smooth).
def _smooth(shape):
    return np.asarray(RNG.standard_normal(shape) + 3.0)


GRAD_CASES = [
    ("rot90", lambda m, x: m.rot90(x, 1, [0, 1]), [_smooth((3, 4))]),
    ("rot90_k2_3d", lambda m, x: m.rot90(x, -2, [2, 0]), [_smooth((2, 3, 2))]),
    ("rot90_k3", lambda m, x: x.rot90(3), [_smooth((3, 2))]),
    ("fliplr", lambda m, x: m.fliplr(x), [_smooth((2, 3))]),
    ("kron", lambda m, x, y: m.kron(x, y), [_smooth((2, 3)), _smooth((2, 2))]),
    ("kron_1d_3d", lambda m, x, y: m.kron(x, y), [_smooth((2,)), _smooth((2, 1, 2))]),
    ("tensordot", lambda m, x, y: m.tensordot(x, y, 1), [_smooth((2, 3)), _smooth((3, 2))]),
    ("tensordot_lists", lambda m, x, y: m.tensordot(x, y, ([0, 2], [1, 0])), [_smooth((2, 3, 2)), _smooth((2, 2, 3))]),
    ("block_diag", lambda m, x, y, z: m.block_diag(x, y, z), [_smooth((2, 2)), _smooth((3,)), _smooth(())]),
    ("diagflat", lambda m, x: m.diagflat(x, 1), [_smooth((2, 2))]),
    ("vdot", lambda m, x, y: m.vdot(x, y), [_smooth((4,)), _smooth((4,))]),
    ("dstack", lambda m, x, y: m.dstack([x, y]), [_smooth((3,)), _smooth((3,))]),
    ("cartesian_prod", lambda m, x, y: m.cartesian_prod(x, y), [_smooth((2,)), _smooth((3,))]),
    ("combinations", lambda m, x: m.combinations(x, 2, True), [_smooth((3,))]),
    ("msort", lambda m, x: m.msort(x), [_smooth((4, 2))]),
    ("sum_to_size", lambda m, x: x.sum_to_size(1, 3), [_smooth((2, 3))]),
    ("tensor_split", lambda m, x: m.cat(m.tensor_split(x, 2, 1)[::-1], 1), [_smooth((2, 3))]),
    ("take", lambda m, x: m.take(x, m.tensor([[0, 5], [5, -1]])), [_smooth((2, 3))]),
    ("put", lambda m, x, s: m.put(x, m.tensor([0, -1, 2]), s), [_smooth((2, 3)), _smooth((3,))]),
    ("put_acc", lambda m, x, s: m.put(x, m.tensor([0, 0, 2]), s, accumulate=True), [_smooth((2, 3)), _smooth((3,))]),
    ("put_", lambda m, x, s: (x * 1).put_(m.tensor([1, 4]), s), [_smooth((2, 3)), _smooth((2,))]),
    ("masked_scatter", lambda m, x, s: m.masked_scatter(x, m.tensor([[True, False, True], [False, True, True]]), s),
     [_smooth((2, 3)), _smooth((6,))]),
    ("masked_scatter_", lambda m, x, s: (x * 1).masked_scatter_(m.tensor([True, False, True]), s), [_smooth((2, 3)), _smooth((2, 3))]),
    ("diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s, 1), [_smooth((3, 4)), _smooth((3,))]),
    ("select_scatter", lambda m, x, s: m.select_scatter(x, s, 1, 2), [_smooth((3, 4)), _smooth((3,))]),
    ("slice_scatter", lambda m, x, s: m.slice_scatter(x, s, 1, 0, None, 2), [_smooth((3, 4)), _smooth((3, 2))]),
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 1, 1, 2), [_smooth((2, 3))]),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, 1), [_smooth((2, 3))]),
    ("expand_copy", lambda m, x: m.expand_copy(x, [2, 2, 3]), [_smooth((2, 3))]),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x), [_smooth((2, 3))]),
    ("alias_copy", lambda m, x: m.alias_copy(x), [_smooth((2, 3))]),
]
_J = np.array([[0, 1, 0], [2, 0, 0], [2, 2, 1]])
for _red in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        GRAD_CASES.append((f"scatter_reduce_{_red}_{_inc}",
                           (lambda r, i: lambda m, x, s: m.scatter_reduce(x, 0, m.tensor(_J), s, r, include_self=i))(_red, _inc),
                           [_smooth((4, 3)), _smooth((3, 3))]))
for _red in ("prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        GRAD_CASES.append((f"index_reduce_{_red}_{_inc}",
                           (lambda r, i: lambda m, x, s: m.index_reduce(x, 1, m.tensor([2, 0, 2]), s, r, include_self=i))(_red, _inc),
                           [_smooth((2, 4)), _smooth((2, 3))]))
GRAD_CASES.append(("scatter_reduce__amax", lambda m, x, s: (x * 1).scatter_reduce_(0, m.tensor(_J), s, "amax"), [_smooth((4, 3)), _smooth((3, 3))]))
GRAD_CASES.append(("index_reduce__prod", lambda m, x, s: (x * 1).index_reduce_(0, m.tensor([1, 1]), s, "prod"), [_smooth((2, 3)), _smooth((2, 3))]))


def _grads(lib, fn, arrays, weight=None):
    ts = [lib.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    out = fn(lib, *ts)
    w = lib.from_numpy(weight.copy()) if weight is not None else None
    (out * w).sum().backward() if w is not None else out.sum().backward()
    return out, [t.grad for t in ts]


@pytest.mark.parametrize("name,fn,arrays", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients(name, fn, arrays):
    out_pt = fn(pt, *[pt.from_numpy(a.copy()) for a in arrays])
    weight = RNG.standard_normal(tuple(out_pt.shape))
    # Ties matter for amax/amin/prod: compare on integer-valued inputs (with zeros and repeats)
    # as well as on smooth ones.
    tied = [np.asarray(np.round(a - 3.0)) for a in arrays]
    for inputs in (arrays, tied):
        ours, ours_g = _grads(torch, fn, inputs, weight)
        theirs, theirs_g = _grads(pt, fn, inputs, weight)
        _same(ours, theirs, f"{name} value", rtol=1e-10)
        for i, (a, b) in enumerate(zip(ours_g, theirs_g)):
            if b is None:
                assert a is None or float(a.abs().sum().item()) == 0, f"{name} grad {i}"
            else:
                assert_close(a, b, rtol=1e-9, atol=1e-12, what=f"{name} grad {i}")
    inputs = tuple(torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays)
    assert torch.autograd.gradcheck(lambda *ts: fn(torch, *ts), inputs)


def test_scatter_reduce_gradient_with_src_larger_than_index():
    # PyTorch's backward fails here (it returns a src gradient of the index's shape); ours pads
    # it with zeros, which is the gradient of the part of src the index does not reach.
    j = np.array([[0, 1], [1, 1]])
    x, s = _smooth((2, 3)), _smooth((3, 4))
    for red in ("sum", "mean", "prod", "amax"):
        _, (gx, gs) = _grads(torch, lambda m, a, b: m.scatter_reduce(a, 1, m.tensor(j), b, red), [x, s])
        _, (px, ps) = _grads(pt, lambda m, a, b: m.scatter_reduce(a, 1, m.tensor(j), b, red), [x, s[:2, :2]])
        assert_close(gx, px, rtol=1e-9, what=red)
        expected = np.zeros((3, 4))
        expected[:2, :2] = ps.numpy()
        np.testing.assert_allclose(gs.numpy(), expected, rtol=1e-9, err_msg=red)


def test_detach_copy_gradient_unsupported_like_torch():
    x = torch.ones(3, requires_grad=True)
    y = torch.detach_copy(x)
    assert y.requires_grad == pt.detach_copy(pt.ones(3, requires_grad=True)).requires_grad
    with pytest.raises(RuntimeError, match="detach_copy"):
        (y * 2).sum().backward()


def test_out_arguments():
    x = torch.arange(6.0).reshape(2, 3)
    out = torch.empty(2, 3)
    assert torch.kron(x[:1, :1], x, out=out) is out
    assert_close(out, pt.kron(pt.zeros(1, 1), pt.arange(6.0).reshape(2, 3)))
    out = torch.empty(2, 3)
    assert torch.msort(x, out=out) is out
    out = torch.empty(3)
    torch.narrow_copy(x, 0, 1, 1, out=out.reshape(1, 3))
    out2 = torch.empty(())
    assert torch.vdot(x[0], x[1], out=out2) is out2 and float(out2.item()) == 14.0


# ---------------------------------------------------------------------------------------------
# Regressions found by the differential fuzzer (tests/fuzz): each case is the fuzzer's own
# reproducing case, run on both libraries and compared by its rules (result dtype, shape and
# values, or the exception class).


def _run_fuzz_case(case: dict) -> None:
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    for p in (here, os.path.join(here, "fuzz")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from fuzz_case import run_case
    from fuzz_known import excluded

    assert excluded(case) is None, "a regression case must not be one the fuzzer skips"
    run_case(case)


_FUZZ_REGRESSIONS = {
    'sum_to_size_empty_size_0d': {'op': 'sum_to_size', 'inputs': [{'shape': [], 'dtype': 'int32', 'layout': 'contiguous', 'values': 'extreme', 'seed': 140054}], 'args': [[]]},
    'index_reduce_dim_before_complex': {'op': 'index_reduce_src', 'inputs': [{'shape': [1], 'dtype': 'complex128', 'layout': 'expanded', 'values': 'special', 'seed': 584181, 'expand_dim': 0}, {'shape': [0], 'dtype': 'int64', 'layout': 'flipped', 'values': 'index', 'seed': 20711, 'lo': 0, 'hi': 0}, {'shape': [1], 'dtype': 'complex128', 'layout': 'flipped', 'values': 'normal', 'seed': 1853}], 'args': [-2, 'amax']},
    'unsafe_split_0d': {'op': 'unsafe_split', 'inputs': [{'shape': [], 'dtype': 'int32', 'layout': 'transposed', 'values': 'normal', 'seed': 4}], 'args': [0, 0]},
    'unsafe_chunk_empty_dim': {'op': 'unsafe_chunk', 'inputs': [{'shape': [2, 0], 'dtype': 'int64', 'layout': 'contiguous', 'values': 'extreme', 'seed': 10868}], 'args': [4, -1]},
    'unsafe_chunk_0d': {'op': 'unsafe_chunk', 'inputs': [{'shape': [], 'dtype': 'bfloat16', 'layout': 'expanded', 'values': 'normal', 'seed': 364}], 'args': [4, -1]},
    'split_copy_check_order': {'op': 'split_copy', 'inputs': [{'shape': [1, 2, 0, 1], 'dtype': 'uint8', 'layout': 'permuted', 'values': 'special', 'seed': 86}], 'args': [-1, -5]},
    'split_with_sizes_0d': {'op': 'split_with_sizes', 'inputs': [{'shape': [], 'dtype': 'int16', 'layout': 'permuted', 'values': 'normal', 'seed': 1}], 'args': [1, False]},
    'view_copy_dtype': {'op': 'view_copy_dtype', 'inputs': [{'shape': [2, 1, 2, 2], 'dtype': 'float32', 'layout': 'transposed', 'values': 'normal', 'seed': 3}], 'args': [{'dtype': 'int32'}]},
    'view_copy_non_viewable': {'op': 'view_copy', 'inputs': [{'shape': [7, 5], 'dtype': 'int32', 'layout': 'sliced', 'values': 'ints', 'seed': 16777216}], 'args': [[35]]},
    'narrow_copy_0d': {'op': 'narrow_copy', 'inputs': [{'shape': [], 'dtype': 'int32', 'layout': 'sliced', 'values': 'normal', 'seed': 6034}], 'args': [0, -1, 3]},
    'narrow_copy_dim_past_end': {'op': 'narrow_copy', 'inputs': [{'shape': [4, 3, 1, 5], 'dtype': 'uint8', 'layout': 'transposed', 'values': 'special', 'seed': 686}], 'args': [4, 4, 3]},
    'slice_copy_0d': {'op': 'slice_copy', 'inputs': [{'shape': [], 'dtype': 'int8', 'layout': 'contiguous', 'values': 'normal', 'seed': 5}], 'args': [0, 0, 0, -1]},
    'tensordot_size1_dim': {'op': 'tensordot_dims', 'inputs': [{'shape': [1, 2, 1], 'dtype': 'int64', 'layout': 'permuted', 'values': 'normal', 'seed': 664}, {'shape': [1, 5], 'dtype': 'int64', 'layout': 'permuted', 'values': 'normal', 'seed': 14460}], 'args': [-3, -1]},
    'scatter_reduce_empty_bool_index': {'op': 'scatter_reduce', 'inputs': [{'shape': [2, 0, 2], 'dtype': 'int16', 'layout': 'contiguous', 'values': 'normal', 'seed': 10933920}, {'shape': [3, 0, 0], 'dtype': 'bool', 'layout': 'flipped', 'values': 'normal', 'seed': 222397514, 'lo': 0, 'hi': 1}, {'shape': [2, 0, 2], 'dtype': 'int16', 'layout': 'contiguous', 'values': 'extreme', 'seed': 1290}], 'args': [-1, 'mean', True]},
    'scatter_reduce_inplace_overlap': {'op': 'scatter_reduce_', 'inputs': [{'shape': [2, 7], 'dtype': 'float16', 'layout': 'expanded', 'values': 'normal', 'seed': 123368, 'expand_dim': 1}, {'shape': [2, 6], 'dtype': 'int64', 'layout': 'expanded', 'values': 'index', 'seed': 2917448, 'lo': 0, 'hi': 6}, {'shape': [2, 7], 'dtype': 'float16', 'layout': 'contiguous', 'values': 'extreme', 'seed': 2178232}], 'args': [1, 'prod']},
    'index_reduce_0d_source': {'op': 'index_reduce_src', 'inputs': [{'shape': [], 'dtype': 'float64', 'layout': 'permuted', 'values': 'normal', 'seed': 3592797}, {'shape': [3], 'dtype': 'int64', 'layout': 'sliced', 'values': 'index', 'seed': 255, 'lo': 0, 'hi': 0}, {'shape': [], 'dtype': 'float64', 'layout': 'contiguous', 'values': 'special', 'seed': 562405}], 'args': [0, 'mean']},
    'index_reduce_complex': {'op': 'index_reduce', 'inputs': [{'shape': [2], 'dtype': 'complex64', 'layout': 'flipped', 'values': 'normal', 'seed': 10599}, {'shape': [5], 'dtype': 'float32', 'layout': 'transposed', 'values': 'index', 'seed': 58800838, 'lo': 0, 'hi': 1}], 'args': [-1, 'prod', True]},
}


@pytest.mark.parametrize("name", sorted(_FUZZ_REGRESSIONS))
def test_fuzz_regression(name: str) -> None:
    _run_fuzz_case(_FUZZ_REGRESSIONS[name])

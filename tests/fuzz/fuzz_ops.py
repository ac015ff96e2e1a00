"""The ops the fuzzer draws: every entry of the op table (op_table.py, called through the same
lambdas under both libraries as test_ops_vs_torch does) plus torch.*, Tensor and F.* calls
written once against a library module ``L`` so one lambda serves ferrotorch and PyTorch.

An op's ``inputs`` name the tensors it takes (see fuzz_strategies.py for how each kind is
drawn from the first tensor's shape) and ``args`` the plain arguments after them."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

from op_table import BINARY, REDUCTIONS, UNARY
from test_ops_vs_torch import PT_FNS

import ferrotorch

ALL = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8")
INTS = ("int64", "int32", "int16", "int8", "uint8")


@dataclass
class FuzzOp:
    name: str
    call: Callable[..., Any]
    inputs: Tuple[str, ...] = ("x",)
    args: Tuple[str, ...] = ()
    dtypes: Tuple[str, ...] = ALL
    domain: Tuple[float, float] = (-3.0, 3.0)
    # False for ops whose values are unspecified (empty); only dtype and shape are compared.
    values: bool = True
    # Given the built ferrotorch inputs and args, True where PyTorch's values are undefined
    # behaviour (a float -> int cast of NaN/inf/out of range): only dtype and shape compared.
    undefined: Optional[Callable[..., bool]] = None
    # True where results are differences of terms as large as the result's scale (cov,
    # corrcoef, sums of products: each library adds them in its own order): a value near 0
    # is rounding noise of that scale, compared absolutely.
    cancels: bool = False
    # True where each input is reduced in its own dtype before the inputs meet (the norms of
    # cosine_similarity): the result carries the rounding of the least precise float input.
    per_input_precision: bool = False


def _table_op(op: Any, kind: str) -> FuzzOp:
    """An op_table entry: ferrotorch's lambda, or the same lambda executed under PyTorch."""
    ours, theirs = op.fn, PT_FNS[op.name]

    def call(L: Any, *a: Any) -> Any:
        return (ours if L is ferrotorch else theirs)(*a)

    shape = {"unary": (("x",), ()), "binary": (("x", "y"), ()), "reduction": (("x",), ("dim?" if not op.tuple_dims else "dims?", "bool"))}[kind]
    # Sums of mixed-sign values (each library adds in its own order, float32 in float32) and
    # lerp (PyTorch's vector kernel fuses w * (b - a) + a into one rounding): a result near 0
    # carries rounding noise of the terms' scale.
    sums = kind == "reduction" and op.name in ("sum", "nansum", "mean", "nanmean")
    cancels = sums or op.name.startswith("lerp")
    return FuzzOp(f"table.{op.name}", call, shape[0], shape[1], tuple(op.dtypes), tuple(op.domain), cancels=cancels)


def _nonfinite_or_big(x: Any, *_: Any) -> bool:
    """A float or complex tensor with values no integer dtype holds (casting them is UB in
    C++; a complex cast reads the real part)."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex) or x.numel() == 0:
        return False
    v = (x.detach().real if x.dtype.is_complex else x.detach()).double()
    return bool((~v.isfinite()).any()) or bool((v.abs() >= 128).any())


def _nanmedian_dim(x: Any, d: int, keepdim: bool) -> Any:
    """nanmedian along a dim, the index of an all-NaN slice replaced by -1: PyTorch's is
    wherever its partial sort left a NaN (slices of 4, 5, 6, 7 NaNs give 2, 2, 3, 5)."""
    values, indices = x.nanmedian(d, keepdim)
    return values, indices.masked_fill(x.isnan().all(d, keepdim=keepdim), -1)


def _F(L: Any) -> Any:
    return L.nn.functional


GENERIC = [
    # Elementwise with Python scalars (dtype promotion: a Python float keeps a float tensor's
    # dtype, turns an int tensor into the default dtype; a Python int keeps int dtypes).
    FuzzOp("add_scalar", lambda L, x, s: x + s, args=("scalar",)),
    FuzzOp("radd_scalar", lambda L, x, s: s + x, args=("scalar",)),
    FuzzOp("sub_scalar", lambda L, x, s: x - s, args=("scalar",)),
    FuzzOp("rsub_scalar", lambda L, x, s: s - x, args=("scalar",)),
    FuzzOp("mul_scalar", lambda L, x, s: x * s, args=("scalar",)),
    FuzzOp("div_scalar", lambda L, x, s: x / s, args=("scalar",)),
    FuzzOp("rdiv_scalar", lambda L, x, s: s / x, args=("scalar",)),
    FuzzOp("floordiv_scalar", lambda L, x, s: x // s, args=("scalar",), dtypes=NUMERIC),
    FuzzOp("mod_scalar", lambda L, x, s: x % s, args=("scalar",), dtypes=NUMERIC),
    FuzzOp("pow_scalar", lambda L, x, s: x**s, args=("scalar",)),
    FuzzOp("rpow_scalar", lambda L, x, s: s**x, args=("scalar",)),
    FuzzOp("eq_scalar", lambda L, x, s: x == s, args=("scalar",)),
    FuzzOp("lt_scalar", lambda L, x, s: x < s, args=("scalar",)),
    FuzzOp("ge_scalar", lambda L, x, s: L.ge(x, s), args=("scalar",)),
    FuzzOp("maximum_scalar_t", lambda L, x, s: L.clamp(x, min=s), args=("scalar",), dtypes=NUMERIC),
    FuzzOp("and_op", lambda L, x, y: x & y, inputs=("x", "y"), dtypes=INTS + ("bool",)),
    FuzzOp("or_op", lambda L, x, y: x | y, inputs=("x", "y"), dtypes=INTS + ("bool",)),
    FuzzOp("xor_op", lambda L, x, y: x ^ y, inputs=("x", "y"), dtypes=INTS + ("bool",)),
    FuzzOp("invert_op", lambda L, x: ~x, dtypes=INTS + ("bool",)),
    FuzzOp("neg_op", lambda L, x: -x),
    FuzzOp("truediv_t", lambda L, x, y: x / y, inputs=("x", "y")),
    FuzzOp("floordiv_t", lambda L, x, y: x // y, inputs=("x", "y"), dtypes=NUMERIC),
    FuzzOp("mod_t", lambda L, x, y: x % y, inputs=("x", "y"), dtypes=NUMERIC),
    FuzzOp("fmod_t", lambda L, x, y: L.fmod(x, y), inputs=("x", "y"), dtypes=NUMERIC),
    FuzzOp("pow_t", lambda L, x, y: L.pow(x, y), inputs=("x", "y")),
    FuzzOp("sub_t", lambda L, x, y: L.sub(x, y), inputs=("x", "y")),
    FuzzOp("mul_t", lambda L, x, y: x * y, inputs=("x", "y")),
    FuzzOp("add_t_alpha", lambda L, x, y, a: L.add(x, y, alpha=a), inputs=("x", "y"), args=("scalar",)),
    FuzzOp("where", lambda L, m, x, y: L.where(m, x, y), inputs=("m", "x", "y")),
    FuzzOp("where_scalar", lambda L, m, x, s: L.where(m, x, s), inputs=("m", "x"), args=("scalar",)),
    FuzzOp("masked_fill", lambda L, x, m, s: x.masked_fill(m, s), inputs=("x", "m"), args=("scalar",)),
    FuzzOp("clamp_both", lambda L, x, a, b: L.clamp(x, a, b), args=("scalar", "scalar"), dtypes=NUMERIC),
    FuzzOp("isclose", lambda L, x, y: L.isclose(x, y), inputs=("x", "y")),
    FuzzOp("lerp_scalar", lambda L, x, y, w: L.lerp(x, y, w), inputs=("x", "y"), args=("float",), dtypes=FLOATS),
    FuzzOp("addcmul", lambda L, x, y, z, v: L.addcmul(x, y, z, value=v), inputs=("x", "y", "y"), args=("scalar",)),
    # In place: the result must be castable to the destination dtype and shape.
    FuzzOp("add_", lambda L, x, y: x.add_(y), inputs=("x", "y")),
    FuzzOp("mul_scalar_", lambda L, x, s: x.mul_(s), args=("scalar",)),
    FuzzOp("div_", lambda L, x, y: x.div_(y), inputs=("x", "y")),
    FuzzOp("clamp_", lambda L, x, a: x.clamp_(min=a), args=("scalar",), dtypes=NUMERIC),
    FuzzOp("copy_", lambda L, x, y: x.copy_(y), inputs=("x", "y")),
    FuzzOp("fill_", lambda L, x, s: x.fill_(s), args=("scalar",)),
    FuzzOp("zero_", lambda L, x: x.zero_()),
    # Casts.
    FuzzOp("to_dtype", lambda L, x, d: x.to(d), args=("dtype",), undefined=lambda x, d: _nonfinite_or_big(x) and not d.is_floating_point),
    FuzzOp("type_as", lambda L, x, y: x.type_as(y), inputs=("x", "y"), undefined=lambda x, y: _nonfinite_or_big(x) and not y.dtype.is_floating_point),
    FuzzOp("item", lambda L, x: x.item()),
    FuzzOp("tolist", lambda L, x: x.tolist()),
    FuzzOp("bool_of", lambda L, x: bool(x)),
    FuzzOp("float_of", lambda L, x: float(x)),
    FuzzOp("int_of", lambda L, x: int(x), undefined=lambda x: _nonfinite_or_big(x)),
    # Shapes and views.
    FuzzOp("transpose", lambda L, x, a, b: x.transpose(a, b), args=("dim", "dim")),
    FuzzOp("permute", lambda L, x, p: x.permute(*p), args=("perm",)),
    FuzzOp("reshape", lambda L, x, s: x.reshape(s), args=("shape",)),
    FuzzOp("view", lambda L, x, s: x.view(s), args=("shape",)),
    FuzzOp("flatten", lambda L, x, a, b: L.flatten(x, a, b), args=("dim", "dim")),
    FuzzOp("unflatten", lambda L, x, d, s: x.unflatten(d, s), args=("dim", "shape")),
    FuzzOp("unsqueeze", lambda L, x, d: x.unsqueeze(d), args=("dim+",)),
    FuzzOp("squeeze_dim", lambda L, x, d: x.squeeze(d), args=("dim",)),
    FuzzOp("squeeze", lambda L, x: L.squeeze(x)),
    FuzzOp("expand", lambda L, x, s: x.expand(*s), args=("shape",)),
    FuzzOp("expand_as", lambda L, x, y: x.expand_as(y), inputs=("x", "y")),
    FuzzOp("broadcast_tensors", lambda L, x, y: L.broadcast_tensors(x, y), inputs=("x", "y")),
    FuzzOp("repeat", lambda L, x, r: x.repeat(*r), args=("reps",)),
    FuzzOp("tile", lambda L, x, r: L.tile(x, r), args=("reps",)),
    FuzzOp("narrow", lambda L, x, d, s, n: x.narrow(d, s, n), args=("dim", "index", "k")),
    FuzzOp("select", lambda L, x, d, i: x.select(d, i), args=("dim", "index")),
    FuzzOp("getitem_int", lambda L, x, i: x[i], args=("index",)),
    FuzzOp("getitem_slice", lambda L, x, a, b, c: x[a:b:c], args=("index", "index", "step")),
    FuzzOp("getitem_mask", lambda L, x, m: x[m], inputs=("x", "m")),
    FuzzOp("getitem_tensor", lambda L, x, i: x[i], inputs=("x", "idx1")),
    FuzzOp("setitem_int", lambda L, x, i, s: x.__setitem__(i, s) or x, args=("index", "scalar")),
    FuzzOp("setitem_mask", lambda L, x, m, s: x.__setitem__(m, s) or x, inputs=("x", "m"), args=("scalar",)),
    FuzzOp("flip", lambda L, x, d: L.flip(x, d), args=("dims",)),
    FuzzOp("roll", lambda L, x, s, d: L.roll(x, s, d), args=("int", "dim")),
    FuzzOp("movedim", lambda L, x, a, b: L.movedim(x, a, b), args=("dim", "dim")),
    FuzzOp("chunk", lambda L, x, n, d: L.chunk(x, n, d), args=("k", "dim")),
    FuzzOp("split", lambda L, x, n, d: L.split(x, n, d), args=("k", "dim")),
    FuzzOp("unbind", lambda L, x, d: L.unbind(x, d), args=("dim",)),
    FuzzOp("tril", lambda L, x, k: L.tril(x, k), args=("int",)),
    FuzzOp("triu", lambda L, x, k: L.triu(x, k), args=("int",)),
    FuzzOp("diagonal", lambda L, x, o, a, b: L.diagonal(x, o, a, b), args=("int", "dim", "dim")),
    FuzzOp("diag", lambda L, x, k: L.diag(x, k), args=("int",)),
    FuzzOp("trace", lambda L, x: L.trace(x)),
    FuzzOp("cat", lambda L, x, y, d: L.cat([x, y], d), inputs=("x", "x"), args=("dim",)),
    FuzzOp("stack", lambda L, x, y, d: L.stack([x, y], d), inputs=("x", "x"), args=("dim+",)),
    FuzzOp("atleast_2d", lambda L, x: L.atleast_2d(x)),
    FuzzOp("swapaxes", lambda L, x, a, b: L.swapaxes(x, a, b), args=("dim", "dim")),
    FuzzOp("contiguous", lambda L, x: x.contiguous()),
    FuzzOp("clone", lambda L, x: x.clone()),
    # Indexing with index tensors.
    FuzzOp("index_select", lambda L, x, d, i: L.index_select(x, d, i), inputs=("x", "idx1"), args=("dim",)),
    FuzzOp("gather", lambda L, x, d, i: L.gather(x, d, i), inputs=("x", "idxg"), args=("dim",)),
    FuzzOp("scatter", lambda L, x, d, i, s: x.scatter(d, i, s), inputs=("x", "idxg"), args=("dim", "scalar")),
    # The source cast to an integer self's dtype is UB for NaN/inf/out-of-range values.
    FuzzOp("scatter_add", lambda L, x, i, y, d: x.scatter_add(d, i, y.expand_as(i).to(x.dtype)), inputs=("x", "idxg", "x"), args=("dim",), undefined=lambda x, i, y, d: not (x.dtype.is_floating_point or x.dtype.is_complex) and _nonfinite_or_big(y)),
    FuzzOp("index_add", lambda L, x, i, d: x.index_add(d, i, x.index_select(d, i)), inputs=("x", "idx1"), args=("dim",)),
    FuzzOp("index_fill", lambda L, x, i, d, s: x.index_fill(d, i, s), inputs=("x", "idx1"), args=("dim", "scalar")),
    FuzzOp("masked_select", lambda L, x, m: L.masked_select(x, m), inputs=("x", "m")),
    FuzzOp("nonzero", lambda L, x: L.nonzero(x)),
    FuzzOp("argwhere", lambda L, x: L.argwhere(x)),
    # Sorting and selection.
    FuzzOp("sort", lambda L, x, d, desc: L.sort(x, dim=d, descending=desc, stable=True), args=("dim", "bool")),
    FuzzOp("argsort", lambda L, x, d: L.argsort(x, dim=d, stable=True), args=("dim",)),
    FuzzOp("topk_values", lambda L, x, k, d: L.topk(x, k, d).values, args=("k", "dim")),
    FuzzOp("max_dim_pair", lambda L, x, d: L.max(x, d), args=("dim",)),
    FuzzOp("min_dim_pair", lambda L, x, d: L.min(x, d), args=("dim",)),
    FuzzOp("median", lambda L, x: L.median(x), dtypes=NUMERIC),
    FuzzOp("median_dim_values", lambda L, x, d: L.median(x, d).values, args=("dim",), dtypes=NUMERIC),
    FuzzOp("unique", lambda L, x: L.unique(x, return_counts=True)),
    FuzzOp("cummax_pair", lambda L, x, d: L.cummax(x, d), args=("dim",), dtypes=NUMERIC),
    FuzzOp("aminmax", lambda L, x: L.aminmax(x)),
    FuzzOp("count_nonzero_all", lambda L, x: L.count_nonzero(x)),
    FuzzOp("bincount", lambda L, x: L.bincount(x.flatten().abs()), dtypes=INTS),
    FuzzOp("diff", lambda L, x, d: L.diff(x, dim=d), args=("dim",)),
    # The input is cast to ``dtype`` first: non-finite or out-of-range values into an integer
    # dtype are undefined in C++.
    FuzzOp("sum_dtype_arg", lambda L, x, d: x.sum(dtype=d), args=("dtype",), undefined=lambda x, d: _nonfinite_or_big(x) and not d.is_floating_point),
    FuzzOp("mean_all", lambda L, x: x.mean()),
    FuzzOp("prod_all", lambda L, x: x.prod()),
    FuzzOp("std_all", lambda L, x: x.std()),
    FuzzOp("cumsum_dim", lambda L, x, d: L.cumsum(x, d), args=("dim",)),
    FuzzOp("allclose", lambda L, x, y: L.allclose(x, y), inputs=("x", "y")),
    FuzzOp("equal", lambda L, x, y: L.equal(x, y), inputs=("x", "y")),
    # Matrix products.
    FuzzOp("matmul", lambda L, x, y: L.matmul(x, y), inputs=("x", "mat"), cancels=True),
    FuzzOp("mm", lambda L, x, y: L.mm(x, y), inputs=("x", "mat"), cancels=True),
    FuzzOp("bmm", lambda L, x, y: L.bmm(x, y), inputs=("x", "mat"), cancels=True),
    FuzzOp("dot", lambda L, x, y: L.dot(x, y), inputs=("x", "x"), cancels=True),
    FuzzOp("outer", lambda L, x, y: L.outer(x, y), inputs=("x", "x")),
    FuzzOp("einsum_ij_jk", lambda L, x, y: L.einsum("ij,jk->ik", x, y), inputs=("x", "mat"), cancels=True),
    # Creation (sizes include zero, negative and overflowing ones).
    FuzzOp("zeros", lambda L, s, d: L.zeros(s, dtype=d), inputs=(), args=("size", "dtype")),
    FuzzOp("ones", lambda L, s: L.ones(*s), inputs=(), args=("size",)),
    FuzzOp("full", lambda L, s, v: L.full(s, v), inputs=(), args=("size", "scalar")),
    FuzzOp("empty", lambda L, s, d: L.empty(s, dtype=d), inputs=(), args=("size", "dtype"), values=False),
    FuzzOp("arange", lambda L, a, b, c: L.arange(a, b, c), inputs=(), args=("scalar", "scalar", "scalar")),
    FuzzOp("linspace", lambda L, a, b, n: L.linspace(a, b, n), inputs=(), args=("float", "float", "int")),
    FuzzOp("eye", lambda L, n, m: L.eye(n, m), inputs=(), args=("int", "int")),
    FuzzOp("tensor_scalar", lambda L, s: L.tensor(s), inputs=(), args=("scalar",)),
    FuzzOp("full_like", lambda L, x, v: L.full_like(x, v), args=("scalar",)),
    FuzzOp("zeros_like_dtype", lambda L, x, d: L.zeros_like(x, dtype=d), args=("dtype",)),
    FuzzOp("tensor_of_list", lambda L, x: L.tensor(x.tolist())),
    FuzzOp("from_numpy_roundtrip", lambda L, x: L.from_numpy(x.numpy()), dtypes=NUMERIC[:3] + INTS + ("bool",)),
    # nn.functional.
    FuzzOp("F.relu", lambda L, x: _F(L).relu(x)),
    FuzzOp("F.softmax", lambda L, x, d: _F(L).softmax(x, d), args=("dim",)),
    FuzzOp("F.log_softmax", lambda L, x, d: _F(L).log_softmax(x, d), args=("dim",)),
    FuzzOp("F.gelu", lambda L, x: _F(L).gelu(x)),
    FuzzOp("F.silu", lambda L, x: _F(L).silu(x)),
    FuzzOp("F.hardtanh", lambda L, x: _F(L).hardtanh(x)),
    FuzzOp("F.leaky_relu", lambda L, x, s: _F(L).leaky_relu(x, s), args=("float",)),
    FuzzOp("F.elu", lambda L, x: _F(L).elu(x)),
    FuzzOp("F.selu", lambda L, x: _F(L).selu(x)),
    FuzzOp("F.logsigmoid", lambda L, x: _F(L).logsigmoid(x)),
    FuzzOp("F.softplus", lambda L, x: _F(L).softplus(x)),
    FuzzOp("F.mish", lambda L, x: _F(L).mish(x)),
    FuzzOp("F.hardswish", lambda L, x: _F(L).hardswish(x)),
    FuzzOp("F.glu", lambda L, x, d: _F(L).glu(x, d), args=("dim",)),
    FuzzOp("F.normalize", lambda L, x, d: _F(L).normalize(x, dim=d), args=("dim",)),
    FuzzOp("F.pad", lambda L, x, p, v: _F(L).pad(x, p, value=v), args=("pad", "float")),
    FuzzOp("F.one_hot", lambda L, x, n: _F(L).one_hot(x, n), args=("int",), dtypes=INTS),
    FuzzOp("F.linear", lambda L, x, w: _F(L).linear(x, w), inputs=("x", "x"), cancels=True),
    FuzzOp("F.layer_norm", lambda L, x: _F(L).layer_norm(x, x.shape[-1:]), cancels=True),
    FuzzOp("F.dropout_eval", lambda L, x: _F(L).dropout(x, 0.5, training=False)),
    FuzzOp("F.mse_loss", lambda L, x, y: _F(L).mse_loss(x, y), inputs=("x", "y")),
    FuzzOp("F.l1_loss", lambda L, x, y: _F(L).l1_loss(x, y), inputs=("x", "y")),
    FuzzOp("F.cosine_similarity", lambda L, x, y, d: _F(L).cosine_similarity(x, y, d), inputs=("x", "y"), args=("dim",), per_input_precision=True, cancels=True),
    FuzzOp("F.cross_entropy", lambda L, x, i: _F(L).cross_entropy(x, i.flatten()[: x.shape[0]] if x.dim() else i), inputs=("x", "idx1")),
    FuzzOp("F.max_pool1d", lambda L, x, k: _F(L).max_pool1d(x, k), args=("k",)),
    FuzzOp("F.avg_pool1d", lambda L, x, k: _F(L).avg_pool1d(x, k), args=("k",)),
]


def _sizes(x: Any, d: int) -> list:
    """Split sizes that add up to x's size along d (when d is valid), else a wrong list."""
    if x.dim() == 0 or not -x.dim() <= d < x.dim():
        return [1, 1]
    n = x.shape[d]
    return [n // 2, n - n // 2, 0] if n else [0, 0]


def _theta(x: Any, n: int) -> Any:
    """An affine matrix batch (n rows of 2x3) from x's values, or x itself if too small."""
    flat = x.flatten()
    return flat[: 6 * max(n, 1)].reshape(max(n, 1), 2, 3) if flat.numel() >= 6 * max(n, 1) else x


def _grid(x: Any, y: Any) -> Any:
    """A sampling grid for 4-D x from y's values (as many as fit), or y itself."""
    if x.dim() != 4:
        return y
    need = x.shape[0] * 3 * 2 * 2
    flat = y.flatten()
    return flat[:need].reshape(x.shape[0], 3, 2, 2) if flat.numel() >= need else y


def _unsorted(x: Any, *_: Any) -> bool:
    """Boundaries that are not ascending (or hold NaN): bucketize's answer is unspecified."""
    if x.dim() != 1 or x.numel() < 2 or x.dtype == ferrotorch.bool:
        return x.dim() == 1 and x.numel() >= 2
    v = x.double()
    return bool(v.isnan().any()) or bool((v[1:] < v[:-1]).any())


def _has_nan(*ts: Any) -> bool:
    """A NaN among the tensors: where a binary search lands is then unspecified."""
    return any(isinstance(t, ferrotorch.Tensor) and t.dtype.is_floating_point and t.numel() and bool(t.isnan().any()) for t in ts)


def _sorted_last(L: Any, x: Any) -> Any:
    """x sorted along its last dim (a valid searchsorted sequence), NaNs last as PyTorch sorts."""
    return L.sort(x, -1).values if x.dim() else x


# The PyTorch names added in Python (_splitting, _arranging, _scatter_variants, _copy_variants,
# the statistics modules, _functional_aliases, nn._grid_sampling) and Tensor.unfold/as_strided.
ADDED = [
    # Splitting.
    FuzzOp("tensor_split_n", lambda L, x, n, d: L.tensor_split(x, n, d), args=("k", "dim")),
    FuzzOp("tensor_split_list", lambda L, x, i, d: L.tensor_split(x, i, d), args=("ilist", "dim")),
    FuzzOp("tensor_split_tensor", lambda L, x, i, d: L.tensor_split(x, i, d), inputs=("x", "idx1"), args=("dim",)),
    FuzzOp("hsplit", lambda L, x, n: L.hsplit(x, n), args=("k",)),
    FuzzOp("vsplit_list", lambda L, x, i: L.vsplit(x, i), args=("ilist",)),
    FuzzOp("dsplit", lambda L, x, n: L.dsplit(x, n), args=("k",)),
    FuzzOp("split_with_sizes", lambda L, x, d, ok: L.split_with_sizes(x, _sizes(x, d) if ok else [1, 2], d), args=("dim", "bool")),
    FuzzOp("unsafe_split", lambda L, x, n, d: L.unsafe_split(x, n, d), args=("k", "dim")),
    FuzzOp("unsafe_chunk", lambda L, x, n, d: L.unsafe_chunk(x, n, d), args=("k", "dim")),
    FuzzOp("Tensor.tensor_split", lambda L, x, n: x.tensor_split(n), args=("k",)),
    # Arranging.
    FuzzOp("rot90", lambda L, x, k, d: L.rot90(x, k, d), args=("int", "dims")),
    FuzzOp("rot90_default", lambda L, x, k: x.rot90(k), args=("int",)),
    FuzzOp("fliplr", lambda L, x: L.fliplr(x)),
    FuzzOp("flipud", lambda L, x: x.flipud()),
    FuzzOp("atleast_3d", lambda L, x: L.atleast_3d(x)),
    FuzzOp("dstack", lambda L, x, y: L.dstack([x, y]), inputs=("x", "x")),
    FuzzOp("row_stack", lambda L, x, y: L.row_stack((x, y)), inputs=("x", "x")),
    FuzzOp("block_diag", lambda L, x, y: L.block_diag(x, y), inputs=("x", "y")),
    FuzzOp("diagflat", lambda L, x, k: L.diagflat(x, k), args=("int",)),
    FuzzOp("kron", lambda L, x, y: L.kron(x, y), inputs=("x", "y")),
    FuzzOp("tensordot_n", lambda L, x, y, n: L.tensordot(x, y, n), inputs=("x", "mat"), args=("k",), cancels=True),
    FuzzOp("tensordot_dims", lambda L, x, y, a, b: L.tensordot(x, y, ([a], [b])), inputs=("x", "mat"), args=("dim", "dim"), cancels=True),
    FuzzOp("vdot", lambda L, x, y: L.vdot(x, y), inputs=("x", "x"), cancels=True),
    FuzzOp("cartesian_prod", lambda L, x, y: L.cartesian_prod(x, y), inputs=("x", "x")),
    FuzzOp("combinations", lambda L, x, r, w: L.combinations(x, r, w), args=("k", "bool")),
    FuzzOp("tril_indices", lambda L, r, c, o: L.tril_indices(r, c, o), inputs=(), args=("int", "int", "int")),
    FuzzOp("triu_indices", lambda L, r, c, o: L.triu_indices(r, c, o), inputs=(), args=("int", "int", "int")),
    FuzzOp("unravel_index", lambda L, x, s: L.unravel_index(x, s), args=("reps",), dtypes=INTS + ("float32", "bool")),
    FuzzOp("msort", lambda L, x: L.msort(x)),
    FuzzOp("sum_to_size", lambda L, x, s: x.sum_to_size(s), args=("shape",)),
    # Scatter variants.
    FuzzOp("take", lambda L, x, i: L.take(x, i), inputs=("x", "idx1")),
    FuzzOp("put", lambda L, x, i, y, acc: L.put(x, i, y), inputs=("x", "idx1", "x"), args=("bool",)),
    FuzzOp("put_", lambda L, x, i, y, acc: x.put_(i, y.flatten()[: i.numel()], accumulate=acc), inputs=("x", "idx1", "x"), args=("bool",)),
    FuzzOp("masked_scatter", lambda L, x, m, y: L.masked_scatter(x, m, y), inputs=("x", "m", "x")),
    FuzzOp("masked_scatter_", lambda L, x, m, y: x.masked_scatter_(m, y), inputs=("x", "m", "x")),
    FuzzOp("diagonal_scatter", lambda L, x, y, o, a, b, ok: L.diagonal_scatter(x, L.zeros_like(x.diagonal(o, a, b)) if ok else y, o, a, b), inputs=("x", "y"), args=("int", "dim", "dim", "bool")),
    FuzzOp("select_scatter", lambda L, x, y, d, i, ok: L.select_scatter(x, L.zeros_like(x.select(d, i)) if ok else y, d, i), inputs=("x", "y"), args=("dim", "index", "bool")),
    FuzzOp("slice_scatter", lambda L, x, y, d, a, b, c, ok: L.slice_scatter(x, L.zeros_like(L.slice_copy(x, d, a, b, c or 1)) if ok else y, d, a, b, c or 1), inputs=("x", "y"), args=("dim", "index", "index", "step", "bool")),
    FuzzOp("scatter_reduce", lambda L, x, i, y, d, r, inc: L.scatter_reduce(x, d, i, y, r, include_self=inc), inputs=("x", "idxg", "x"), args=("dim", "reduce", "bool")),
    FuzzOp("scatter_reduce_", lambda L, x, i, y, d, r: x.scatter_reduce_(d, i, y, r), inputs=("x", "idxg", "x"), args=("dim", "reduce")),
    FuzzOp("index_reduce", lambda L, x, i, d, r, inc: x.index_reduce(d, i, x.index_select(d, i) * 2, r, include_self=inc), inputs=("x", "idx1"), args=("dim", "ireduce", "bool"), dtypes=NUMERIC),
    FuzzOp("index_reduce_src", lambda L, x, i, y, d, r: L.index_reduce(x, d, i, y, r), inputs=("x", "idx1", "x"), args=("dim", "ireduce")),
    # Copy variants.
    FuzzOp("narrow_copy", lambda L, x, d, s, n: L.narrow_copy(x, d, s, n), args=("dim", "index", "k")),
    FuzzOp("expand_copy", lambda L, x, s: L.expand_copy(x, s), args=("shape",)),
    FuzzOp("permute_copy", lambda L, x, p: L.permute_copy(x, p), args=("perm",)),
    FuzzOp("select_copy", lambda L, x, d, i: L.select_copy(x, d, i), args=("dim", "index")),
    FuzzOp("slice_copy", lambda L, x, d, a, b, c: L.slice_copy(x, d, a, b, c or 1), args=("dim", "index", "index", "step")),
    FuzzOp("squeeze_copy", lambda L, x, d: L.squeeze_copy(x, d), args=("dim",)),
    FuzzOp("squeeze_copy_all", lambda L, x: L.squeeze_copy(x)),
    FuzzOp("unsqueeze_copy", lambda L, x, d: L.unsqueeze_copy(x, d), args=("dim+",)),
    FuzzOp("t_copy", lambda L, x: L.t_copy(x)),
    FuzzOp("transpose_copy", lambda L, x, a, b: L.transpose_copy(x, a, b), args=("dim", "dim")),
    FuzzOp("diagonal_copy", lambda L, x, o, a, b: L.diagonal_copy(x, o, a, b), args=("int", "dim", "dim")),
    FuzzOp("view_copy", lambda L, x, s: L.view_copy(x, s), args=("shape",)),
    FuzzOp("view_copy_dtype", lambda L, x, d: L.view_copy(x, d), args=("dtype",)),
    FuzzOp("unbind_copy", lambda L, x, d: L.unbind_copy(x, d), args=("dim",)),
    FuzzOp("split_copy", lambda L, x, n, d: L.split_copy(x, n, d), args=("k", "dim")),
    FuzzOp("split_with_sizes_copy", lambda L, x, d, ok: L.split_with_sizes_copy(x, _sizes(x, d) if ok else [2], d), args=("dim", "bool")),
    FuzzOp("alias_copy", lambda L, x: L.alias_copy(x)),
    FuzzOp("detach_copy", lambda L, x: L.detach_copy(x)),
    FuzzOp("is_same_size", lambda L, x, y: L.is_same_size(x, y), inputs=("x", "y")),
    FuzzOp("is_nonzero", lambda L, x: L.is_nonzero(x)),
    FuzzOp("is_signed", lambda L, x: L.is_signed(x)),
    # Rust-backed strided views.
    FuzzOp("Tensor.unfold", lambda L, x, d, n, s: x.unfold(d, n, s), args=("dim", "k", "k")),
    FuzzOp("as_strided", lambda L, x, s, st, o: L.as_strided(x, s, st, o), args=("reps", "reps", "k")),
    # Searching.
    FuzzOp("searchsorted", lambda L, x, y, r: L.searchsorted(_sorted_last(L, x), y, right=r), inputs=("x", "y"), args=("bool",), dtypes=NUMERIC, undefined=lambda *a: _has_nan(*a)),
    FuzzOp("searchsorted_side", lambda L, x, y, s, i: L.searchsorted(_sorted_last(L, x), y, side=s, out_int32=i), inputs=("x", "y"), args=("side", "bool"), dtypes=NUMERIC, undefined=lambda *a: _has_nan(*a)),
    FuzzOp("searchsorted_scalar", lambda L, x, s: L.searchsorted(_sorted_last(L, x), s), args=("scalar",), dtypes=NUMERIC, undefined=lambda *a: _has_nan(*a)),
    FuzzOp("searchsorted_sorter", lambda L, x, y: L.searchsorted(x, y, sorter=L.argsort(x, dim=-1, stable=True) if x.dim() else None), inputs=("x", "y"), dtypes=NUMERIC, undefined=lambda *a: _has_nan(*a)),
    FuzzOp("bucketize", lambda L, x, y, r: L.bucketize(y, L.sort(x.flatten()).values, right=r), inputs=("x", "y"), args=("bool",), dtypes=NUMERIC, undefined=lambda x, *_: _unsorted(x.flatten())),
    FuzzOp("bucketize_raw", lambda L, x, y: L.bucketize(y, x), inputs=("x", "y"), dtypes=NUMERIC, undefined=_unsorted),
    FuzzOp("isin", lambda L, x, y, inv: L.isin(x, y, invert=inv), inputs=("x", "y"), args=("bool",)),
    FuzzOp("isin_scalar", lambda L, x, s: L.isin(x, s), args=("scalar",)),
    # Order statistics.
    # Only the values: which of equal elements' index kthvalue returns is unspecified.
    FuzzOp("kthvalue", lambda L, x, k, d, kd: L.kthvalue(x, k, d, kd).values, args=("k", "dim", "bool"), dtypes=NUMERIC),
    FuzzOp("mode", lambda L, x, d, kd: L.mode(x, d, kd), args=("dim", "bool")),
    FuzzOp("nanmedian", lambda L, x: L.nanmedian(x), dtypes=NUMERIC),
    FuzzOp("nanmedian_dim", lambda L, x, d, kd: _nanmedian_dim(x, d, kd), args=("dim", "bool"), dtypes=NUMERIC),
    FuzzOp("quantile", lambda L, x, q, d, kd, m: L.quantile(x, q, d, kd, interpolation=m), args=("q", "dim?", "bool", "interp"), dtypes=FLOATS),
    FuzzOp("quantile_tensor_q", lambda L, x, q, d: L.quantile(x, q.flatten()[:4], d), inputs=("x", "y"), args=("dim?",), dtypes=FLOATS, domain=(0.0, 1.0)),
    FuzzOp("nanquantile", lambda L, x, q, d, m: L.nanquantile(x, q, d, interpolation=m), args=("q", "dim?", "interp"), dtypes=FLOATS),
    # Histograms.
    FuzzOp("histc", lambda L, x, b, lo, hi: L.histc(x, b, lo, hi), args=("k", "float", "float"), dtypes=FLOATS + ("int64",)),
    FuzzOp("histogram", lambda L, x, b, d: L.histogram(x, b, density=d), args=("k", "bool"), dtypes=FLOATS + ("int64",)),
    FuzzOp("histogram_range", lambda L, x, b, lo, hi: L.histogram(x, b, range=(lo, hi)), args=("k", "float", "float"), dtypes=FLOATS),
    FuzzOp("histogram_edges", lambda L, x, y: L.histogram(x, L.sort(y.flatten()).values), inputs=("x", "y"), dtypes=FLOATS),
    FuzzOp("histogramdd", lambda L, x, b: L.histogramdd(x, b), args=("k",), dtypes=FLOATS),
    # Distances and covariance.
    FuzzOp("cov", lambda L, x, c: L.cov(x, correction=c), args=("int",), cancels=True),
    FuzzOp("cov_weights", lambda L, x, f: L.cov(x, fweights=f.flatten()[: x.shape[-1]] if x.dim() else f), inputs=("x", "idx1"), cancels=True),
    FuzzOp("corrcoef", lambda L, x: L.corrcoef(x), cancels=True),
    FuzzOp("cdist", lambda L, x, y, p: L.cdist(x, y, p), inputs=("x", "x"), args=("p",)),
    FuzzOp("cdist_mat", lambda L, x, y: L.cdist(x, y), inputs=("x", "mat")),
    FuzzOp("dist", lambda L, x, y, p: L.dist(x, y, p), inputs=("x", "y"), args=("p",)),
    FuzzOp("renorm", lambda L, x, p, d, m: L.renorm(x, p, d, m), args=("p", "dim", "float")),
    FuzzOp("renorm_", lambda L, x, p, d: x.renorm_(p, d, 1.0), args=("p", "dim"), dtypes=FLOATS),
    # Integration and differences.
    FuzzOp("trapezoid", lambda L, y, d: L.trapezoid(y, dim=d), args=("dim",)),
    FuzzOp("trapezoid_dx", lambda L, y, dx, d: L.trapezoid(y, dx=dx, dim=d), args=("float", "dim")),
    # With sample points: a sum of products (x[i+1] - x[i]) * (y[i+1] + y[i]), near-0 results are rounding noise.
    FuzzOp("trapezoid_x", lambda L, y, x, d: L.trapezoid(y, x, dim=d), inputs=("x", "y"), args=("dim",), cancels=True),
    FuzzOp("trapz", lambda L, y, x: L.trapz(y, x), inputs=("x", "y"), cancels=True),
    FuzzOp("cumulative_trapezoid", lambda L, y, d: L.cumulative_trapezoid(y, dim=d), args=("dim",)),
    FuzzOp("cumulative_trapezoid_x", lambda L, y, x, d: L.cumulative_trapezoid(y, x, dim=d), inputs=("x", "y"), args=("dim",)),
    FuzzOp("gradient", lambda L, x, d, e: L.gradient(x, dim=d, edge_order=e), args=("dim", "k")),
    FuzzOp("gradient_spacing", lambda L, x, s: L.gradient(x, spacing=s), args=("float",)),
    FuzzOp("gradient_all", lambda L, x: L.gradient(x)),
    # Windows.
    FuzzOp("hann_window", lambda L, n, p, d: L.hann_window(n, p, dtype=d), inputs=(), args=("int", "bool", "dtype")),
    FuzzOp("hamming_window", lambda L, n, p, a, b: L.hamming_window(n, p, a, b), inputs=(), args=("int", "bool", "float", "float")),
    FuzzOp("blackman_window", lambda L, n, p: L.blackman_window(n, p), inputs=(), args=("int", "bool")),
    FuzzOp("bartlett_window", lambda L, n, p: L.bartlett_window(n, periodic=p), inputs=(), args=("int", "bool")),
    FuzzOp("kaiser_window", lambda L, n, p, b: L.kaiser_window(n, p, b), inputs=(), args=("int", "bool", "float")),
    # torch.* functional forms with torch's own signatures.
    FuzzOp("torch.layer_norm", lambda L, x, e: L.layer_norm(x, x.shape[-1:], None, None, 1e-5 if e else 0.1), args=("bool",), cancels=True),
    # Its saved mean of a row summing to 0 is rounding noise (PyTorch's one-pass moments give
    # -4e-8 where the two-pass mean is exactly 0).
    FuzzOp("torch.native_layer_norm", lambda L, x: L.native_layer_norm(x, x.shape[-1:], None, None, 1e-5), cancels=True),
    FuzzOp("torch.group_norm", lambda L, x, g: L.group_norm(x, g), args=("k",), cancels=True),
    FuzzOp("torch.batch_norm", lambda L, x, t: L.batch_norm(x, None, None, None, None, t, 0.1, 1e-5, False), args=("bool",), cancels=True),
    FuzzOp("torch.instance_norm", lambda L, x: L.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False), cancels=True),
    FuzzOp("torch.conv1d", lambda L, x, w, s: L.conv1d(x, w, None, s), inputs=("x", "x"), args=("k",), cancels=True),
    FuzzOp("torch.conv2d", lambda L, x, w: L.conv2d(x, w), inputs=("x", "y"), cancels=True),
    FuzzOp("torch.dropout_eval", lambda L, x, p: L.dropout(x, p, False), args=("float",)),
    FuzzOp("torch.embedding", lambda L, w, i: L.embedding(w, i), inputs=("x", "idx1")),
    FuzzOp("torch.constant_pad_nd", lambda L, x, p, v: L.constant_pad_nd(x, p, v), args=("pad", "scalar")),
    FuzzOp("torch.max_pool1d", lambda L, x, k, s: L.max_pool1d(x, k, s or ()), args=("k", "k")),
    FuzzOp("torch.avg_pool1d", lambda L, x, k, c: L.avg_pool1d(x, k, (), 0, c), args=("k", "bool")),
    FuzzOp("torch.adaptive_max_pool1d", lambda L, x, k: L.adaptive_max_pool1d(x, k), args=("k",)),
    FuzzOp("torch.pixel_shuffle", lambda L, x, r: L.pixel_shuffle(x, r), args=("k",)),
    FuzzOp("torch.channel_shuffle", lambda L, x, g: L.channel_shuffle(x, g), args=("k",)),
    FuzzOp("torch.kl_div", lambda L, x, y, r: L.kl_div(x, y, r), inputs=("x", "y"), args=("reduction",), dtypes=FLOATS),
    FuzzOp("torch.bce_with_logits", lambda L, x, y, r: L.binary_cross_entropy_with_logits(x, y, None, None, r), inputs=("x", "y"), args=("reduction",), dtypes=FLOATS),
    FuzzOp("torch.hinge_embedding_loss", lambda L, x, y, r: L.hinge_embedding_loss(x, y, 1.0, r), inputs=("x", "y"), args=("reduction",)),
    FuzzOp("torch.margin_ranking_loss", lambda L, x, y, z: L.margin_ranking_loss(x, y, z, 0.5, 1), inputs=("x", "y", "y")),
    FuzzOp("torch.pairwise_distance", lambda L, x, y, p: L.pairwise_distance(x, y, p), inputs=("x", "y"), args=("p",)),
    FuzzOp("torch.pdist", lambda L, x, p: L.pdist(x, p), args=("p",)),
    FuzzOp("torch.cosine_similarity", lambda L, x, y, d: L.cosine_similarity(x, y, d), inputs=("x", "y"), args=("dim",), per_input_precision=True, cancels=True),
    FuzzOp("torch.rms_norm", lambda L, x: L.rms_norm(x, x.shape[-1:])),
    FuzzOp("torch.rnn_tanh_cell", lambda L, x, h, w: L.rnn_tanh_cell(x, h, w, w.t() if w.dim() == 2 else w), inputs=("x", "x", "mat")),
    # Grid sampling.
    FuzzOp("F.affine_grid", lambda L, x, ac: _F(L).affine_grid(_theta(x, 2), [2, 1, 3, 2], align_corners=ac), args=("bool",), dtypes=FLOATS),
    FuzzOp("F.affine_grid_raw", lambda L, x, s: _F(L).affine_grid(x, s, align_corners=False), args=("size",), dtypes=FLOATS),
    # Weighted sums of up to 16 samples (bicubic weights are negative too): near-0 results are rounding noise.
    FuzzOp("F.grid_sample", lambda L, x, y, m, p, ac: _F(L).grid_sample(x, _grid(x, y), m, p, ac), inputs=("x", "y"), args=("gmode", "gpad", "bool"), dtypes=FLOATS, cancels=True),
    FuzzOp("torch.grid_sampler", lambda L, x, y, m, p: L.grid_sampler(x, _grid(x, y), m, p, False), inputs=("x", "y"), args=("k", "k"), dtypes=FLOATS, cancels=True),
]


def _die(L: Any, how: str) -> None:
    """The harness's own tests: a worker that dies (as a Rust abort would) or hangs."""
    if L is ferrotorch:
        if how == "abort":
            os.abort()
        time.sleep(3600)


SELFTEST = [FuzzOp("selftest.abort", lambda L: _die(L, "abort"), inputs=()), FuzzOp("selftest.hang", lambda L: _die(L, "hang"), inputs=())]


def _all_ops() -> Dict[str, FuzzOp]:
    ops = [_table_op(o, "unary") for o in UNARY] + [_table_op(o, "binary") for o in BINARY]
    ops += [_table_op(o, "reduction") for o in REDUCTIONS] + GENERIC + ADDED + SELFTEST
    return {o.name: o for o in ops}


OPS = _all_ops()

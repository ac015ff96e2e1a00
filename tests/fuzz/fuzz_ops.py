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


def _table_op(op: Any, kind: str) -> FuzzOp:
    """An op_table entry: ferrotorch's lambda, or the same lambda executed under PyTorch."""
    ours, theirs = op.fn, PT_FNS[op.name]

    def call(L: Any, *a: Any) -> Any:
        return (ours if L is ferrotorch else theirs)(*a)

    shape = {"unary": (("x",), ()), "binary": (("x", "y"), ()), "reduction": (("x",), ("dim?" if not op.tuple_dims else "dims?", "bool"))}[kind]
    return FuzzOp(f"table.{op.name}", call, shape[0], shape[1], tuple(op.dtypes), tuple(op.domain))


def _nonfinite_or_big(x: Any, *_: Any) -> bool:
    """A float tensor with values no integer dtype holds (casting them is UB in C++)."""
    if not x.dtype.is_floating_point or x.numel() == 0:
        return False
    v = x.detach().double()
    return bool((~v.isfinite()).any()) or bool((v.abs() >= 128).any())


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
    FuzzOp("scatter_add", lambda L, x, i, y, d: x.scatter_add(d, i, y.expand_as(i).to(x.dtype)), inputs=("x", "idxg", "x"), args=("dim",)),
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
    FuzzOp("sum_dtype_arg", lambda L, x, d: x.sum(dtype=d), args=("dtype",)),
    FuzzOp("mean_all", lambda L, x: x.mean()),
    FuzzOp("prod_all", lambda L, x: x.prod()),
    FuzzOp("std_all", lambda L, x: x.std()),
    FuzzOp("cumsum_dim", lambda L, x, d: L.cumsum(x, d), args=("dim",)),
    FuzzOp("allclose", lambda L, x, y: L.allclose(x, y), inputs=("x", "y")),
    FuzzOp("equal", lambda L, x, y: L.equal(x, y), inputs=("x", "y")),
    # Matrix products.
    FuzzOp("matmul", lambda L, x, y: L.matmul(x, y), inputs=("x", "mat")),
    FuzzOp("mm", lambda L, x, y: L.mm(x, y), inputs=("x", "mat")),
    FuzzOp("bmm", lambda L, x, y: L.bmm(x, y), inputs=("x", "mat")),
    FuzzOp("dot", lambda L, x, y: L.dot(x, y), inputs=("x", "x")),
    FuzzOp("outer", lambda L, x, y: L.outer(x, y), inputs=("x", "x")),
    FuzzOp("einsum_ij_jk", lambda L, x, y: L.einsum("ij,jk->ik", x, y), inputs=("x", "mat")),
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
    FuzzOp("F.linear", lambda L, x, w: _F(L).linear(x, w), inputs=("x", "x")),
    FuzzOp("F.layer_norm", lambda L, x: _F(L).layer_norm(x, x.shape[-1:])),
    FuzzOp("F.dropout_eval", lambda L, x: _F(L).dropout(x, 0.5, training=False)),
    FuzzOp("F.mse_loss", lambda L, x, y: _F(L).mse_loss(x, y), inputs=("x", "y")),
    FuzzOp("F.l1_loss", lambda L, x, y: _F(L).l1_loss(x, y), inputs=("x", "y")),
    FuzzOp("F.cosine_similarity", lambda L, x, y, d: _F(L).cosine_similarity(x, y, d), inputs=("x", "y"), args=("dim",)),
    FuzzOp("F.cross_entropy", lambda L, x, i: _F(L).cross_entropy(x, i.flatten()[: x.shape[0]] if x.dim() else i), inputs=("x", "idx1")),
    FuzzOp("F.max_pool1d", lambda L, x, k: _F(L).max_pool1d(x, k), args=("k",)),
    FuzzOp("F.avg_pool1d", lambda L, x, k: _F(L).avg_pool1d(x, k), args=("k",)),
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
    ops += [_table_op(o, "reduction") for o in REDUCTIONS] + GENERIC + SELFTEST
    return {o.name: o for o in ops}


OPS = _all_ops()

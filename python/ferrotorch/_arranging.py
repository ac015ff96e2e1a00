"""Rearranging and combining tensors, composed of core ops so autograd comes for free: rot90,
fliplr/flipud, atleast_3d, dstack/row_stack, block_diag, diagflat, kron, tensordot, vdot,
cartesian_prod, combinations, tril/triu_indices, unravel_index, msort, Tensor.sum_to_size."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

from . import _core
from ._index_ops import meshgrid
from ._op_entry import op_entry
from ._splitting import type_name, wrap_dim

Tensor = _core.Tensor


def write_out(result: Tensor, out: Optional[Tensor]) -> Tensor:
    """``result``, or ``out`` filled with it (same shape and dtype required: there is no resize)."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"out= expects a tensor of shape {list(result.shape)}, but got shape {list(out.shape)}")
    out[...] = result
    return out


@op_entry("rot90")
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """``input`` rotated by ``k`` quarter turns in the plane of ``dims``, from the first dim
    towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def fliplr(input: Tensor) -> Tensor:
    """``input`` flipped along dim 1 (left/right)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip([1])


def flipud(input: Tensor) -> Tensor:
    """``input`` flipped along dim 0 (up/down)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip([0])


def _to_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor viewed with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1). One
    tensor gives a tensor; several, or one sequence, give a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_to_3d(t) for t in tensors[0])
    out = tuple(_to_3d(t) for t in tensors)
    return out[0] if len(out) == 1 else out


def dstack(tensors: Sequence[Tensor], *, out: Optional[Tensor] = None) -> Tensor:
    """Concatenation along dim 2 of the tensors made at least 3-d."""
    if len(tensors) == 0:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return write_out(_core.cat([_to_3d(t) for t in tensors], 2), out)


def row_stack(tensors: Sequence[Tensor], *, out: Optional[Tensor] = None) -> Tensor:
    """Alias of ``vstack``: concatenation along dim 0 of the tensors made at least 2-d."""
    if len(tensors) == 0:
        raise RuntimeError("vstack expects a non-empty TensorList")
    ts = [t.reshape(1, 1) if t.ndim == 0 else (t.unsqueeze(0) if t.ndim == 1 else t) for t in tensors]
    return write_out(_core.cat(ts, 0), out)


def _promoted(tensors: Sequence[Tensor]) -> Any:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _core.promote_types(dtype, t.dtype)
    return dtype


def _result_type(tensors: Sequence[Tensor]) -> Any:
    """PyTorch's ``result_type`` of several tensors: the dims tensors' promoted dtype decides,
    the 0-d tensors' promoted dtype counts only from a higher category (bool < int < float <
    complex), as a 0-d tensor does in a binary op."""
    dimmed = [t.dtype for t in tensors if t.ndim]
    zero_d = [t.dtype for t in tensors if not t.ndim]
    if not dimmed or not zero_d:
        return _promoted(tensors)
    high = _promoted([_core.empty(1, dtype=d) for d in dimmed])
    low = _promoted([_core.empty((), dtype=d) for d in zero_d])
    return _core.result_type(_core.empty(1, dtype=high), _core.empty((), dtype=low))


@op_entry("block_diag")
def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d as 1x1, 1-d as one row) placed along the diagonal of a matrix of zeros,
    in the promoted dtype."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.ndim} dimensions")
    if not tensors:
        return _core.zeros(1, 0)
    dtype = _result_type(tensors)
    blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    total = sum(b.shape[1] for b in blocks)
    rows, col = [], 0
    # Each block padded with zero columns to the full width, then the rows concatenated: cat
    # carries the gradient of every block.
    for b in blocks:
        r, c = b.shape
        parts = [_core.zeros(r, col, dtype=dtype), b.to(dtype), _core.zeros(r, total - col - c, dtype=dtype)]
        rows.append(_core.cat(parts, 1))
        col += c
    return _core.cat(rows, 0)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on diagonal ``offset``."""
    from ._matrix_ops import diag

    return diag(input.reshape(-1), offset)


@op_entry("kron")
def kron(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Kronecker product: blocks ``input[i...] * other`` laid out in a tensor of shape
    ``input.shape * other.shape`` (the shorter shape padded with leading ones)."""
    n = max(input.ndim, other.ndim)
    a_shape = [1] * (n - input.ndim) + list(input.shape)
    b_shape = [1] * (n - other.ndim) + list(other.shape)
    # Interleave: a as (a0, 1, a1, 1, ...) and b as (1, b0, 1, b1, ...); the broadcast product
    # reshaped to (a0*b0, a1*b1, ...) is the Kronecker product.
    a = input.reshape([s for d in a_shape for s in (d, 1)])
    b = other.reshape([s for d in b_shape for s in (1, d)])
    return write_out((a * b).reshape([x * y for x, y in zip(a_shape, b_shape)]), out)


def _tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> Tuple[List[int], List[int]]:
    if isinstance(dims, Tensor):
        dims = int(dims.item()) if dims.ndim == 0 else dims.tolist()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if not isinstance(dims, (list, tuple)):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two "
            f"lists, but got dims={dims}"
        )
    if len(dims) != 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {len(dims)})")
    da, db = dims
    for name, d in (("dims_self", da), ("dims_other", db)):
        if not isinstance(d, (list, tuple)):
            raise TypeError(f"tensordot(): argument '{name}' must be tuple of ints, not {type(d).__name__}")
    return [int(d) for d in da], [int(d) for d in db]


@op_entry("tensordot")
def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Optional[Tensor] = None) -> Tensor:
    """Sum of products over the dims ``dims`` of ``a`` and ``b`` (the last ``dims`` of ``a`` with
    the first of ``b`` for an int); the result holds a's free dims then b's."""
    da, db = _tensordot_dims(a, b, dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [wrap_dim(d, a.ndim) for d in da]
    db = [wrap_dim(d, b.ndim) for d in db]
    for x, y in zip(da, db):
        # A size-1 dim against a larger one: PyTorch sums the larger one out first.
        if a.shape[x] != b.shape[y] and a.shape[x] == 1:
            b = b.sum(y, keepdim=True).to(b.dtype)
        elif a.shape[x] != b.shape[y] and b.shape[y] == 1:
            a = a.sum(x, keepdim=True).to(a.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} and second has size "
                f"{b.shape[y]} in dim {y}"
            )
    for dl in (da, db):
        seen = set()
        for d in dl:
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    fa = [a.shape[d] for d in free_a]
    fb = [b.shape[d] for d in free_b]
    # Contract as one matrix product: a -> (free_a, K), b -> (K, free_b).
    rows, cols = 1, 1
    for s in fa:
        rows *= s
    for s in fb:
        cols *= s
    if a.dtype == _core.bool and not fa and not fb:
        # A full contraction (0-d result): PyTorch takes dot of the flattened operands when both
        # permuted operands are contiguous (no bool kernel: NotImplementedError, even when
        # empty) and otherwise sums their elementwise product, which bool supports (logical or
        # of ands). Which path runs follows the operands' strides.
        pa = a.permute(da) if a.ndim else a
        pb = b.permute(db) if b.ndim else b
        if pa.is_contiguous() and pb.is_contiguous():
            raise NotImplementedError("tensordot: \"dot\" not implemented for 'Bool'")
        return write_out((pa * pb).sum(dtype=_core.bool), out)
    am = a.permute(free_a + da).reshape(rows, k) if a.ndim else a.reshape(1, 1)
    bm = b.permute(db + free_b).reshape(k, cols) if b.ndim else b.reshape(1, 1)
    if a.dtype == _core.bool and rows == 1 and cols == 1 and a.ndim:
        # A one-element product of bool operands: PyTorch's mm takes dot when the first
        # operand's row is contiguous (no bool kernel, even when empty), else a product-sum.
        if a.permute(free_a + da).is_contiguous():
            raise NotImplementedError("tensordot: \"dot\" not implemented for 'Bool'")
        return write_out((am.reshape(-1) * bm.reshape(-1)).sum(dtype=_core.bool).reshape(fa + fb), out)
    if am.dtype == _core.bool and (am.numel() == 0 or bm.numel() == 0):
        # PyTorch has no bool product kernel, but an empty one never runs: all False.
        return write_out(_core.zeros(fa + fb, dtype=_core.bool), out)
    return write_out(am.matmul(bm).reshape(fa + fb), out)


@op_entry("vdot")
def vdot(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Dot product of two 1-d tensors of one dtype, the first conjugated when complex."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {type_name(input)} and {type_name(other)}"
        )
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have the same "
            f"number of elements, but got {input.shape[0]} and {other.shape[0]} elements respectively"
        )
    a = input.conj() if input.dtype.is_complex else input
    return write_out(a.dot(other), out)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """All tuples of one element of each 1-d tensor, one per row, the last tensor varying fastest."""
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = meshgrid(*tensors, indexing="ij")
    return _core.stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of the elements of a 1-d tensor (as itertools'
    ``combinations`` / ``combinations_with_replacement``), one per row."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_zeros((0,))
    n = input.shape[0]
    # The index grids of r positions (row-major: lexicographic order), kept where the indices
    # increase (or do not decrease, with replacement).
    grids = [g.reshape(-1) for g in meshgrid(*([_core.arange(n)] * r), indexing="ij")]
    keep = _core.ones(n**r, dtype=_core.bool)
    for lo, hi in zip(grids, grids[1:]):
        keep = keep & ((lo <= hi) if with_replacement else (lo < hi))
    cols = [input.index_select(0, g[keep]) for g in grids]
    return _core.stack(cols, 1)


def _tri_indices(name: str, row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype is None:
        dtype = _core.int64
    if dtype not in (_core.int64, _core.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_TYPE_OF.get(str(dtype).split('.')[-1], str(dtype))}'")
    r = _core.arange(row).unsqueeze(1).expand(row, col)
    c = _core.arange(col).unsqueeze(0).expand(row, col)
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return _core.stack([r[keep], c[keep]], 0).to(dtype)


_TYPE_OF = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int16": "Short",
    "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None,
    pin_memory: Optional[bool] = False, requires_grad: bool = False,
) -> Tensor:
    """The (2, N) row/column indices of the lower triangle (on and below diagonal ``offset``) of
    a ``row`` x ``col`` matrix, in row-major order."""
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None,
    pin_memory: Optional[bool] = False, requires_grad: bool = False,
) -> Tensor:
    """The (2, N) row/column indices of the upper triangle (on and above diagonal ``offset``) of
    a ``row`` x ``col`` matrix, in row-major order."""
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


def unravel_index(indices: Tensor, shape: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    """The coordinates, one int64 tensor per dim of ``shape``, of flat (row-major) ``indices``;
    negative or too large indices wrap as Python's floor division and modulo do."""
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _core.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int) and not isinstance(shape, bool):
        dims = [shape]
    elif isinstance(shape, (list, tuple)):
        for d in shape:
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        dims = list(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(dims)}")
    if any(d == 0 for d in dims) and indices.numel() != 0:
        raise ValueError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got {tuple(dims)}")
    flat = indices.to(_core.int64)
    out, coef = [], 1
    for d in reversed(dims):
        out.append(flat.floor_divide(coef) % d if d else flat * 0)
        coef *= d
    return tuple(reversed(out))


def msort(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """``input`` sorted along dim 0 (ascending)."""
    return write_out(input.sort(dim=0).values, out)


def sum_to_size(self: Tensor, *size: Any, **kwargs: Any) -> Tensor:
    """``self`` summed down to ``size``, which must be expandable to ``self.shape``: leading dims
    summed away, dims of size 1 in ``size`` summed with keepdim. ``self`` itself when equal."""
    if "size" in kwargs and not size:
        size = (kwargs.pop("size"),)
    if kwargs:
        raise TypeError(f"sum_to_size() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    target = [int(s) for s in size]
    shape = list(self.shape)
    lead = len(shape) - len(target)
    if lead < 0 or any(t != 1 and t != s for t, s in zip(target, shape[lead:])):
        raise RuntimeError(f"size {{{target}}} is not expandable to size {{{shape}}}.")
    if not target:  # PyTorch sums to an empty size even for a 0-d self (ints become int64)
        return self.sum()
    if target == shape:
        return self
    dims = list(range(lead)) + [lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1]
    result = self.sum(dims, keepdim=True) if dims else self
    return result.reshape(target)


FUNCTIONS = (
    rot90, fliplr, flipud, atleast_3d, dstack, row_stack, block_diag, diagflat, kron, tensordot, vdot,
    cartesian_prod, combinations, tril_indices, triu_indices, unravel_index, msort,
)

"""Shape and index operations composed from the core primitives (so autograd comes for free):
where, tril/triu, repeat, repeat_interleave, roll, take_along_dim, meshgrid, pad, einsum, ..."""

from __future__ import annotations

import string
from typing import Any, List, Optional, Sequence, Tuple, Union

from . import _core

Tensor = _core.Tensor


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """``where(cond, x, y)`` picks from x where cond is True; ``where(cond)`` is
    ``nonzero(as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() expects either 1 or 3 arguments")
    return _core._where3(condition, input, other)


def _tri_mask(t: Tensor, diagonal: int, upper: bool) -> Tensor:
    if t.ndim < 2:
        raise RuntimeError(f"{'triu' if upper else 'tril'}: input tensor must have at least 2 dimensions (got shape {list(t.shape)})")
    r = _core.arange(t.shape[-2]).unsqueeze(1)
    c = _core.arange(t.shape[-1]).unsqueeze(0)
    return (c - r >= diagonal) if upper else (c - r <= diagonal)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """Lower triangle (elements on and below ``diagonal``); the rest are zero."""
    return _core._where3(_tri_mask(input, diagonal, False), input, _core.zeros((), dtype=input.dtype))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """Upper triangle (elements on and above ``diagonal``); the rest are zero."""
    return _core._where3(_tri_mask(input, diagonal, True), input, _core.zeros((), dtype=input.dtype))


def _inplace_from(self: Tensor, result: Tensor) -> Tensor:
    self.copy_(result) if hasattr(Tensor, "copy_") else self.__setitem__(Ellipsis, result)
    return self


def _sizes(args: Tuple[Any, ...]) -> List[int]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return [int(a) for a in args[0]]
    return [int(a) for a in args]


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """Tiles the tensor ``sizes[i]`` times along dim i (new leading dims when needed)."""
    reps = _sizes(sizes)
    if len(reps) < self.ndim:
        raise RuntimeError(f"repeat: Number of dimensions of repeat dims ({len(reps)}) can not be smaller than number of dimensions of tensor ({self.ndim})")
    x = self.reshape([1] * (len(reps) - self.ndim) + list(self.shape))
    inter: List[int] = []
    expanded: List[int] = []
    for r, s in zip(reps, x.shape):
        inter += [1, s]
        expanded += [r, s]
    # contiguous(): repeat's result owns its memory, as in PyTorch (reshape alone may keep a
    # stride-0 view that aliases one element).
    return x.reshape(inter).expand(expanded).contiguous().reshape([r * s for r, s in zip(reps, x.shape)])


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    """Like ``repeat``, padding ``dims`` with ones on the left."""
    dims = list(dims)
    if len(dims) < input.ndim:
        dims = [1] * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: Optional[int] = None, *, output_size: Optional[int] = None) -> Tensor:
    """Repeats each element ``repeats`` times (an int or a per-element tensor)."""
    if repeats is None:
        # repeat_interleave(repeats_tensor): indices repeated by their counts.
        counts = input.tolist()
        return _core.tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=_core.int64)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else dim % max(x.ndim, 1)
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        counts = repeats.tolist()
        if len(counts) != x.shape[d]:
            raise RuntimeError(f"repeat_interleave: repeats must have the same size as input along dim, but got repeats.size(0) = {len(counts)} and input.size({d}) = {x.shape[d]}")
        if any(c < 0 for c in counts):
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        idx = _core.tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=_core.int64)
        return x.index_select(d, idx)
    r = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if r < 0:
        raise RuntimeError("repeat_interleave: repeats can not be negative")
    shape = list(x.shape)
    y = x.unsqueeze(d + 1)
    ex = shape[: d + 1] + [r] + shape[d + 1 :]
    return y.expand(ex).reshape(shape[:d] + [shape[d] * r] + shape[d + 1 :])


def roll(input: Tensor, shifts: Union[int, Sequence[int]], dims: Union[None, int, Sequence[int]] = None) -> Tensor:
    """Rotates elements along dims (the flattened tensor when ``dims`` is None)."""
    if input.numel() == 0:
        return input.clone()  # PyTorch returns before looking at shifts or dims
    if dims is None:
        if not isinstance(shifts, int):
            raise RuntimeError("roll: dims must be given when shifts is a sequence")
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts_l = [shifts] if isinstance(shifts, int) else list(shifts)
    dims_l = [dims] if isinstance(dims, int) else list(dims)
    if len(shifts_l) != len(dims_l):
        raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(shifts_l)}, dims: {len(dims_l)}")
    out = input
    for s, d in zip(shifts_l, dims_l):
        n = out.shape[d]
        if n == 0:
            continue
        idx = _core.tensor([(i - s) % n for i in range(n)], dtype=_core.int64)
        out = out.index_select(d, idx)
    return out


def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    """Gathers values along ``dim`` with indices broadcast against the input."""
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = dim % input.ndim
    shape_i = list(input.shape)
    shape_x = list(indices.shape)
    bshape = list(_core.broadcast_shapes(tuple(shape_i[:d] + [1] + shape_i[d + 1 :]), tuple(shape_x[:d] + [1] + shape_x[d + 1 :])))
    x = input.expand(bshape[:d] + [shape_i[d]] + bshape[d + 1 :])
    idx = indices.expand(bshape[:d] + [shape_x[d]] + bshape[d + 1 :])
    return x.gather(d, idx)


def meshgrid(*tensors: Any, indexing: str = "ij") -> Tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors (``indexing='ij'`` or ``'xy'``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be one of 'ij' or 'xy', got {indexing!r}")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """Constant padding; ``pad`` lists (left, right) pairs starting from the last dim.
    Negative amounts crop."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode '{mode}' is not supported yet (only 'constant')")
    if len(pad) % 2 != 0 or len(pad) // 2 > input.ndim:
        raise RuntimeError(f"pad: Padding length must be divisible by 2 and at most twice the number of dims; got {len(pad)} for a {input.ndim}-D input")
    if not any(pad):
        return input.clone()  # nothing to fill, so the value is not checked (PyTorch)
    x = input
    new_shape = list(x.shape)
    slices: List[Any] = [slice(None)] * x.ndim
    for k in range(len(pad) // 2):
        d = x.ndim - 1 - k
        left, right = int(pad[2 * k]), int(pad[2 * k + 1])
        # Crop first for negative pads, then pad the rest.
        if left < 0:
            x = x.narrow(d, -left, x.shape[d] + left)
            left = 0
        if right < 0:
            x = x.narrow(d, 0, x.shape[d] + right)
            right = 0
        new_shape[d] = x.shape[d] + left + right
        slices[d] = slice(left, left + x.shape[d])
    for d in range(x.ndim - len(pad) // 2):
        new_shape[d] = x.shape[d]
    if 0 in new_shape:
        value = None  # nothing is filled, so the value is not checked
    elif all(int(p) <= 0 for p in pad):
        return x.clone()  # cropping only: no value is written, so none is checked
    # The value is a float, as in PyTorch: -1 does not fit uint8 (while the int -1 would wrap).
    out = _core.full(new_shape, 0 if value is None else float(value), dtype=x.dtype)
    out[tuple(slices)] = x
    return out


def _atleast(t: Tensor, n: int) -> Tensor:
    while t.ndim < n:
        t = t.unsqueeze(0) if n != 3 or t.ndim != 2 else t.unsqueeze(-1)
    return t


def atleast_1d(*tensors: Tensor) -> Any:
    out = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors: Tensor) -> Any:
    out = [t.reshape(1, 1) if t.ndim == 0 else (t.unsqueeze(0) if t.ndim == 1 else t) for t in tensors]
    return out[0] if len(out) == 1 else tuple(out)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenates along dim 1 (dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t) for t in tensors]
    return _core.cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenates along dim 0 after making tensors at least 2-D."""
    return _core.cat([atleast_2d(t) for t in tensors], 0)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Stacks 1-D tensors as columns (2-D tensors are concatenated as they are)."""
    return _core.cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], 1)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """1-D tensor of the elements where the (broadcast) mask is True."""
    return input.masked_select(mask)


def _wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` in ``0..ndim``; a 0-d tensor takes -1 and 0, as PyTorch's dims do."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def movedim(input: Tensor, source: Union[int, Sequence[int]], destination: Union[int, Sequence[int]]) -> Tensor:
    """Moves dims to new positions; the other dims keep their order."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.ndim
    src = [_wrap_dim(s, n) for s in src]
    dst = [_wrap_dim(d, n) for d in dst]
    if n == 0:
        return input.view(())
    order: List[Optional[int]] = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter([i for i in range(n) if i not in src])
    perm = [o if o is not None else next(rest) for o in order]
    return input.permute(tuple(perm))


def _einsum_pair_dtypes(prepared: List[Tuple[str, Tensor]], out: str, sizes: dict) -> Optional[Tensor]:
    """PyTorch's dtype rules for a pair of operands. A summed letter of size 1 in either
    operand is summed out of the other first, so only letters of size > 1 in both need bmm;
    without one the pair is a broadcast product (types promote). bmm runs on the left
    operand's kernel (none for bool), then requires the right one to match; an empty operand
    skips it all: zeros of the right operand's dtype."""
    from ._statistics_util import kind

    (tl, a), (tr, b) = prepared
    own_a, own_b = dict(zip(tl, a.shape)), dict(zip(tr, b.shape))
    if any(c in own_b and c not in out and own_a[c] != 1 and own_b[c] != 1 for c in tl):
        if a.numel() == 0 or b.numel() == 0:
            return _core.zeros([sizes[c] for c in out], dtype=b.dtype)
        if a.dtype == _core.bool:
            raise NotImplementedError("einsum(): \"bmm\" not implemented for 'Bool'")
        if a.dtype != b.dtype:
            raise RuntimeError(f"einsum(): expected scalar type {kind(a.dtype)} but found {kind(b.dtype)}")
    return None


def _einsum_sum_private(prepared: List[Tuple[str, Tensor]], out: str) -> List[Tuple[str, Tensor]]:
    """PyTorch first sums, within each operand of a pair, the summed letters the other operand
    lacks (or holds with size 1): values then follow its order (an inf times a mixed-sign sum
    stays infinite instead of meeting -inf), and such a plain sum widens integers to int64."""
    (tl, a), (tr, b) = prepared
    own_a, own_b = dict(zip(tl, a.shape)), dict(zip(tr, b.shape))

    def private(t: str, own: dict, other: dict) -> Tuple[int, ...]:
        return tuple(i for i, c in enumerate(t) if c not in out and own[c] != 1 and other.get(c, 1) == 1)

    da, db = private(tl, own_a, own_b), private(tr, own_b, own_a)
    return [(tl, a.sum(da, keepdim=True) if da else a), (tr, b.sum(db, keepdim=True) if db else b)]


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation built from diagonal, permute, broadcast multiply, sum and matmul.

    >>> import ferrotorch as torch
    >>> torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 4)).shape
    torch.Size([2, 4])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
        explicit = True
    else:
        lhs, out, explicit = eq, "", False
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation" if len(operands) > len(terms) else "einsum(): fewer operands were provided than specified in the equation")
    # Give '...' a run of fresh letters sized to the broadcast dims of each operand.
    free = [c for c in string.ascii_letters if c not in eq]
    ell_n = max((op.ndim - (len(t) - 3) for t, op in zip(terms, operands) if "..." in t), default=0)
    ell = "".join(free[:ell_n])
    terms = [t.replace("...", ell[ell_n - (op.ndim - (len(t) - 3)) :] if "..." in t else "") for t, op in zip(terms, operands)]
    if explicit:
        out = out.replace("...", ell)
    else:
        counts: dict = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    if len(operands) > 2 and any(op.dtype != operands[0].dtype for op in operands):
        # PyTorch contracts with bmm, which takes one dtype.
        other = next(op.dtype for op in operands if op.dtype != operands[0].dtype)
        raise RuntimeError(f"einsum(): expected scalar type {operands[0].dtype} but found {other}")
    sizes: dict = {}
    prepared = []
    for t, op in zip(terms, operands):
        if len(t) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) does not match the number of dimensions ({op.ndim}) for operand {terms.index(t)}")
        # Repeated letters within one operand take the diagonal.
        while len(set(t)) != len(t):
            c = next(ch for ch in t if t.count(ch) > 1)
            i = t.index(c)
            j = t.index(c, i + 1)
            op = op.diagonal(0, i, j)
            t = t[:i] + t[i + 1 : j] + t[j + 1 :] + c
        for c, s in zip(t, op.shape):
            if c in sizes and sizes[c] != s and s != 1 and sizes[c] != 1:
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes: subscript '{c}' has size {s} and {sizes[c]}")
            sizes[c] = s if sizes.get(c, 1) == 1 else sizes[c]  # 1 broadcasts (to 0 too)
        prepared.append((t, op))
    if len(prepared) == 2:
        prepared = _einsum_sum_private(prepared, out)
        early = _einsum_pair_dtypes(prepared, out, sizes)
        if early is not None:
            return early
    letters = list(out) + sorted({c for t, _ in prepared for c in t if c not in out})
    # Bring every operand to the full letter order, multiply with broadcasting, sum the rest.
    result = None
    for t, op in prepared:
        perm = [t.index(c) for c in letters if c in t]
        x = op.permute(tuple(perm)) if perm else op
        own = dict(zip(t, op.shape))  # the operand's own sizes: 1 where it broadcasts
        x = x.reshape([own[c] if c in t else 1 for c in letters])
        result = x if result is None else result * x
    assert result is not None
    n_out = len(out)
    if len(letters) > n_out:
        # The contraction keeps the operands' dtype (a sum alone would widen integers).
        result = result.sum(tuple(range(n_out, len(letters))), dtype=result.dtype)
    return result.reshape([sizes[c] for c in out]) if n_out else result.reshape(())


def install() -> None:
    """Attaches the method forms to Tensor."""
    Tensor.repeat = repeat  # type: ignore[attr-defined]
    Tensor.where = lambda self, condition, y: _core._where3(condition, self, y)  # type: ignore[attr-defined]
    Tensor.tile = tile  # type: ignore[attr-defined]
    Tensor.repeat_interleave = repeat_interleave  # type: ignore[attr-defined]
    Tensor.roll = roll  # type: ignore[attr-defined]
    Tensor.tril = tril  # type: ignore[attr-defined]
    Tensor.triu = triu  # type: ignore[attr-defined]
    Tensor.tril_ = lambda self, diagonal=0: _inplace_from(self, tril(self, diagonal))  # type: ignore[attr-defined]
    Tensor.triu_ = lambda self, diagonal=0: _inplace_from(self, triu(self, diagonal))  # type: ignore[attr-defined]
    Tensor.take_along_dim = take_along_dim  # type: ignore[attr-defined]
    Tensor.movedim = movedim  # type: ignore[attr-defined]
    Tensor.moveaxis = movedim  # type: ignore[attr-defined]

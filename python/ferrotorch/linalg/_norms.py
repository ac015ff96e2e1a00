"""Norms and condition numbers: ``vector_norm``, ``matrix_norm``, ``norm`` and ``cond``,
composed from differentiable ops (reductions, ``svdvals``, ``inv``)."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from .._core import Tensor, promote_types
from ._inverses import inv_ex
from ._spectral import svdvals

Dim = Optional[Union[int, Sequence[int]]]
_FLOATS = ("float32", "float64", "float16", "bfloat16")


def _is_float(dtype: Any) -> bool:
    return str(dtype).split(".")[-1] in _FLOATS


def _type_name(dtype: Any) -> str:
    """PyTorch's C++ name of a dtype, as its linalg messages print it."""
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    name = str(dtype).split(".")[-1]
    return names.get(name, name)


def _check_float(op: str, x: Tensor) -> None:
    if not _is_float(x.dtype):
        raise NotImplementedError(f"{op}: Expected a floating point or complex tensor as input. Got {_type_name(x.dtype)}")


def _cast(op: str, x: Tensor, dtype: Any) -> Tensor:
    if dtype is None:
        return x
    if not _is_float(dtype) and not dtype.is_complex:
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {_type_name(dtype)}")
    if dtype.is_complex and not x.dtype.is_complex:
        raise RuntimeError(f"{op}: dtype should be real for real inputs, but got {_type_name(dtype)}")
    if promote_types(x.dtype, dtype) != dtype:
        raise RuntimeError(
            f"{op}: the dtype of the input ({_type_name(x.dtype)}) should be convertible without narrowing to the "
            f"specified dtype ({_type_name(dtype)})"
        )
    return x.to(dtype)


def _wrap_norm_dim(x: Tensor, d: int) -> int:
    n = max(x.ndim, 1)  # a 0-d tensor takes dims 0 and -1
    if not -n <= d < n:
        raise IndexError(f"norm: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def check_vector_norm_dims(x: Tensor, ord: float, dims: Optional[Sequence[int]]) -> None:
    """The argument checks of a vector norm, in PyTorch's order: for an order without an
    identity (negative or inf) on an empty tensor, each reduced dim in turn must exist and be
    non-empty (all dims when ``dims`` is None or empty); then the dims are wrapped one by one,
    an out-of-range dim (IndexError) or a repeat (RuntimeError) failing where it is met."""
    if x.numel() == 0 and (ord < 0 or ord == math.inf):
        shown = format(ord, "g")
        if not dims:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the operation does not have an identity"
                f" (shape {list(x.shape)})"
            )
        for d in dims:
            if x.shape[_wrap_norm_dim(x, d)] == 0:
                # PyTorch's message, missing space included.
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {shown} norm on the dimension {d}because this dimension is empty"
                    f" and the operation does not have an identity (shape {list(x.shape)})"
                )
    seen: set = set()
    for d in dims or ():
        w = _wrap_norm_dim(x, d)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)


def vector_norm(x: Tensor, ord: Union[int, float] = 2, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The vector ``ord``-norm of x over ``dim`` (all elements when None): ``sum(|x|^ord)^(1/ord)``,
    ``max |x|`` for inf, ``min |x|`` for -inf, the count of nonzeros for 0.

    >>> import ferrotorch as torch
    >>> torch.linalg.vector_norm(torch.tensor([3.0, -4.0]))
    tensor(5.)
    """
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    if not x.dtype.is_complex:  # a complex vector's norm is that of its moduli
        _check_float("linalg.vector_norm", x)
        x = _cast("linalg.vector_norm", x, dtype)
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    check_vector_norm_dims(x, float(ord), dims)
    return x.norm(float(ord), dims, keepdim)


def _norm_dims(op: str, A: Tensor, dim: Sequence[int]) -> tuple:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _singular_values_at(A: Tensor, d0: int, d1: int) -> Tensor:
    """svdvals of the matrices spanned by dims d0, d1 (moved last)."""
    return svdvals(A.movedim((d0, d1), (-2, -1)))


def _restore_dims(r: Tensor, d0: int, d1: int, keepdim: bool) -> Tensor:
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r


def matrix_norm(A: Tensor, ord: Union[str, int, float] = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The matrix ``ord``-norm over the two dims ``dim``: 'fro', 'nuc' (sum of singular
    values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of
    |A|), inf / -inf (max / min row sum of |A|)."""
    op = "linalg.matrix_norm"
    # PyTorch's order: the order, A's rank, A's dtype, the dims, then the dtype argument.
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{op}: Order {ord if isinstance(ord, str) else format(ord, 'g')} not supported.")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_complex:
        _check_float(op, A)
    d0, d1 = _norm_dims(op, A, dim)
    A = _cast(op, A, dtype)
    if A.dtype.is_complex and ord in ("fro", 1, -1, math.inf, -math.inf):
        # These norms depend on the moduli only; complex singular values have no kernel yet.
        A = A.abs()
    if ord == "fro":
        return A.norm(2.0, [d0, d1], keepdim)
    if ord == "nuc":
        return _restore_dims(_singular_values_at(A, d0, d1).sum(-1), d0, d1, keepdim)
    if ord in (2, -2):
        s = _singular_values_at(A, d0, d1)
        r = s.amax(-1) if ord == 2 else s.amin(-1)
        return _restore_dims(r, d0, d1, keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        # 1: column sums (over rows, d0) then the max over columns; inf: the other way round.
        summed, extreme = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(summed, keepdim=True)
        r = sums.amax(extreme, keepdim=True) if ord > 0 else sums.amin(extreme, keepdim=True)
        return r if keepdim else r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"{op}: Order {ord} not supported.")


def norm(A: Tensor, ord: Any = None, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """A vector or matrix norm, as ``dim`` and ``ord`` choose: one dim (or a 1-D input) is a
    vector norm, two dims (or a 2-D input with ``ord`` given) a matrix norm; with neither, the
    2-norm of all elements."""
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        _check_float("linalg.vector_norm", A)
        r = vector_norm(A, 2, None, False, dtype=dtype)
        return r.reshape([1] * A.ndim) if keepdim else r
    if isinstance(ord, str) or A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype)


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number of A in the ``p``-norm: ``s_max / s_min`` for None or 2 (any
    shape), ``s_min / s_max`` for -2, else ``norm(A, p) * norm(inv(A), p)`` (square A;
    inf for singular matrices)."""
    if p not in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ValueError(f"linalg.cond got an invalid norm type: {p}")
    _check_float("linalg.cond", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p in (None, 2, -2):
        s = svdvals(A)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    inverse, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    return r.masked_fill(info > 0, math.inf)

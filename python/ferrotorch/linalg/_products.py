"""Products of matrices and vectors: ``matrix_power``, ``multi_dot``, ``cross``, ``vecdot``,
``diagonal`` and ``matrix_exp``, composed from matmul, solve and elementwise ops."""

from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence

from .. import _core
from .._broadcasting import broadcast_tensors
from .._core import Tensor
from ._inverses import inv
from ._norms import _check_float, _type_name
from ._solvers import solve


def _square(op: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")


def _identity_like(A: Tensor) -> Tensor:
    n = A.shape[-1]
    return _core.eye(n, dtype=A.dtype).expand(tuple(A.shape)).clone()


def matrix_power(A: Tensor, n: int) -> Tensor:
    """A to the integer power n by repeated squaring; negative n uses ``inv(A)``, and n = 0
    gives identities (in A's dtype, integers included)."""
    _square("linalg.matrix_power", A)
    if n == 0:
        return _identity_like(A)
    base = inv(A) if n < 0 else A
    n = abs(n)
    result: Optional[Tensor] = None
    while True:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if not n:
            return result  # type: ignore[return-value]
        base = base @ base


def _shape(t: Tensor) -> str:
    return "[" + ", ".join(str(d) for d in t.shape) + "]"


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices, in the order of multiplications that costs least
    (the first and last may be vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        if t.dtype != tensors[0].dtype:
            first, other = _type_name(tensors[0].dtype).lower(), _type_name(t.dtype).lower()
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {first} and tensor {i} {other}")
        if i in (0, n - 1):
            if t.ndim not in (1, 2):
                which = "first" if i == 0 else "last"
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.ndim}D")
        elif t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    mats = list(tensors)
    first_vector, last_vector = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vector:
        mats[0] = mats[0].unsqueeze(0)
    if last_vector:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {_shape(tensors[i])} and {_shape(tensors[i + 1])} cannot be multiplied")
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    # cost[i][j]: fewest multiplications for mats[i..j]; split[i][j]: where to cut.
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf  # type: ignore[call-overload]
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        return product(i, k) @ product(k + 1, j)

    out = product(0, n - 1)
    if first_vector:
        out = out.squeeze(0)
    if last_vector:
        out = out.squeeze(-1)
    return out


def chain_matmul(*matrices: Tensor) -> Tensor:
    """``torch.chain_matmul`` (deprecated in PyTorch for ``linalg.multi_dot``)."""
    if len(matrices) == 1:
        return matrices[0]
    return multi_dot(matrices)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    a, b = broadcast_tensors(input, other) if input.shape != other.shape else (input, other)
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and {other.shape[dim]}")

    def part(t: Tensor, i: int) -> Tensor:
        return t.narrow(dim, i, 1)

    a0, a1, a2 = part(a, 0), part(a, 1), part(a, 2)
    b0, b1, b2 = part(b, 0), part(b, 1), part(b, 2)
    return _core.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def torch_cross(input: Tensor, other: Tensor, dim: Optional[int] = None) -> Tensor:
    """``torch.cross``: without ``dim``, the first dim of size 3 (deprecated in PyTorch)."""
    if dim is None:
        warnings.warn("torch.cross without specifying dim is deprecated; it uses the first dimension of size 3. Pass dim explicitly.", UserWarning, stacklevel=2)
        shape = _core.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        sizes = [i for i, d in enumerate(shape) if d == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    return cross(input, other, dim=dim)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of vectors along ``dim`` (inputs broadcast)."""
    _check_float("linalg.vecdot", x)
    return (x * y).sum(dim)


def vander(x: Tensor, N: Optional[int] = None) -> Tensor:
    """The Vandermonde matrix of x: columns ``x**0, x**1, ..., x**(N-1)`` (N defaults to
    ``x.shape[-1]``), batched over x's leading dims."""
    n = x.shape[-1] if x.ndim and N is None else N
    if x.ndim == 0 or n is None or n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = [_core.ones_like(x)]
    for _ in range(n - 1):
        powers.append(powers[-1] * x)
    return _core.stack(powers, -1)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``linalg.diagonal``: ``torch.diagonal`` with the last two dims as the default."""
    return A.diagonal(offset, dim1, dim2)


# Pade approximant of degree 13 and the 1-norm below which it is accurate without scaling
# (Higham, "The scaling and squaring method for the matrix exponential revisited", 2005).
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential by scaling and squaring with a degree-13 Pade approximant;
    differentiable (a composition of matmul and solve)."""
    op = "linalg.matrix_exp"
    _check_float(op, A)
    _square(op, A)
    if A.numel() == 0:
        return A.clone()
    norm1 = float(A.detach().abs().sum(-2).amax())
    s = max(0, math.ceil(math.log2(norm1 / _THETA13))) if norm1 > 0 else 0
    X = A / (2.0**s) if s else A
    b = _PADE13
    eye = _identity_like(X)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R

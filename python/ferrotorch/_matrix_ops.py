"""Matrix helpers composed of core ops: diagonals (``diag``, ``diag_embed``, ``trace``) and the
fused-looking ``addmm``/``baddbmm``/``addmv`` (beta * input + alpha * product)."""

from __future__ import annotations

from . import _core
from ._op_entry import op_entry

Tensor = _core.Tensor


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """1-D input: a matrix with it on a diagonal; 2-D input: that diagonal."""
    if input.ndim == 2:
        return input.diagonal(diagonal)
    if input.ndim != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    n = input.shape[0] + abs(diagonal)
    out = _core.zeros(n, n, dtype=input.dtype)
    r = _core.arange(input.shape[0]) + max(-diagonal, 0)
    c = _core.arange(input.shape[0]) + max(diagonal, 0)
    return out.index_put((r, c), input)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Batched ``diag``: the last dim of ``input`` placed on the ``offset`` diagonal of the
    matrices formed by the new dims ``dim1`` and ``dim2`` of the result."""
    ndim = input.ndim + 1
    d1, d2 = dim1 % ndim, dim2 % ndim
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = input.shape[-1]
    n = m + abs(offset)
    flat_index = (_core.arange(m) + max(-offset, 0)) * n + _core.arange(m) + max(offset, 0)
    batch = tuple(input.shape[:-1])
    # Scatter into flattened (n * n) matrices: exact for inf/NaN, and differentiable in ``input``.
    out = _core.zeros(*batch, n * n, dtype=input.dtype).scatter(-1, flat_index.expand(*batch, m), input)
    return out.reshape(*batch, n, n).movedim((ndim - 2, ndim - 1), (d1, d2))


@op_entry("trace")
def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a matrix."""
    if input.dtype == _core.bool:
        # Checked before the shape, as in PyTorch.
        raise NotImplementedError(f"\"trace\" not implemented for 'Bool' (shape {tuple(input.shape)})")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


@op_entry("addmm")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    return beta * input + alpha * mat1.mm(mat2)


@op_entry("baddbmm")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batched."""
    return beta * input + alpha * batch1.bmm(batch2)


@op_entry("addmv")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return beta * input + alpha * mat.mv(vec)


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """In-place ``addmm`` into ``self`` (not autocast: the product runs in self's dtype)."""
    return self.copy_(addmm.__wrapped__(self, mat1, mat2, beta=beta, alpha=alpha))  # type: ignore[attr-defined]


METHODS = (diag, diag_embed, trace, addmm, baddbmm, addmv, addmm_)

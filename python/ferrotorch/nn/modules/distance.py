"""Distances between inputs: CosineSimilarity, PairwiseDistance and ``cosine_similarity``,
``pairwise_distance``, ``pdist``."""

from __future__ import annotations

from ... import _core
from ..._index_ops import where
from ..._op_entry import op_entry
from ...linalg._norms import _type_name
from .._functional_loss import _dtype_name
from .module import Module

Tensor = _core.Tensor


def _vector_norm(x: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """||x||_p along ``dim``; p = 0 counts non-zeros (with a zero gradient, as in PyTorch)."""
    if p == 0:
        if x.is_complex():  # a count of non-zeros is real
            x = x.abs()
        # The count does not carry autograd; a zero term attaches it to the graph. x * 0 is NaN
        # at NaN and inf entries (which count as non-zeros), so those are zeroed first.
        attach = (x * 0).nan_to_num(0.0, 0.0, 0.0).sum(dim, keepdim=keepdim)
        return (x != 0).to(x.dtype).sum(dim, keepdim=keepdim) + attach
    return x.norm(p, dim, keepdim)


def _clamp_value_only(x: Tensor, low: float) -> Tensor:
    # max(x, low) in value; the gradient passes through unchanged (PyTorch clamps under no_grad).
    # Only values below `low` are shifted: an infinite norm stays inf (inf - inf would be NaN).
    d = x.detach()
    return where(d < low, x + (low - d), x)


@op_entry("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along ``dim``, after broadcasting."""
    common = _core.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype is {_dtype_name(common)}")
    shape = _core.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    # Only integer (and bool) inputs are cast; a half input keeps its dtype for its norm, as in PyTorch.
    x1, x2 = (x if x.is_floating_point() else x.to(common) for x in (x1, x2))
    a, b = x1.expand(tuple(shape)), x2.expand(tuple(shape))
    na = _clamp_value_only(a.norm(2, dim, keepdim=True), eps)
    nb = _clamp_value_only(b.norm(2, dim, keepdim=True), eps)
    return ((a / na) * (b / nb)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim (inputs broadcast; 1-D inputs give a 0-d result)."""
    diff = x1 - x2 + eps
    if diff.ndim == 0:
        return _vector_norm(diff.reshape(1), p, 0, False).reshape(())
    return _vector_norm(diff, p, -1, keepdim)


@op_entry("pdist")
def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between each pair of rows i < j of an [N, M] input, in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n > 1 and input.shape[1] > 0 and input.dtype in (_core.float16, _core.bfloat16):
        # PyTorch's kernel, which runs only for a non-empty result with columns, has no half types.
        raise NotImplementedError(f"\"pdist\" not implemented for '{_type_name(input.dtype)}'")
    rows_i = [i for i in range(n) for _ in range(i + 1, n)]
    rows_j = [j for i in range(n) for j in range(i + 1, n)]
    if not rows_i:
        return _core.zeros(0, dtype=input.dtype) + input.sum() * 0
    diff = input.index_select(0, _core.tensor(rows_i)) - input.index_select(0, _core.tensor(rows_j))
    if p == 0:
        # PyTorch's pairwise kernel counts min(ceil(|d|), 1): a NaN difference gives NaN.
        return _vector_norm(diff, p, 1, False).masked_fill(diff.isnan().any(1), float("nan"))
    return _vector_norm(diff, p, 1, False)


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p over the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)



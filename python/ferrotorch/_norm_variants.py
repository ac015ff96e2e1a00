"""Norms under other names PyTorch keeps: ``torch.norm_except_dim`` (weight normalisation's
norm over every dim but one), ``torch.embedding_renorm_`` (``Embedding(max_norm=...)``'s
in-place row rescaling) and ``torch.native_norm`` (sparse-only in PyTorch)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from . import _core
from ._grad_mode import no_grad

Tensor = _core.Tensor


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim except ``dim``, kept as size-1 dims (so the
    result has ``v.size(dim)`` at ``dim``); ``dim=-1`` means the norm of the whole tensor."""
    if not isinstance(v, Tensor):
        raise TypeError(f"norm_except_dim(): argument 'v' (position 1) must be Tensor, not {type(v).__name__}")
    if dim == -1:
        return v.norm(pow)
    d = dim % v.ndim if v.ndim else 0
    others = [i for i in range(v.ndim) if i != d]
    if not others:
        return v.abs() if v.ndim else v.norm(pow)
    return v.norm(pow, others, keepdim=True)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescales, in place, each row of ``input`` named in ``indices`` whose ``norm_type``-norm
    exceeds ``max_norm`` to norm ``max_norm`` (scale max_norm / (norm + 1e-7)). Returns ``input``."""
    if indices.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(
            "Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {indices.dtype} instead (while checking arguments for embedding_renorm_)"
        )
    if input.requires_grad and input.is_leaf and _core.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    with no_grad():
        idx = indices.reshape(-1).long().unique()
        if idx.numel() == 0:
            return input
        rows_total = input.shape[0]
        bad = idx[(idx < -rows_total) | (idx >= rows_total)]
        if bad.numel():
            raise IndexError(
                f"select(): index {int(bad[0].item())} out of range for tensor of size {list(input.shape)} at dimension 0"
            )
        rows = input.index_select(0, idx)
        norms = rows.norm(norm_type, 1, keepdim=True)
        scale = _core._where3(norms > max_norm, max_norm / (norms + 1e-7), _core.ones_like(norms))
        input.index_copy_(0, idx, (rows * scale).to(input.dtype))
    return input


def native_norm(
    input: Tensor,
    p: Any = 2,
    dim: Optional[Sequence[int]] = None,
    keepdim: bool = False,
    dtype: Any = None,
) -> Tensor:
    """PyTorch implements ``native_norm`` for sparse tensors only; on a dense (CPU or CUDA)
    tensor it raises NotImplementedError, and so does ferrotorch (which has no sparse tensors).
    ``torch.norm`` / ``torch.linalg.vector_norm`` are the dense forms."""
    if not isinstance(input, Tensor):
        raise TypeError(f"native_norm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    overload = "aten::native_norm" if dim is None and dtype is None and not keepdim else "aten::native_norm.ScalarOpt_dim_dtype"
    raise NotImplementedError(
        f"Could not run '{overload}' with arguments from the '{input.device.type.upper()}' backend: "
        "native_norm exists for sparse tensors only (use torch.norm or torch.linalg.vector_norm)."
    )


__all__: Tuple[str, ...] = ("norm_except_dim", "embedding_renorm_", "native_norm")
METHODS: Tuple[Any, ...] = ()

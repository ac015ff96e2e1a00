"""Matrix products accumulated into an input: ``addbmm``, ``addr`` and the in-place forms
``addbmm_``, ``addr_``, ``addmv_``, ``baddbmm_`` (``beta * input + alpha * product``)."""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from ._op_entry import op_entry
from ._result_writing import assign_inplace, scalar_name, source_of, write_out

Tensor = _core.Tensor


def _accumulate(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """beta * input + alpha * product, with input broadcast to the product's shape; beta == 0
    ignores input entirely (NaN and inf in it do not propagate), as PyTorch."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    base = input.expand(tuple(product.shape))
    if beta != 1:
        base = base * beta
    return base + product


def _check_integral_scalars(dtype: Any, beta: Any, alpha: Any) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")


@op_entry("addbmm")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Optional[Tensor] = None) -> Tensor:
    """beta * input + alpha * sum_i batch1[i] @ batch2[i] (batches (b, n, m) and (b, m, p))."""
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() < 3:
            raise IndexError(f"addbmm: Dimension out of range ({name} must be a 3D tensor, got {t.dim()}D)")
        if t.dim() > 3:
            raise RuntimeError(f"addbmm: {name} must be a 3D tensor, got {t.dim()}D")
    b, n, m = batch1.shape
    b2, m2, p = batch2.shape
    if b != b2:
        raise RuntimeError(f"addbmm: batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if m != m2:
        raise RuntimeError(f"addbmm: Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    for t in (batch1, batch2):
        if t.dtype != input.dtype:
            raise RuntimeError(f"addbmm: self and mat2 must have the same dtype, but got {scalar_name(input.dtype)} and {scalar_name(t.dtype)}")
    # sum_i A_i @ B_i is one (n, b*m) @ (b*m, p) product.
    product = batch1.transpose(0, 1).reshape(n, b * m) @ batch2.reshape(b * m, p)
    return write_out(_accumulate(input, product, beta, alpha), out, "addbmm", (input, batch1, batch2))


@op_entry("addr")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Optional[Tensor] = None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2); for bool tensors ``and``/``or`` in place of
    product and sum."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    dtype = _core.promote_types(_core.result_type(input, vec1), vec2.dtype)
    if dtype == _core.bool:
        outer = vec1.unsqueeze(1) & vec2.unsqueeze(0)
        term = outer if alpha else _core.zeros_like(outer)
        if beta:
            term = term | input.expand(tuple(outer.shape))
        return write_out(term.contiguous(), out, "addr")
    _check_integral_scalars(dtype, beta, alpha)
    outer = vec1.to(dtype).unsqueeze(1) * vec2.to(dtype).unsqueeze(0)
    return write_out(_accumulate(input.to(dtype), outer, beta, alpha), out, "addr", (input, vec1, vec2))


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place ``addbmm``."""
    return assign_inplace(self, addbmm(source_of(self), batch1, batch2, beta=beta, alpha=alpha), "addbmm_")


def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place ``addr``."""
    return assign_inplace(self, addr(source_of(self), vec1, vec2, beta=beta, alpha=alpha), "addr_")


def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place ``addmv``: self = beta * self + alpha * (mat @ vec)."""
    return assign_inplace(self, source_of(self).addmv(mat, vec, beta=beta, alpha=alpha), "addmv_")


def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In-place ``baddbmm``: self = beta * self + alpha * (batch1 @ batch2)."""
    return assign_inplace(self, source_of(self).baddbmm(batch1, batch2, beta=beta, alpha=alpha), "baddbmm_")


TORCH_AND_METHODS = (addbmm, addr, addmv_)
METHOD_ONLY = (addbmm_, addr_, baddbmm_)

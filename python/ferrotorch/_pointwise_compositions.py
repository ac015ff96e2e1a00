"""Pointwise ops written as compositions of core ops: ``addcmul``, ``addcdiv``, ``logit``, ``rsub``."""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from ._op_entry import op_entry
from ._scalar_args import check_scalar_int

Tensor = _core.Tensor


@op_entry("addcmul")
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 * tensor2, with ``value`` taken in the computation dtype
    (PyTorch: an int result truncates it, a value that dtype cannot hold is an error).
    float16/bfloat16 results are computed in float32 and rounded once, as PyTorch's kernel
    does: ``value`` need only fit float32, and 70000 * 0 is 0, not inf * 0."""
    from ._arranging import _result_type

    check_scalar_int(value)
    # One result_type over the three operands (0-d ones weigh less), as PyTorch's iterator.
    dtype = _result_type([input, tensor1, tensor2])
    if dtype == _core.bool:
        raise NotImplementedError("addcmul: \"addcmul_cpu_out\" not implemented for 'Bool'")
    compute = _core.float32 if dtype in (_core.float16, _core.bfloat16) else dtype
    t1, t2 = tensor1.to(compute), tensor2.to(compute)
    # (value * t1) * t2: PyTorch's order, which decides where a product overflows.
    prod = t1 * t2 if value == 1 else _core.full((), value, dtype=compute) * t1 * t2
    if compute == dtype:
        return input + prod
    return (input.to(compute) + prod).to(dtype)


@op_entry("addcdiv")
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    check_scalar_int(value)
    return input + value * tensor1 / tensor2


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """In-place ``addcmul``."""
    check_scalar_int(value)
    return self.add_(tensor1 * tensor2, alpha=value)


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """In-place ``addcdiv``."""
    check_scalar_int(value)
    return self.add_(tensor1 / tensor2, alpha=value)


@op_entry("rsub")
def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``other`` a tensor or a number, promoted as a Python number)."""
    if isinstance(other, bool):  # PyTorch refuses subtraction with any bool operand
        raise NotImplementedError("rsub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if not isinstance(other, Tensor):
        # The number as a 0-d tensor of the dtype it promotes to, so it promotes as a number.
        other = _core.full((), other, dtype=_core.result_type(input, other))
    return other.sub(input, alpha=alpha)


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """log(p / (1 - p)), with ``p`` clamped to [eps, 1 - eps] when ``eps`` is given."""
    x = input.clamp(eps, 1 - eps) if eps is not None else input
    # log(x) - log1p(-x) rather than log(x / (1 - x)): its gradient 1/x + 1/(1-x) is +inf at
    # 0 and 1 as PyTorch's, where the quotient's form gives NaN.
    return x.log() - (-x).log1p()


METHODS = (addcmul, addcdiv, addcmul_, addcdiv_, logit)

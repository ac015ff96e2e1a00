"""Integer-only pointwise ops: ``gcd`` and ``lcm`` (and their in-place forms)."""

from __future__ import annotations

from typing import Optional

from . import _core
from ._index_ops import where
from ._op_entry import op_entry
from ._result_writing import assign_inplace, scalar_name, write_out

Tensor = _core.Tensor


def _int_operands(op: str, input: Tensor, other: Tensor) -> tuple:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    dtype = _core.result_type(input, other)
    if dtype.is_floating_point or dtype.is_complex or dtype == _core.bool:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_name(dtype)}'")
    shape = _core.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    return input.to(dtype).expand(shape), other.to(dtype).expand(shape)


def _gcd(a: Tensor, b: Tensor) -> Tensor:
    a, b = a.abs(), b.abs()
    # Euclid's algorithm on all elements at once: one remainder per step, at most ~92 steps
    # for 64-bit values (consecutive Fibonacci numbers are the worst case).
    while bool((b != 0).any()):
        nz = b != 0
        safe = where(nz, b, 1)
        a, b = where(nz, b, a), where(nz, a.remainder(safe), 0)
    return a


@op_entry("gcd")
def gcd(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The greatest common divisor of integer tensors, elementwise (non-negative; gcd(0, 0) = 0)."""
    a, b = _int_operands("gcd", input, other)
    return write_out(_gcd(a, b).contiguous(), out, "gcd")


@op_entry("lcm")
def lcm(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The least common multiple of integer tensors, elementwise (0 when either is 0)."""
    a, b = _int_operands("lcm", input, other)
    g = _gcd(a, b)
    zero = g == 0
    result = where(zero, 0, (a.div(where(zero, 1, g), rounding_mode="trunc") * b).abs()).to(a.dtype)
    return write_out(result, out, "lcm")


def gcd_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``gcd``."""
    return assign_inplace(self, gcd(self, other), "gcd_")


def lcm_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``lcm``."""
    return assign_inplace(self, lcm(self, other), "lcm_")


FUNCTIONS = (gcd, lcm, gcd_, lcm_)

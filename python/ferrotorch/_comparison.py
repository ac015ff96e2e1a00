"""Whole-tensor and elementwise closeness: ``isclose``, ``allclose``, ``equal``."""

from __future__ import annotations

from . import _core

Tensor = _core.Tensor


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (infinities equal when equal)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose: {input.dtype} did not match {other.dtype}")
    a, b = input.double() if input.is_floating_point() else input, other.double() if other.is_floating_point() else other
    # Infinities are close only to themselves: |inf - -inf| <= rtol * inf would say otherwise.
    finite = a.isfinite() & b.isfinite() if input.is_floating_point() else True
    close = (a == b) | (finite & ((a - b).abs() <= atol + rtol * b.abs()))
    if equal_nan and input.is_floating_point():
        close = close | (a.isnan() & b.isnan())
    return close


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element is close (see ``isclose``)."""
    return bool(isclose(input, other.to(input.dtype) if other.dtype != input.dtype else other, rtol, atol, equal_nan).all().item())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when shapes and values are equal."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all().item())


METHODS = (isclose, allclose, equal)

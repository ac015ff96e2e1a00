"""Whole-tensor and elementwise closeness: ``isclose``, ``allclose``, ``equal``."""

from __future__ import annotations

from . import _core

Tensor = _core.Tensor


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (infinities equal when equal)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose: {input.dtype} did not match {other.dtype}")
    # Computed as PyTorch does: floats in their own dtype, bools and integers in the default
    # float type (so integer differences do not wrap).
    exact = input.is_floating_point() or input.is_complex()
    a, b = (input, other) if exact else (input.to(_core.get_default_dtype()), other.to(_core.get_default_dtype()))
    actual = (a - b).abs()
    # Infinities are close only to themselves: |inf - -inf| is inf, which is not finite.
    close = (a == b) | (actual.isfinite() & (actual <= atol + (rtol * b).abs()))
    if equal_nan and input.is_floating_point():
        close = close | (a.isnan() & b.isnan())
    return close


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element is close (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when shapes and values are equal."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all().item())


METHODS = (isclose, allclose, equal)

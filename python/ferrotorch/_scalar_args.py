"""PyTorch's argument parser converts a Python int given as a Scalar to a 64-bit integer
(signed or unsigned) before any op looks at its arguments: an int outside both ranges is an
OverflowError ahead of every dtype, shape or value check."""

from typing import Any


def check_scalar_int(value: Any) -> None:
    """Raises PyTorch's OverflowError for a Python int that fits neither int64 nor uint64."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise OverflowError("int too big to convert" if value > 0 else "can't convert negative int to unsigned")

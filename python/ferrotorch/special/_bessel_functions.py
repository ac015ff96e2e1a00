"""Bessel functions beyond J0/J1 (``torch.special``): the second kind, the modified
functions I and K, and the spherical j0. Forward only, as in PyTorch (no derivative)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor


def bessel_y0(input: Tensor) -> Tensor:
    """Bessel function of the second kind, order 0 (NaN below 0, -inf at 0)."""
    return _core.special_bessel_y0(input)


def bessel_y1(input: Tensor) -> Tensor:
    """Bessel function of the second kind, order 1 (NaN below 0, -inf at 0)."""
    return _core.special_bessel_y1(input)


def modified_bessel_i0(input: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 0."""
    return _core.special_modified_bessel_i0(input)


def modified_bessel_i1(input: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 1."""
    return _core.special_modified_bessel_i1(input)


def modified_bessel_k0(input: Tensor) -> Tensor:
    """Modified Bessel function of the second kind, order 0 (NaN below 0, inf at 0)."""
    return _core.special_modified_bessel_k0(input)


def modified_bessel_k1(input: Tensor) -> Tensor:
    """Modified Bessel function of the second kind, order 1 (NaN below 0, inf at 0)."""
    return _core.special_modified_bessel_k1(input)


def scaled_modified_bessel_k0(input: Tensor) -> Tensor:
    """``exp(x) * modified_bessel_k0(x)``, which does not underflow for large x."""
    return _core.special_scaled_modified_bessel_k0(input)


def scaled_modified_bessel_k1(input: Tensor) -> Tensor:
    """``exp(x) * modified_bessel_k1(x)``, which does not underflow for large x."""
    return _core.special_scaled_modified_bessel_k1(input)


def spherical_bessel_j0(input: Tensor) -> Tensor:
    """Spherical Bessel function of the first kind, order 0: ``sin(x) / x``."""
    return _core.special_spherical_bessel_j0(input)

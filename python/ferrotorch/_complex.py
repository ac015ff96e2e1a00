"""Complex numbers: the complex dtypes and the functions of ``torch`` that act on them."""

from __future__ import annotations

from . import _core
from ._core import complex, complex64, complex128, polar, view_as_complex, view_as_real

Tensor = _core.Tensor
cfloat = complex64
cdouble = complex128


def real(input: Tensor) -> Tensor:
    """The real parts of ``input``, a view sharing its memory (``input`` itself if real).

    >>> import ferrotorch as torch
    >>> torch.real(torch.tensor([1 + 2j, 3 - 4j]))
    tensor([1., 3.])
    """
    return input.real


def imag(input: Tensor) -> Tensor:
    """The imaginary parts of a complex ``input``, a view sharing its memory.

    >>> import ferrotorch as torch
    >>> torch.imag(torch.tensor([1 + 2j, 3 - 4j]))
    tensor([ 2., -4.])
    """
    return input.imag


def is_complex(input: Tensor) -> bool:
    """True if ``input`` has a complex dtype (``torch.complex64`` or ``torch.complex128``)."""
    return input.is_complex()


__all__ = [
    "cdouble",
    "cfloat",
    "complex",
    "complex64",
    "complex128",
    "imag",
    "is_complex",
    "polar",
    "real",
    "view_as_complex",
    "view_as_real",
]

"""Classical orthogonal polynomials of degree ``n`` (``torch.special.*_polynomial_*``): x
and n broadcast, n is truncated to an integer, a negative degree gives 0. Forward only, as
in PyTorch."""

from __future__ import annotations

from typing import Union

from .. import _core
from .._core import Tensor

Number = Union[int, float, bool]


def chebyshev_polynomial_t(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Chebyshev polynomial of the first kind T_n(x).

    >>> import ferrotorch as torch
    >>> torch.special.chebyshev_polynomial_t(torch.tensor([0.5]), 2)
    tensor([-0.5000])
    """
    return _core.special_chebyshev_polynomial_t(input, n)


def chebyshev_polynomial_u(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Chebyshev polynomial of the second kind U_n(x)."""
    return _core.special_chebyshev_polynomial_u(input, n)


def chebyshev_polynomial_v(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Chebyshev polynomial of the third kind V_n(x)."""
    return _core.special_chebyshev_polynomial_v(input, n)


def chebyshev_polynomial_w(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Chebyshev polynomial of the fourth kind W_n(x)."""
    return _core.special_chebyshev_polynomial_w(input, n)


def shifted_chebyshev_polynomial_t(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Shifted Chebyshev polynomial of the first kind T*_n(x) = T_n(2x - 1)."""
    return _core.special_shifted_chebyshev_polynomial_t(input, n)


def shifted_chebyshev_polynomial_u(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Shifted Chebyshev polynomial of the second kind U*_n(x) = U_n(2x - 1)."""
    return _core.special_shifted_chebyshev_polynomial_u(input, n)


def shifted_chebyshev_polynomial_v(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Shifted Chebyshev polynomial of the third kind V*_n(x) = V_n(2x - 1)."""
    return _core.special_shifted_chebyshev_polynomial_v(input, n)


def shifted_chebyshev_polynomial_w(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Shifted Chebyshev polynomial of the fourth kind W*_n(x) = W_n(2x - 1)."""
    return _core.special_shifted_chebyshev_polynomial_w(input, n)


def hermite_polynomial_h(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Physicists' Hermite polynomial H_n(x)."""
    return _core.special_hermite_polynomial_h(input, n)


def hermite_polynomial_he(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Probabilists' Hermite polynomial He_n(x)."""
    return _core.special_hermite_polynomial_he(input, n)


def laguerre_polynomial_l(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Laguerre polynomial L_n(x)."""
    return _core.special_laguerre_polynomial_l(input, n)


def legendre_polynomial_p(input: Union[Tensor, Number], n: Union[Tensor, Number]) -> Tensor:
    """Legendre polynomial P_n(x)."""
    return _core.special_legendre_polynomial_p(input, n)

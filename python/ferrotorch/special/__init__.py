"""``torch.special``: special functions, named as SciPy names them.

Integer and bool inputs compute in the default float type; every function here is
differentiable where PyTorch's is (``zeta`` and ``gammainc``/``gammaincc`` only in their second
argument).

>>> import ferrotorch as torch
>>> torch.special.gammaln(torch.tensor([0.5, 1.0, 4.0]))
tensor([0.5724, 0.0000, 1.7918])
"""

from __future__ import annotations

from typing import Any, Optional, Union

from .. import _core
from .._core import Tensor
from ._airy import airy_ai
from ._bessel_functions import (
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from ._orthogonal_polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)

Number = Union[int, float, bool]

__all__ = [
    "airy_ai",
    "bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
    "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p",
    "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri",
    "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


def erf(input: Tensor) -> Tensor:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return input.erf()


def erfc(input: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(x)``, accurate where erf(x) is near 1."""
    return input.erfc()


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(x^2) * erfc(x)`` (no underflow)."""
    return _core.special_erfcx(input)


def erfinv(input: Tensor) -> Tensor:
    """The inverse error function on [-1, 1] (+-inf at +-1, NaN outside)."""
    return input.erfinv()


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return input.sigmoid()


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    from .._pointwise_compositions import logit as _logit

    return _logit(input, eps)


def exp2(input: Tensor) -> Tensor:
    """``2 ** x``."""
    return input.exp2()


def expm1(input: Tensor) -> Tensor:
    """``exp(x) - 1``, accurate near 0."""
    return input.expm1()


def log1p(input: Tensor) -> Tensor:
    """``log(1 + x)``, accurate near 0."""
    return input.log1p()


def gammaln(input: Tensor) -> Tensor:
    """``log |Gamma(x)|`` (+inf at the poles 0, -1, -2, ...)."""
    return input.lgamma()


def digamma(input: Tensor) -> Tensor:
    """The logarithmic derivative of the gamma function (-inf at +0, NaN at negative integers)."""
    return input.digamma()


psi = digamma


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of digamma (``n >= 0``)."""
    return _core.polygamma(n, input)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``."""
    return input.mvlgamma(p)


def i0(input: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 0."""
    return input.i0()


def i0e(input: Tensor) -> Tensor:
    """``exp(-|x|) * i0(x)``."""
    return _core.special_i0e(input)


def i1(input: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 1."""
    return _core.special_i1(input)


def i1e(input: Tensor) -> Tensor:
    """``exp(-|x|) * i1(x)``."""
    return _core.special_i1e(input)


def bessel_j0(input: Tensor) -> Tensor:
    """Bessel function of the first kind, order 0."""
    return _core.special_bessel_j0(input)


def bessel_j1(input: Tensor) -> Tensor:
    """Bessel function of the first kind, order 1."""
    return _core.special_bessel_j1(input)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF."""
    return _core.special_ndtr(input)


def ndtri(input: Tensor) -> Tensor:
    """The standard normal quantile (inverse of ``ndtr``): -inf at 0, +inf at 1, NaN outside."""
    return _core.special_ndtri(input)


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(x))``, accurate far into the lower tail."""
    return _core.special_log_ndtr(input)


def sinc(input: Tensor) -> Tensor:
    """The normalized sinc ``sin(pi x) / (pi x)`` (1 at 0)."""
    return input.sinc()


def entr(input: Tensor) -> Tensor:
    """Elementwise entropy ``-x log x`` (0 at 0, -inf for x < 0)."""
    return _core.special_entr(input)


def xlogy(input: Union[Tensor, Number], other: Union[Tensor, Number]) -> Tensor:
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN)."""
    from .._reductions import xlogy as _xlogy

    return _xlogy(input, other)


def xlog1py(input: Union[Tensor, Number], other: Union[Tensor, Number]) -> Tensor:
    """``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN)."""
    return _core.special_xlog1py(input, other)


def zeta(input: Union[Tensor, Number], other: Union[Tensor, Number]) -> Tensor:
    """The Hurwitz zeta function ``sum_k (other + k) ** -input``."""
    return _core.special_zeta(input, other)


def gammainc(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``."""
    return _core.igamma(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    return _core.igammac(input, other)


def round(input: Tensor, decimals: int = 0) -> Tensor:
    """Rounds half to even (to ``decimals`` places); floating point inputs only, as PyTorch."""
    if not input.dtype.is_floating_point:
        name = str(input.dtype).removeprefix("torch.").capitalize()
        name = {"Int64": "Long", "Int32": "Int", "Int16": "Short", "Int8": "Char", "Uint8": "Byte"}.get(name, name)
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{name}'")
    return input.round(decimals=decimals)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably."""
    return input.logsumexp(dim, keepdim)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` over ``dim`` (computed in ``dtype`` when given)."""
    return input.softmax(dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` over ``dim``, computed stably (in ``dtype`` when given)."""
    return input.log_softmax(dim, dtype)

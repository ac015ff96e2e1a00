"""``torch.fft``: discrete Fourier transforms and their helpers, as in PyTorch.

Transforms run in Rust (rustfft and realfft: any length, primes included) and are
differentiable. Real inputs of complex transforms promote to complex (float32 to complex64,
float64 to complex128, integers through the default dtype). ``norm`` is ``"backward"``
(default: the inverse is scaled by 1/n), ``"ortho"`` (both by 1/sqrt(n)) or ``"forward"``.

>>> import ferrotorch as torch
>>> torch.fft.fft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
>>> torch.fft.irfft(torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0])), n=3)
tensor([1., 2., 3.])
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .. import _core
from .._index_ops import roll

Tensor = _core.Tensor
_Dims = Optional[Union[int, Sequence[int]]]

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


def _one_dim(kind: str, op: str, input: Tensor, n: Optional[int], dim: int, norm: Optional[str], out: Any) -> Tensor:
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by ferrotorch")
    if n is not None and n < 1:
        # fftn's s takes -1 for "as it is"; a 1-D n does not.
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return _core._fft(input, kind, op, None if n is None else [n], [dim], norm)


def _n_dim(kind: str, op: str, input: Tensor, s: _Dims, dim: _Dims, norm: Optional[str], out: Any) -> Tensor:
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by ferrotorch")
    return _core._fft(input, kind, op, s, dim, norm)


def fft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 1-D discrete Fourier transform along ``dim``, trimmed or zero-padded to ``n`` points."""
    return _one_dim("fft", "fft", input, n, dim, norm, out)


def ifft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 1-D inverse discrete Fourier transform along ``dim``."""
    return _one_dim("ifft", "ifft", input, n, dim, norm, out)


def rfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The transform of a real signal: the n//2 + 1 non-negative frequencies along ``dim``."""
    return _one_dim("rfft", "rfft", input, n, dim, norm, out)


def irfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The real signal of ``n`` points (default ``2 * (m - 1)``) whose half spectrum is ``input``."""
    return _one_dim("irfft", "irfft", input, n, dim, norm, out)


def hfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The (real) transform of a Hermitian signal given by its first half, ``n`` points long."""
    return _one_dim("hfft", "hfft", input, n, dim, norm, out)


def ihfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The inverse of ``hfft``: the half (Hermitian) spectrum of a real signal."""
    return _one_dim("ihfft", "ihfft", input, n, dim, norm, out)


def fft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 2-D transform over ``dim`` (the last two by default)."""
    return _n_dim("fft", "fft2", input, s, dim, norm, out)


def ifft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 2-D inverse transform over ``dim``."""
    return _n_dim("ifft", "ifft2", input, s, dim, norm, out)


def rfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 2-D transform of a real signal (half spectrum along the last of ``dim``)."""
    return _n_dim("rfft", "rfft2", input, s, dim, norm, out)


def irfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The inverse of ``rfft2``."""
    return _n_dim("irfft", "irfft2", input, s, dim, norm, out)


def hfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The 2-D transform of a Hermitian signal given by its half along the last of ``dim``."""
    return _n_dim("hfft", "hfft2", input, s, dim, norm, out)


def ihfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The inverse of ``hfft2``."""
    return _n_dim("ihfft", "ihfft2", input, s, dim, norm, out)


def fftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The N-D transform over ``dim`` (all dims, or the last ``len(s)``), sizes ``s``."""
    return _n_dim("fft", "fftn", input, s, dim, norm, out)


def ifftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The N-D inverse transform."""
    return _n_dim("ifft", "ifftn", input, s, dim, norm, out)


def rfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The N-D transform of a real signal (half spectrum along the last transformed dim)."""
    return _n_dim("rfft", "rfftn", input, s, dim, norm, out)


def irfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The inverse of ``rfftn``; the last output size defaults to ``2 * (m - 1)``."""
    return _n_dim("irfft", "irfftn", input, s, dim, norm, out)


def hfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The N-D transform of a Hermitian signal given by its half along the last dim."""
    return _n_dim("hfft", "hfftn", input, s, dim, norm, out)


def ihfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: Optional[str] = None, *, out: Any = None) -> Tensor:
    """The inverse of ``hfftn``."""
    return _n_dim("ihfft", "ihfftn", input, s, dim, norm, out)


def _freq_dtype(op: str, dtype: Any) -> Any:
    dt = _core.get_default_dtype() if dtype is None else dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{op} requires a floating point or complex dtype")
    return dt


def fftfreq(n: int, d: float = 1.0, *, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of ``fft``: ``[0, 1, ..., -(n // 2), ..., -1] / (d * n)``.

    >>> import ferrotorch as torch
    >>> torch.fft.fftfreq(5)
    tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    dt = _freq_dtype("fftfreq", dtype)
    # Complex dtypes are refused by arange, as in PyTorch.
    k = _core.cat([_core.arange((n + 1) // 2, dtype=dt), _core.arange(-(n // 2), 0, dtype=dt)])
    f = k / (d * n)
    return f.to(dt, device=device).requires_grad_(requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``."""
    dt = _freq_dtype("rfftfreq", dtype)
    k = _core.arange(n // 2 + 1, dtype=dt)
    f = k / (d * n)
    return f.to(dt, device=device).requires_grad_(requires_grad)


def _shift_dims(input: Tensor, dim: _Dims) -> Sequence[int]:
    if dim is None:
        return list(range(input.ndim))
    return [dim] if isinstance(dim, int) else list(dim)


def fftshift(input: Tensor, dim: _Dims = None) -> Tensor:
    """Moves the zero frequency to the middle of ``dim`` (all dims by default)."""
    dims = _shift_dims(input, dim)
    if not dims:
        raise RuntimeError("`shifts` required")
    return roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input: Tensor, dim: _Dims = None) -> Tensor:
    """The inverse of ``fftshift``."""
    dims = _shift_dims(input, dim)
    if not dims:
        raise RuntimeError("`shifts` required")
    return roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)

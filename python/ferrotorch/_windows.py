"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``.

A periodic window of length L is the symmetric window of length L + 1 without its last
sample. The cosine windows are computed step by step in the requested dtype, in PyTorch's
order of operations, so float32 and float16 results round as PyTorch's do."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from . import _core

Tensor = _core.Tensor


def _times(t: Tensor, c: float) -> Tensor:
    """``t * c`` with ``c`` rounded to ``t``'s dtype first, the rounding PyTorch's window
    functions show in half precision (a bare number would multiply in float32)."""
    return t * _core.tensor(c, dtype=t.dtype)


def _window(name: str, window_length: Any, periodic: bool, dtype: Optional[Any], requires_grad: bool, device: Any, body: Callable[[Tensor, int], Tensor]) -> Tensor:
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}")
    dtype = _core.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        w = _core.ones(window_length, dtype=dtype, device=device)
    elif dtype.is_complex:
        # PyTorch accepts a complex dtype but its arange (the sample positions) has no complex kernel.
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{'ComplexFloat' if dtype == _core.complex64 else 'ComplexDouble'}'")
    else:
        n = window_length + 1 if periodic else window_length
        w = body(_core.arange(n, dtype=dtype, device=device), n)
        if periodic:
            w = w[:-1]
    return w.requires_grad_(True) if requires_grad else w


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Generalised Hamming window ``alpha - beta * cos(2 pi n / (N - 1))``.

    >>> torch.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    def body(t: Tensor, n: int) -> Tensor:
        return _times(_times(t, 2 * math.pi / (n - 1)).cos(), -beta) + alpha

    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device, body)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Hann window ``0.5 - 0.5 * cos(2 pi n / (N - 1))``.

    >>> torch.hann_window(3, periodic=False)
    tensor([0., 1., 0.])
    """
    def body(t: Tensor, n: int) -> Tensor:
        return _times(_times(t, 2 * math.pi / (n - 1)).cos(), -0.5) + 0.5

    return _window("hann_window", window_length, periodic, dtype, requires_grad, device, body)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> torch.blackman_window(3, periodic=False)[1]
    tensor(1.)
    """
    def body(t: Tensor, n: int) -> Tensor:
        a = _times(t, math.pi / (n - 1))
        return _times(_times(a, 4).cos(), 0.08) - _times(_times(a, 2).cos(), 0.5) + 0.42

    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device, body)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Bartlett (triangular) window: rises linearly from 0 to 1 and falls back to 0.

    >>> torch.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    def body(t: Tensor, n: int) -> Tensor:
        w = t * (2.0 / (n - 1))
        rising = ((n - 1) >> 1) + 1  # samples on the rising half
        return _core.cat([w[:rising], 2 - w[rising:]])

    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device, body)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Kaiser window ``I0(beta * sqrt(1 - ((n - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``
    (computed in float64 and rounded to ``dtype``).

    >>> torch.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    def body(t: Tensor, n: int) -> Tensor:
        half = (n - 1) / 2.0
        r = (t.to(_core.float64) - half) / half
        x = (1 - r * r).abs().sqrt() * beta
        return (x.i0() / _core.full((), beta, dtype=_core.float64).i0()).to(t.dtype)

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device, body)


__all__ = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")
METHODS: tuple = ()

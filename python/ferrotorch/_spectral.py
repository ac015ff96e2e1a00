"""Short-time Fourier transforms (``torch.stft``, ``torch.istft``), composed from framing by
indexing, ``torch.fft`` and overlap-add by ``index_add``, so they are differentiable."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from . import _core
from . import fft as _fft

Tensor = _core.Tensor


def _padded_window(window: Optional[Tensor], win_length: int, n_fft: int, like: Tensor, what: str) -> Tensor:
    """The window (ones by default) zero-padded on both sides to ``n_fft``, as PyTorch centers it."""
    if window is None:
        dt = like.dtype.to_real() if like.dtype.is_complex else like.dtype
        window = _core.ones(win_length, dtype=dt if dt.is_floating_point else _core.get_default_dtype())
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{what}: expected a 1D window tensor of size equal to win_length={win_length}, but got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = _core.cat([_core.zeros(left, dtype=window.dtype), window, _core.zeros(n_fft - win_length - left, dtype=window.dtype)])
    return window


def _frame_index(n_frames: int, n_fft: int, hop: int) -> Tensor:
    """``index[f, k] = f * hop + k``: where sample k of frame f sits in the signal."""
    starts = _core.arange(n_frames, dtype=_core.int64).reshape(n_frames, 1) * hop
    return starts + _core.arange(n_fft, dtype=_core.int64).reshape(1, n_fft)


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: Optional[int] = None,
    win_length: Optional[int] = None,
    window: Optional[Tensor] = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: Optional[bool] = None,
    return_complex: Optional[bool] = None,
    align_to_window: Optional[bool] = None,
) -> Tensor:
    """The short-time Fourier transform: spectra of windowed frames, shape (B?, freq, frames).

    >>> import ferrotorch as torch
    >>> torch.stft(torch.ones(16), 8, return_complex=True).shape
    torch.Size([5, 9])
    """
    if return_complex is None and not input.is_complex() and not (window is not None and window.is_complex()):
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will further require that return_complex=True in a future PyTorch release."
        )
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {input.ndim}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    x = input.reshape(1, -1) if input.ndim == 1 else input
    if center:
        pad = n_fft // 2
        x = _core_pad(x, pad, pad_mode)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    w = _padded_window(window, win, n_fft, input, "stft")
    n_frames = 1 + (length - n_fft) // hop
    frames = x[:, _frame_index(n_frames, n_fft, hop)] * w
    real = not (frames.is_complex())
    one = real if onesided is None else onesided
    if one and not real:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, dim=-1, norm=norm) if one else _fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(1, 2)
    if input.ndim == 1:
        spec = spec.squeeze(0)
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated; use return_complex=True and torch.view_as_real", UserWarning, stacklevel=2)
        return _core.view_as_real(spec)
    return spec


def _core_pad(x: Tensor, pad: int, mode: str) -> Tensor:
    from .nn import functional as F

    return F.pad(x.unsqueeze(1), (pad, pad), mode=mode).squeeze(1)


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: Optional[int] = None,
    win_length: Optional[int] = None,
    window: Optional[Tensor] = None,
    center: bool = True,
    normalized: bool = False,
    onesided: Optional[bool] = None,
    length: Optional[int] = None,
    return_complex: bool = False,
) -> Tensor:
    """The inverse of ``stft``: inverse transforms of the frames, overlap-added and divided by
    the summed squared window."""
    if not input.is_complex():
        raise TypeError("istft requires a complex-valued input tensor matching the output from stft with return_complex=True.")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, got {input.ndim}")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"istft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"istft: expected 0 < win_length <= n_fft, but got win_length={win}")
    spec = input.unsqueeze(0) if input.ndim == 2 else input
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    one = n_freq != n_fft if onesided is None else onesided
    if one and n_freq != n_fft // 2 + 1:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    if not one and n_freq != n_fft:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when onesided=False, but got {n_freq}")
    if return_complex and one:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(1, 2)
    if return_complex:
        frames = _fft.ifft(frames, n=n_fft, dim=-1, norm=norm)
    else:
        if not one:
            frames = frames[..., : n_fft // 2 + 1]
        frames = _fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    w = _padded_window(window, win, n_fft, frames, "istft")
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    index = _frame_index(n_frames, n_fft, hop).reshape(-1)
    batch = frames.shape[0]
    y = _core.zeros(batch, total, dtype=frames.dtype).index_add(1, index, frames.reshape(batch, -1))
    envelope = _core.zeros(total, dtype=w.dtype).index_add(0, index, (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = total - n_fft // 2 if center else total
    stop = min(end, total)
    y = y[:, start:stop]
    envelope = envelope[start:stop]
    if envelope.numel() and envelope.abs().min().item() < 1e-11:
        raise RuntimeError("istft(...): window overlap add min: 1")
    y = y / envelope
    if end > total:
        y = _core.cat([y, _core.zeros(batch, end - total, dtype=y.dtype)], 1)
    return y.squeeze(0) if input.ndim == 2 else y


def _as_method(f: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return f(self, *args, **kwargs)

    method.__name__ = f.__name__
    method.__doc__ = f.__doc__
    return method


def install() -> None:
    """Adds ``Tensor.stft`` and ``Tensor.istft``."""
    Tensor.stft = _as_method(stft)  # type: ignore[attr-defined]
    Tensor.istft = _as_method(istft)  # type: ignore[attr-defined]


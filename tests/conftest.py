"""Shared test helpers."""

import numpy as np
import pytest

import ferrotorch as torch


def to_np(t: "torch.Tensor") -> np.ndarray:
    """Values of a tensor as a NumPy array (through tolist, independent of the interop code)."""
    dt = {
        torch.float32: np.float32,
        torch.float64: np.float64,
        torch.float16: np.float16,
        torch.bfloat16: np.float32,
        torch.int64: np.int64,
        torch.int32: np.int32,
        torch.int16: np.int16,
        torch.int8: np.int8,
        torch.uint8: np.uint8,
        torch.bool: np.bool_,
    }[t.dtype]
    return np.array(t.tolist(), dtype=dt).reshape(tuple(t.shape))


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    torch._core._set_grad_enabled(True)


@pytest.fixture(autouse=True)
def _distribution_validation_on(request):
    """PyTorch's torch.compile turns off its distributions' default argument validation for the
    rest of the process; the distribution tables compare validation, so pin it on (both libraries)."""
    if "distribution" not in request.module.__name__:
        yield
        return
    import ferrotorch

    try:
        import torch as pytorch
    except ImportError:  # pragma: no cover - the setup script installs torch
        pytorch = None
    libs = [ferrotorch] + ([pytorch] if pytorch is not None else [])
    saved = [lib.distributions.Distribution._validate_args for lib in libs]
    for lib in libs:
        lib.distributions.Distribution.set_default_validate_args(True)
    yield
    for lib, value in zip(libs, saved):
        lib.distributions.Distribution.set_default_validate_args(value)

"""PyTorch as the oracle: conversions between ferrotorch and PyTorch tensors for the tables
that compare against PyTorch directly. PyTorch is imported as ``pt`` (the tests import
ferrotorch as ``torch``); where it is absent, the tables skip and NumPy references remain."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import ferrotorch as torch

try:
    pt: Any = importlib.import_module("torch")
except ImportError:  # pragma: no cover - the setup script installs torch
    pt = None

needs_torch = pytest.mark.skipif(pt is None, reason="PyTorch is not installed")

_NAMES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")


def pt_dtype(dt: Any) -> Any:
    """The PyTorch dtype with the same name as a ferrotorch dtype."""
    return getattr(pt, str(dt).split(".")[-1])


def ft_dtype(dt: Any) -> Any:
    """The ferrotorch dtype with the same name as a PyTorch dtype."""
    return getattr(torch, str(dt).split(".")[-1])


def to_pt(t: Any, requires_grad: bool | None = None) -> Any:
    """A PyTorch copy of a ferrotorch tensor (values, shape and dtype; bfloat16 via float32)."""
    if t is None:
        return None
    src = t.detach()
    if src.dtype == torch.bfloat16:
        out = pt.from_numpy(np.array(src.float().numpy())).to(pt.bfloat16)
    else:
        out = pt.from_numpy(np.array(src.contiguous().numpy()))
    if requires_grad if requires_grad is not None else t.requires_grad:
        out.requires_grad_(True)
    return out


def to_ft(t: Any, requires_grad: bool | None = None) -> Any:
    """A ferrotorch copy of a PyTorch tensor."""
    if t is None:
        return None
    src = t.detach().cpu()
    if src.dtype == pt.bfloat16:
        out = torch.from_numpy(src.float().numpy().copy()).to(torch.bfloat16)
    else:
        out = torch.from_numpy(src.contiguous().numpy().copy())
    if requires_grad if requires_grad is not None else t.requires_grad:
        out.requires_grad_(True)
    return out


def assert_close(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6, what: str = "") -> None:
    """Same shape, same dtype name and close values (NaNs in the same places)."""
    assert ours is not None and theirs is not None, f"{what}: one side is None (ours={ours is not None}, torch={theirs is not None})"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], f"{what}: dtype {ours.dtype} vs torch {theirs.dtype}"
    a = np.asarray(ours.detach().float().numpy() if ours.dtype in (torch.bfloat16, torch.float16) else ours.detach().numpy())
    b = theirs.detach().cpu().float().numpy() if theirs.dtype in (pt.bfloat16, pt.float16) else theirs.detach().cpu().numpy()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)

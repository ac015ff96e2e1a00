"""conv2d's fast paths against PyTorch: pointwise (1x1, stride 1, no padding) convolutions
read in place, wide multi-image blocks for small images with many channels, one weight
gradient sum per thread for large weights, depthwise and grouped convolutions; every input
layout (contiguous, transposed, channels-last strides), with and without bias, batch 1 and
0, each gradient alone and together; float64 gradchecks of the new paths."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

F = torch.nn.functional

# (name, x shape, weight shape, stride, padding, dilation, groups)
CASES = [
    ("pointwise 28x28 (image read in place)", (3, 8, 28, 28), (6, 8, 1, 1), 1, 0, 1, 1),
    ("pointwise 7x7 (multi-image block)", (5, 16, 7, 7), (12, 16, 1, 1), 1, 0, 1, 1),
    ("pointwise grouped in place", (2, 8, 30, 30), (6, 8 // 2, 1, 1), 1, 0, 1, 2),
    ("pointwise dilated in place", (2, 4, 28, 29), (3, 4, 1, 1), 1, 0, 2, 1),
    ("1x1 stride 2", (3, 8, 14, 14), (6, 8, 1, 1), 2, 0, 1, 1),
    ("1x1 padded", (2, 4, 28, 28), (5, 4, 1, 1), 1, 1, 1, 1),
    ("3x3 many channels, 7x7 images", (4, 64, 7, 7), (16, 64, 3, 3), 1, 1, 1, 1),
    ("3x3 large weight (one task per thread)", (3, 96, 6, 6), (40, 96, 3, 3), 1, 1, 1, 1),
    ("3x3 stride 2 large weight", (3, 96, 9, 9), (40, 96, 3, 3), 2, 1, 1, 1),
    ("depthwise 3x3", (3, 8, 12, 12), (8, 1, 3, 3), 1, 1, 1, 8),
    ("depthwise 3x3 stride 2", (2, 6, 11, 11), (6, 1, 3, 3), 2, 1, 1, 6),
    ("depthwise multiplier 2", (2, 4, 9, 9), (8, 1, 3, 3), 1, 1, 1, 4),
    ("grouped 3x3 dilated", (2, 6, 10, 10), (9, 2, 3, 3), 1, 2, 2, 3),
]
LAYOUTS = ["contiguous", "transposed", "channels_last"]


def _input(shape: tuple, layout: str, dtype: Any, rng: np.random.Generator) -> Any:
    """A ferrotorch input of `shape` with the given strides, and its values as NumPy."""
    n, c, h, w = shape
    if layout == "contiguous":
        vals = rng.standard_normal(shape)
        return torch.tensor(vals, dtype=dtype), vals
    if layout == "transposed":
        base = rng.standard_normal((n, c, w, h))
        return torch.tensor(base, dtype=dtype).transpose(2, 3), base.transpose(0, 1, 3, 2)
    base = rng.standard_normal((n, h, w, c))
    return torch.tensor(base, dtype=dtype).permute(0, 3, 1, 2), base.transpose(0, 3, 1, 2)


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_paths_match_torch(case: tuple, layout: str, dtype: str, bias: bool) -> None:
    _, xs, ws, stride, padding, dilation, groups = case
    rng = np.random.default_rng(len(xs) + ws[0])
    # The oracle runs in float64: PyTorch's float32 1x1 oneDNN kernels, with ferrotorch loaded
    # in the same process, corrupted the heap at exit (seen with PyTorch 2.15).
    ft_dt, pt_dt = getattr(torch, dtype), pt.float64
    x, xv = _input(xs, layout, ft_dt, rng)
    wv = rng.standard_normal(ws) * 0.2
    bv = rng.standard_normal(ws[0]) if bias else None
    w = torch.tensor(wv, dtype=ft_dt)
    b = torch.tensor(bv, dtype=ft_dt) if bias else None
    args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    tx, tw = pt.tensor(xv, dtype=pt_dt), pt.tensor(wv, dtype=pt_dt)
    tb = pt.tensor(bv, dtype=pt_dt) if bias else None
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    want = pt.nn.functional.conv2d(tx, tw, tb, **args).to(getattr(pt, dtype))
    assert_close(F.conv2d(x, w, b, **args), want, what="forward", **tol)
    gv = rng.standard_normal(pt.nn.functional.conv2d(tx, tw, tb, **args).shape)
    # Each gradient alone (the backward skips what is not wanted), then all together.
    for wanted in ("x", "w", "xwb"):
        leaves = [x.detach().requires_grad_("x" in wanted), w.detach().requires_grad_("w" in wanted)]
        tleaves = [tx.detach().requires_grad_("x" in wanted), tw.detach().requires_grad_("w" in wanted)]
        fb = b.detach().requires_grad_("b" in wanted) if bias else None
        pb = tb.detach().requires_grad_("b" in wanted) if bias else None
        (F.conv2d(*leaves, fb, **args) * torch.tensor(gv, dtype=ft_dt)).sum().backward()
        # Float64 oracle gradients, cast to the tested dtype for the comparison.
        (pt.nn.functional.conv2d(*tleaves, pb, **args) * pt.tensor(gv, dtype=pt_dt)).sum().backward()
        for name, ours, theirs in (("x", leaves[0], tleaves[0]), ("w", leaves[1], tleaves[1]), ("b", fb, pb)):
            if name in wanted and ours is not None:
                assert_close(ours.grad, theirs.grad.to(getattr(pt, dtype)), what=f"grad {name} ({wanted})", **tol)


@needs_torch
@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize("kernel", [1, 3])
def test_conv2d_small_batches_match_torch(n: int, kernel: int) -> None:
    rng = np.random.default_rng(n)
    xv, wv, bv = rng.standard_normal((n, 4, 28, 28)), rng.standard_normal((5, 4, kernel, kernel)), rng.standard_normal(5)
    x = torch.tensor(xv, dtype=torch.float32, requires_grad=True)
    w = torch.tensor(wv, dtype=torch.float32, requires_grad=True)
    b = torch.tensor(bv, dtype=torch.float32, requires_grad=True)
    tx, tw, tb = (pt.tensor(v, dtype=pt.float64, requires_grad=True) for v in (xv, wv, bv))
    y, ty = F.conv2d(x, w, b), pt.nn.functional.conv2d(tx, tw, tb)
    assert_close(y, ty.float(), rtol=2e-4, atol=2e-4)
    y.sum().backward()
    ty.sum().backward()
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        assert_close(ours.grad, theirs.grad.float(), rtol=2e-4, atol=2e-4)


GRADCHECK = [
    ((2, 3, 5, 5), (4, 3, 1, 1), 1, 0, 1, 1),
    ((2, 4, 5, 5), (4, 2, 1, 1), 1, 0, 1, 2),
    ((2, 3, 6, 6), (3, 1, 3, 3), 1, 1, 1, 3),
    ((1, 2, 7, 7), (4, 1, 3, 3), 2, 1, 1, 2),
]


@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", GRADCHECK)
def test_conv2d_paths_gradcheck(xs: tuple, ws: tuple, stride: int, padding: int, dilation: int, groups: int) -> None:
    x = torch.randn(*xs, dtype=torch.float64, requires_grad=True)
    w = torch.randn(*ws, dtype=torch.float64, requires_grad=True)
    b = torch.randn(ws[0], dtype=torch.float64, requires_grad=True)
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (x, w, b))

"""The fused conv2d's block paths (several images unfolded side by side, images split over
threads, the one-long-copy unfold for stride 1 'same' rows, the weight gradient summed per
thread) against a float64 NumPy reference, forward and all three gradients."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np


def ref_conv(x, w, b, stride, pad, dil, groups, gout):
    """Output and (x, w, b) gradients for the loss sum(out * gout), in float64."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    gxp = np.zeros_like(xp)
    gw = np.zeros_like(w)
    for g in range(groups):
        cs, os_ = slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og)
        for ki in range(kh):
            for kj in range(kw):
                r0, c0 = ki * dil[0], kj * dil[1]
                rows = slice(r0, r0 + stride[0] * (oh - 1) + 1, stride[0])
                cols = slice(c0, c0 + stride[1] * (ow - 1) + 1, stride[1])
                patch = xp[:, cs, rows, cols]  # n, cg, oh, ow
                out[:, os_] += np.einsum("nchw,oc->nohw", patch, w[os_, :, ki, kj])
                gw[os_, :, ki, kj] += np.einsum("nchw,nohw->oc", patch, gout[:, os_])
                gxp[:, cs, rows, cols] += np.einsum("nohw,oc->nchw", gout[:, os_], w[os_, :, ki, kj])
    gx = gxp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd]
    gb = None
    if b is not None:
        out += b[None, :, None, None]
        gb = gout.sum(axis=(0, 2, 3))
    return out, gx, gw, gb


# (x shape, weight shape, stride, padding, dilation, groups). Batches of 1, 2, 5, 7, 20 and 0;
# 14x14 and smaller images go through multi-image blocks, 20 images of 196 columns through
# several blocks per thread; odd widths, 'same' padding with dilation and asymmetric kernels
# take the one-copy unfold, the others the general one.
CASES = [
    ((7, 3, 5, 7), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((20, 3, 14, 14), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((5, 4, 9, 6), (6, 2, 3, 3), (1, 1), (2, 2), (2, 2), 2),
    ((2, 2, 6, 9), (3, 2, 3, 1), (1, 1), (1, 0), (1, 1), 1),
    ((5, 2, 8, 7), (4, 2, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    ((3, 2, 7, 5), (4, 2, 3, 3), (1, 2), (2, 1), (1, 1), 1),
    ((1, 6, 11, 13), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 2),
    ((2, 1, 28, 28), (8, 1, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((6, 3, 4, 4), (2, 3, 5, 5), (1, 1), (2, 2), (1, 1), 1),
    ((0, 3, 5, 5), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_blocks_match_float64_reference(case, dtype, bias):
    xs, ws, stride, pad, dil, groups = case
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = rng.standard_normal(ws[0]) if bias else None
    ft_dt = getattr(torch, dtype)
    tx = torch.tensor(x.tolist(), dtype=ft_dt, requires_grad=True) if xs[0] else torch.zeros(xs, dtype=ft_dt, requires_grad=True)
    tw = torch.tensor(w.tolist(), dtype=ft_dt, requires_grad=True)
    tb = torch.tensor(b.tolist(), dtype=ft_dt, requires_grad=True) if bias else None
    y = torch.nn.functional.conv2d(tx, tw, tb, stride=stride, padding=pad, dilation=dil, groups=groups)
    gout = rng.standard_normal(tuple(y.shape))
    out, gx, gw, gb = ref_conv(x, w, b, stride, pad, dil, groups, gout)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(to_np(y), out, **tol)
    y.backward(torch.tensor(gout.tolist(), dtype=ft_dt) if xs[0] else torch.zeros(tuple(y.shape), dtype=ft_dt))
    np.testing.assert_allclose(to_np(tx.grad), gx, **tol)
    np.testing.assert_allclose(to_np(tw.grad), gw, **tol)
    if bias:
        np.testing.assert_allclose(to_np(tb.grad), gb, **tol)


@pytest.mark.parametrize("which", ["input", "weight"])
def test_conv2d_blocks_one_gradient_and_strided_input(which):
    """Only one operand needs a gradient (the first layer of a network: only the weight);
    the input is a transposed, non-contiguous view."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 10, 10, 4))  # stored N, W, H, C; viewed as N, C, H, W
    w = rng.standard_normal((6, 4, 3, 3))
    base = torch.tensor(x.tolist(), requires_grad=which == "input")
    tx = base.permute(0, 3, 2, 1)
    tw = torch.tensor(w.tolist(), requires_grad=which == "weight")
    y = torch.nn.functional.conv2d(tx, tw, padding=1)
    gout = rng.standard_normal(tuple(y.shape))
    out, gx, gw, _ = ref_conv(x.transpose(0, 3, 2, 1), w, None, (1, 1), (1, 1), (1, 1), 1, gout)
    np.testing.assert_allclose(to_np(y), out, rtol=1e-4, atol=1e-4)
    y.backward(torch.tensor(gout.tolist()))
    if which == "weight":
        np.testing.assert_allclose(to_np(tw.grad), gw, rtol=1e-4, atol=1e-4)
        assert base.grad is None
    else:
        np.testing.assert_allclose(to_np(base.grad).transpose(0, 3, 2, 1), gx, rtol=1e-4, atol=1e-4)
        assert tw.grad is None


def test_conv2d_repeated_calls_reuse_scratch_without_stale_values():
    """A big call then a small one on the same threads: the reused scratch must be fully
    rewritten (padding zeros included), or the small result would pick up old columns."""
    rng = np.random.default_rng(5)
    big = torch.tensor(rng.standard_normal((8, 4, 16, 16)).tolist())
    torch.nn.functional.conv2d(big, torch.ones(4, 4, 3, 3), padding=1)
    x, w = rng.standard_normal((4, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    y = torch.nn.functional.conv2d(torch.tensor(x.tolist()), torch.tensor(w.tolist()), padding=1)
    out, _, _, _ = ref_conv(x, w, None, (1, 1), (1, 1), (1, 1), 1, np.zeros((4, 3, 5, 5)))
    np.testing.assert_allclose(to_np(y), out, rtol=1e-4, atol=1e-4)

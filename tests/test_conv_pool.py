"""Convolution, unfold/fold and pooling kernels against NumPy references, with gradchecks."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np
from ferrotorch import _nn_kernels as K


def t64(a, requires_grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=torch.float64, requires_grad=requires_grad)


def np_conv2d(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0], j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


CONV_CASES = [
    dict(x=(2, 3, 7, 6), w=(4, 3, 3, 3), stride=(1, 1), pad=(0, 0), dil=(1, 1), groups=1),
    dict(x=(1, 4, 8, 8), w=(6, 2, 3, 2), stride=(2, 1), pad=(1, 1), dil=(1, 1), groups=2),
    dict(x=(2, 2, 9, 9), w=(2, 2, 3, 3), stride=(1, 2), pad=(2, 0), dil=(2, 1), groups=1),
    dict(x=(1, 3, 5, 5), w=(3, 1, 1, 1), stride=(1, 1), pad=(0, 0), dil=(1, 1), groups=3),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_numpy(case):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(case["x"])
    w = rng.standard_normal(case["w"])
    b = rng.standard_normal(case["w"][0])
    got = K.conv2d(t64(x), t64(w), t64(b), case["stride"], case["pad"], case["dil"], case["groups"])
    ref = np_conv2d(x, w, b, case["stride"], case["pad"], case["dil"], case["groups"])
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-10, atol=1e-10)


def test_conv2d_float32_and_transposed_input():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    xt = torch.tensor(x.transpose(0, 1, 3, 2).tolist()).transpose(2, 3)
    assert not xt.is_contiguous()
    got = K.conv2d(xt, torch.tensor(w.tolist()), padding=1)
    np.testing.assert_allclose(to_np(got), np_conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)


def test_conv2d_gradcheck():
    rng = np.random.default_rng(2)
    x = t64(rng.standard_normal((1, 2, 5, 4)), True)
    w = t64(rng.standard_normal((4, 1, 2, 3)), True)
    b = t64(rng.standard_normal(4), True)
    assert torch.autograd.gradcheck(lambda x, w, b: K.conv2d(x, w, b, (2, 1), (1, 1), (1, 1), 2), (x, w, b))


def test_conv2d_gradgradcheck():
    rng = np.random.default_rng(3)
    x = t64(rng.standard_normal((1, 1, 4, 4)), True)
    w = t64(rng.standard_normal((1, 1, 2, 2)), True)
    assert torch.autograd.gradgradcheck(lambda x, w: K.conv2d(x, w), (x, w))


def test_conv1d_and_unbatched():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 10))
    w = rng.standard_normal((5, 3, 3))
    got = K.conv1d(t64(x), t64(w), None, 2, 1)
    ref = np_conv2d(x[:, :, None, :], w[:, :, None, :], None, (1, 2), (0, 1), (1, 1), 1)[:, :, 0, :]
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-10)
    assert K.conv2d(t64(x[0][:, None, :]), t64(w[:, :, None, :])).shape == (5, 1, 8)


def test_conv_transpose2d_is_adjoint_of_conv2d():
    rng = np.random.default_rng(5)
    x = t64(rng.standard_normal((2, 3, 6, 6)))
    w = t64(rng.standard_normal((4, 3, 3, 3)))
    y = t64(rng.standard_normal((2, 4, 3, 3)))
    # <conv(x), y> == <x, conv_transpose(y)> for the same weight (in-channels 3 -> out 4).
    lhs = (K.conv2d(x, w, stride=2, padding=1) * y).sum().item()
    ct = K.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1)
    assert ct.shape == (2, 3, 6, 6)
    rhs = (x * ct).sum().item()
    assert abs(lhs - rhs) < 1e-9


def test_conv_transpose2d_gradcheck():
    rng = np.random.default_rng(6)
    x = t64(rng.standard_normal((1, 2, 3, 3)), True)
    w = t64(rng.standard_normal((2, 2, 2, 2)), True)
    b = t64(rng.standard_normal(4), True)
    assert torch.autograd.gradcheck(lambda x, w, b: K.conv_transpose2d(x, w, b, 2, 0, 1, 2), (x, w, b))


def test_unfold_fold_round_trip_counts_overlaps():
    x = torch.ones(1, 2, 4, 4, dtype=torch.float64)
    cols = K.unfold(x, 2, stride=1)
    assert cols.shape == (1, 8, 9)
    back = K.fold(cols, (4, 4), 2, stride=1)
    counts = np.array([[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]], dtype=np.float64)
    np.testing.assert_array_equal(to_np(back)[0, 0], counts)


def np_max_pool(x, k, s, p):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = xp[:, :, i * s:i * s + k, j * s:j * s + k].max(axis=(2, 3))
    return out


@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_max_pool2d_matches_numpy_and_indices_point_at_maxima(k, s, p):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 7, 6))
    v, idx = K.max_pool2d(t64(x), k, s, p, return_indices=True)
    np.testing.assert_allclose(to_np(v), np_max_pool(x, k, s, p))
    flat = x.reshape(2, 3, -1)
    picked = np.take_along_axis(flat, to_np(idx).reshape(2, 3, -1), axis=2).reshape(v.shape)
    np.testing.assert_allclose(picked, to_np(v))


def test_max_pool_gradcheck_and_1d():
    rng = np.random.default_rng(8)
    x = t64(rng.permutation(48).reshape(1, 3, 4, 4) / 7.0, True)
    assert torch.autograd.gradcheck(lambda t: K.max_pool2d(t, 2, 1, 1), (x,))
    y = t64([[[1.0, 5.0, 2.0, 8.0, 3.0]]])
    assert K.max_pool1d(y, 2).tolist() == [[[5.0, 8.0]]]


def test_avg_pool2d_and_gradcheck():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 2, 4, 6))
    got = K.avg_pool2d(t64(x), 2)
    ref = x.reshape(1, 2, 2, 2, 3, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-12)
    xt = t64(x, True)
    assert torch.autograd.gradcheck(lambda t: K.avg_pool2d(t, 3, 1, 1), (xt,))


def test_adaptive_avg_pool_divisible():
    x = torch.arange(16, dtype=torch.float64).reshape(1, 1, 4, 4)
    assert K.adaptive_avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert K.adaptive_avg_pool2d(x, 1).tolist() == [[[[7.5]]]]


@pytest.mark.parametrize(
    "fn,pattern",
    [
        (lambda: K.conv2d(torch.ones(1, 3, 5, 5), torch.ones(2, 2, 3, 3)), r"conv2d: Given groups=1, weight of size \[2, 2, 3, 3\] expected input\[1, 3, 5, 5\] to have 2 channels"),
        (lambda: K.conv2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 3, 3)), r"conv2d: input spatial size"),
        (lambda: K.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3, dtype=torch.float64)), r"conv2d: Input type \(float32\) and weight type \(float64\)"),
        (lambda: K.max_pool2d(torch.ones(2, 2), 2), r"max_pool2d: Expected 3D or 4D input tensor"),
        (lambda: K.max_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2), r"pad should be at most half"),
        (lambda: K.fold(torch.ones(1, 5, 9), (4, 4), 2), r"fold: expected input of shape"),
    ],
)
def test_conv_pool_errors(fn, pattern):
    with pytest.raises(RuntimeError, match=pattern):
        fn()


def np_layer_norm(x, k, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def test_layer_norm_matches_numpy_and_gradchecks():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 4, 5))
    w, b = rng.standard_normal(5), rng.standard_normal(5)
    got = K.layer_norm(t64(x), 5, t64(w), t64(b))
    np.testing.assert_allclose(to_np(got), np_layer_norm(x, 1) * w + b, rtol=1e-10, atol=1e-12)
    got2 = K.layer_norm(t64(x), (4, 5))
    np.testing.assert_allclose(to_np(got2), np_layer_norm(x, 2), rtol=1e-10, atol=1e-12)
    xs, ws, bs = t64(x[:2, :2], True), t64(w, True), t64(b, True)
    assert torch.autograd.gradcheck(lambda a, c, d: K.layer_norm(a, 5, c, d), (xs, ws, bs))
    assert torch.autograd.gradgradcheck(lambda a: K.layer_norm(a, 5), (t64(x[0, :2], True),))
    f32 = K.layer_norm(torch.tensor(x.tolist()), 5)
    np.testing.assert_allclose(to_np(f32), np_layer_norm(x, 1), rtol=1e-4, atol=1e-5)


def test_group_norm_matches_numpy():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 6, 3, 3))
    got = K.group_norm(t64(x), 3)
    ref = np_layer_norm(x.reshape(2, 3, -1), 1).reshape(x.shape)
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-10, atol=1e-12)
    assert torch.autograd.gradcheck(lambda a: K.group_norm(a, 2), (t64(x[:1, :4, :2, :2], True),))


def test_batch_norm_training_updates_running_stats_and_eval_uses_them():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((4, 3, 2, 2))
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    y = K.batch_norm(t64(x), rm, rv, training=True, momentum=0.1)
    mu = x.mean(axis=(0, 2, 3))
    var_b = x.var(axis=(0, 2, 3))
    ref = (x - mu[None, :, None, None]) / np.sqrt(var_b[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(to_np(y), ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(to_np(rm), 0.1 * mu, rtol=1e-9)
    np.testing.assert_allclose(to_np(rv), 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1), rtol=1e-6)
    y_eval = K.batch_norm(t64(x), rm, rv, training=False)
    ref_eval = (x - to_np(rm)[None, :, None, None]) / np.sqrt(to_np(rv)[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(to_np(y_eval), ref_eval, rtol=1e-9)
    xs = t64(x[:2, :, :1, :], True)
    assert torch.autograd.gradcheck(lambda a: K.batch_norm(a, None, None, training=True), (xs,))


def test_interpolate_nearest_and_bilinear():
    x = torch.arange(4, dtype=torch.float64).reshape(1, 1, 2, 2)
    assert torch.nn.functional.interpolate(x, scale_factor=2).tolist() == [[[[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]]]
    ac = torch.nn.functional.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
    assert ac.tolist() == [[[[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]]]
    # align_corners=False with scale 2 (values from PyTorch's documented formula).
    nc = torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
    assert nc.tolist()[0][0][0] == [0.0, 0.25, 0.75, 1.0]
    xs = t64(np.arange(6.0).reshape(1, 1, 2, 3) / 5, True)
    assert torch.autograd.gradcheck(lambda t: torch.nn.functional.interpolate(t, size=(3, 5), mode="bilinear", align_corners=False), (xs,))
    with pytest.raises(ValueError, match="size or scale_factor should be defined"):
        torch.nn.functional.interpolate(x)


def _conv_ref(x, w, b, stride, padding, dilation, groups):
    """Direct convolution in float64 NumPy (sliding windows), independent of the kernels."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    win = np.lib.stride_tricks.sliding_window_view(xp, ((kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1), axis=(2, 3))
    win = win[:, :, :: stride[0], :: stride[1], :: dilation[0], :: dilation[1]]
    og = o // groups
    out = np.concatenate([np.einsum("nchwij,ocij->nohw", win[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]) for g in range(groups)], axis=1)
    return out + (b[None, :, None, None] if b is not None else 0)


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fused_conv2d_matches_direct_convolution(n, layout, dtype):
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, 4, 9, 7, generator=g, dtype=dtype)
    if layout == "transposed":
        x = torch.randn(n, 4, 7, 9, generator=g, dtype=dtype).transpose(2, 3)
    w = torch.randn(6, 2, 3, 2, generator=g, dtype=dtype)
    b = torch.randn(6, generator=g, dtype=dtype)
    args = ((2, 1), (1, 2), (1, 2), 2)
    got = K.conv2d(x, w, b, *args)
    want = _conv_ref(x.double().numpy(), w.double().numpy(), b.double().numpy(), *args)
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    np.testing.assert_allclose(got.double().numpy(), want, rtol=tol, atol=tol)
    # Gradients against the float64 reference path through autograd of the direct form.
    xr, wr, br = (t.detach().double().requires_grad_() for t in (x, w, b))
    gout = torch.randn(*got.shape, generator=g, dtype=torch.float64)
    (K.conv2d(xr, wr, br, *args) * gout).sum().backward()
    x2, w2, b2 = (t.detach().requires_grad_() for t in (x, w, b))
    (K.conv2d(x2, w2, b2, *args) * gout.to(dtype)).sum().backward()
    for a, r in ((x2, xr), (w2, wr), (b2, br)):
        np.testing.assert_allclose(a.grad.double().numpy(), r.grad.numpy(), rtol=tol * 10, atol=tol * 10)


def test_fused_conv2d_without_bias_and_input_only_gradient():
    x = torch.randn(3, 2, 5, 5, requires_grad=True)
    w = torch.randn(4, 2, 3, 3)
    y = K.conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1)
    y.sum().backward()
    assert x.grad.shape == x.shape and w.grad is None
    want = _conv_ref(x.detach().double().numpy(), w.double().numpy(), None, (1, 1), (1, 1), (1, 1), 1)
    np.testing.assert_allclose(y.detach().double().numpy(), want, rtol=1e-4, atol=1e-4)


def np_max_pool_first_argmax(x, k, s):
    """Max and first flat argmax per window (no padding); a NaN wins its window."""
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    vals, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=np.int64)
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    best, pos = None, None
                    for ki in range(k):
                        for kj in range(k):
                            r, q = i * s + ki, j * s + kj
                            v = x[a, b, r, q]
                            if best is None or v > best or np.isnan(v):
                                best, pos = v, r * w + q
                                if np.isnan(v):
                                    break
                        if best is not None and np.isnan(best):
                            break
                    vals[a, b, i, j], idx[a, b, i, j] = best, pos
    return vals, idx


@pytest.mark.parametrize("k,s,dtype", [(2, 2, torch.float32), (2, 2, torch.float64), (2, 2, torch.int64), (3, 2, torch.float64), (2, 1, torch.int64), (3, 3, torch.float32)])
def test_max_pool2d_without_padding_keeps_first_argmax_ties_and_nans(k, s, dtype):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 3, (2, 3, 8, 9)).astype(np.float64)  # many ties
    if dtype != torch.int64:
        x[0, 0, 1, 1] = np.nan
        x[1, 2, 4, 0] = np.nan
        x[0, 1, 2, 3] = x[0, 1, 3, 2] = np.nan  # two NaNs in one 2x2 window: the first wins
    v, idx = K.max_pool2d(torch.tensor(x).to(dtype), k, s, return_indices=True)
    want_v, want_i = np_max_pool_first_argmax(x, k, s)
    np.testing.assert_array_equal(v.double().numpy(), want_v)
    np.testing.assert_array_equal(idx.numpy(), want_i)
    # Padding 0 with a strided (non-contiguous) input takes the same path after its copy.
    xt = torch.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).to(dtype).transpose(2, 3)
    v2, i2 = K.max_pool2d(xt, k, s, return_indices=True)
    np.testing.assert_array_equal(v2.double().numpy(), want_v)
    np.testing.assert_array_equal(i2.numpy(), want_i)

"""The vector paths (AVX2, AVX-512, chosen at run time) give the reference path's results:
every optimized kernel is run at each SIMD level on contiguous and strided inputs and
compared with the baseline build and with a float64 NumPy reference."""

import math

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F
from torch_oracle import needs_torch, pt

LEVELS = ["baseline", "avx2", "avx512"]


def erfc(a):
    return np.vectorize(math.erfc)(a)


CASES = {
    "exp": (lambda t: t.exp(), np.exp),
    "log": (lambda t: t.abs().log(), lambda a: np.log(np.abs(a))),
    "tanh": (lambda t: t.tanh(), np.tanh),
    "sigmoid": (lambda t: t.sigmoid(), lambda a: 1 / (1 + np.exp(-a))),
    "silu": (lambda t: F.silu(t), lambda a: a / (1 + np.exp(-a))),
    "gelu": (lambda t: F.gelu(t), lambda a: 0.5 * a * erfc(-a / math.sqrt(2))),
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"), lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))),
    "add": (lambda t: t + t.flip(-1), lambda a: a + a[..., ::-1]),
    "mul_scalar": (lambda t: t * 3.5, lambda a: a * 3.5),
    "softmax": (lambda t: t.softmax(-1), lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True)),
    "log_softmax": (lambda t: t.log_softmax(-1), lambda a: a - a.max(-1, keepdims=True) - np.log(np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True))),
    "layer_norm": (lambda t: F.layer_norm(t, (t.shape[-1],)), lambda a: (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)),
    "sum": (lambda t: t.sum(-1), lambda a: a.sum(-1)),
}


@pytest.fixture
def restore_level():
    yield
    torch._core._set_simd_level("avx512")


def inputs():
    g = torch.Generator().manual_seed(0)
    # Rows long enough for every lane count plus a remainder, values spanning exp's range.
    base = torch.randn(70, 203, generator=g) * 4
    base[0, :5] = torch.tensor([0.0, -0.0, 1e-20, -30.0, 30.0])
    yield "contiguous", base
    yield "transposed", torch.randn(203, 70, generator=g).t() * 4
    yield "sliced", (torch.randn(70, 500, generator=g) * 4)[:, 3:409:2]
    yield "large", torch.randn(64, 1024, generator=g) * 4  # above the parallel threshold


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_simd_level_matches_the_reference(name, restore_level):
    op, ref = CASES[name]
    for layout, x in inputs():
        want = ref(x.double().numpy())
        results = {}
        for level in LEVELS:
            used = torch._core._set_simd_level(level)
            results[used] = op(x).numpy()
        base = results["baseline"]
        np.testing.assert_allclose(base, want, rtol=2e-5, atol=1e-5, err_msg=f"{name} {layout} baseline")
        # Elementwise kernels round alike at every level; a sum adds in another order per
        # level, so its error bound scales with the row's absolute sum (f32 epsilon is 1.2e-7).
        scale = float(np.abs(x.double().numpy()).sum(-1).max()) if name == "sum" else 0.0
        for used, got in results.items():
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=max(1e-5, 2e-7 * scale), err_msg=f"{name} {layout} {used}")
            np.testing.assert_allclose(got, base, rtol=2e-6, atol=max(2e-6, 2e-7 * scale), err_msg=f"{name} {layout} {used} vs baseline")


def test_float64_paths_match_numpy_at_every_level(restore_level):
    x = torch.randn(33, 129, dtype=torch.float64) * 3
    a = x.numpy()
    for level in LEVELS:
        torch._core._set_simd_level(level)
        np.testing.assert_allclose(x.exp().numpy(), np.exp(a), rtol=1e-14)
        np.testing.assert_allclose(x.softmax(-1).numpy(), CASES["softmax"][1](a), rtol=1e-12)
        np.testing.assert_allclose(F.gelu(x).numpy(), CASES["gelu"][1](a), rtol=1e-12, atol=1e-300)


def test_special_values_survive_the_vector_paths(restore_level):
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 100.0, -100.0] * 5)
    for level in LEVELS:
        torch._core._set_simd_level(level)
        e = x.exp()
        assert math.isnan(e[0]) and e[1] == math.inf and e[2] == 0 and e[3] == 1
        t = x.tanh()
        assert math.isnan(t[0]) and t[1] == 1 and t[2] == -1 and t[4] == 1 and t[5] == -1
        g = F.gelu(x)
        assert math.isnan(g[0]) and g[4] == 100 and g[5] == 0
        s = torch.tensor([[-math.inf, -math.inf], [1.0, math.nan]]).softmax(-1)
        assert all(math.isnan(v) for v in s.flatten().tolist())


def test_gelu_backward_fused_matches_formula_at_every_level(restore_level):
    x = torch.linspace(-9, 9, 1001)
    xd = x.double().numpy()
    want = 0.5 * erfc(-xd / math.sqrt(2)) + xd * np.exp(-0.5 * xd * xd) / math.sqrt(2 * math.pi)
    for level in LEVELS:
        torch._core._set_simd_level(level)
        xr = x.clone().requires_grad_()
        F.gelu(xr).sum().backward()
        np.testing.assert_allclose(xr.grad.double().numpy(), want, rtol=1e-5, atol=1e-6)


GRAD_CASES = {
    "gelu": lambda t: F.gelu(t),
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "log": lambda t: t.abs().log(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_backward_kernels_match_pytorch_at_every_level(name, restore_level):
    # Values across the tails, the specials, and a strided gradient; float64 PyTorch is the reference.
    g0 = torch.Generator().manual_seed(1)
    x = torch.cat([torch.linspace(-12, 12, 4001), torch.randn(70_000, generator=g0) * 3,
                   torch.tensor([0.0, -0.0, 1e-40, -1e-40, 30.0, -30.0, 1e30, -1e30])])
    g = (torch.randn(2 * x.numel(), generator=g0))[::2]
    xt = pt.tensor(x.double().numpy(), requires_grad=True)
    (want,) = pt.autograd.grad(_pt_op(name)(xt), xt, pt.tensor(g.double().numpy()))
    want = want.numpy()
    for level in LEVELS:
        used = torch._core._set_simd_level(level)
        xr = x.clone().requires_grad_()
        (got,) = torch.autograd.grad(GRAD_CASES[name](xr), xr, g)
        assert got.dtype == torch.float32
        got = got.double().numpy()
        # 1 / x of a subnormal overflows float32: compared where float32 can hold the value.
        compare = np.isfinite(want) & (np.abs(want) < 3e38)
        # Huge |x| overflows x^2 in float32: PyTorch's float32 tanh-GELU gradient is NaN there too.
        if name == "gelu_tanh":
            compare &= np.abs(x.double().numpy()) < 1e15
        np.testing.assert_allclose(got[compare], want[compare], rtol=2e-5, atol=1e-6, err_msg=f"{name} {used}")
        nan = np.isnan(want)
        assert np.isnan(got[nan]).all(), f"{name} {used}"


def _pt_op(name):
    Fp = pt.nn.functional
    return {
        "gelu": Fp.gelu,
        "gelu_tanh": lambda t: Fp.gelu(t, approximate="tanh"),
        "silu": Fp.silu,
        "tanh": pt.tanh,
        "sigmoid": pt.sigmoid,
        "log": lambda t: t.abs().log(),
    }[name]


def test_log_special_values_at_every_level(restore_level):
    x = torch.tensor([float("nan"), float("inf"), -1.0, 0.0, -0.0, 1e-45, 1e-40, 1.0, -float("inf")] * 3)
    for level in LEVELS:
        torch._core._set_simd_level(level)
        y = x.log().tolist()
        assert math.isnan(y[0]) and y[1] == math.inf and math.isnan(y[2]) and y[3] == -math.inf
        assert y[4] == -math.inf and y[7] == 0.0 and math.isnan(y[8])
        # The float32 subnormals nearest 1e-45 and 1e-40.
        assert abs(y[5] - math.log(x[5].item())) < 1e-5 and abs(y[6] - math.log(x[6].item())) < 1e-5


@needs_torch
@pytest.mark.parametrize(
    "stride,padding,dilation,kernel",
    [
        (1, 1, 1, (3, 3)),
        (1, 2, 2, (3, 3)),
        (2, 1, 1, (3, 3)),
        ((1, 2), (0, 1), 1, (3, 3)),
        # Other windows than 3x3 take the flat layout's general tap loop.
        (1, 2, 1, (5, 5)),
        (1, (0, 1), (2, 1), (2, 3)),
        (1, 0, 1, (1, 1)),
    ],
)
def test_depthwise_conv_matches_pytorch_at_every_level(stride, padding, dilation, kernel, restore_level):
    # The direct depthwise loops (flat stride-1 layout and per-row strided loops), with a
    # channel multiplier of 2, against float64 PyTorch: output and all three gradients.
    g0 = torch.Generator().manual_seed(2)
    x = torch.randn(3, 5, 13, 17, generator=g0)
    w = torch.randn(10, 1, *kernel, generator=g0)
    b = torch.randn(10, generator=g0)
    opts = dict(stride=stride, padding=padding, dilation=dilation, groups=5)
    xt, wt, bt = (pt.tensor(t.double().numpy(), requires_grad=True) for t in (x, w, b))
    yt = pt.nn.functional.conv2d(xt, wt, bt, **opts)
    gy = torch.randn(*yt.shape, generator=g0)
    want = [yt.detach().numpy()] + [t.numpy() for t in pt.autograd.grad(yt, (xt, wt, bt), pt.tensor(gy.double().numpy()))]
    for level in LEVELS:
        used = torch._core._set_simd_level(level)
        xr, wr, br = (t.clone().requires_grad_() for t in (x, w, b))
        y = F.conv2d(xr, wr, br, **opts)
        got = [y.detach().numpy()] + [t.numpy() for t in torch.autograd.grad(y, (xr, wr, br), gy)]
        for what, a, e in zip(("output", "grad x", "grad w", "grad b"), got, want):
            np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4, err_msg=f"{what} at {used}")

"""torch.* functions beside nn.functional (ATen's signatures: int reductions, (input, p, train)
dropouts, positional norms, native_* tuples, recurrent cells) against PyTorch: values and
gradients, argument by argument."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch

RNG = np.random.default_rng(11)


def rn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


class NG:
    """An array passed as a tensor that does not require grad (running statistics)."""

    def __init__(self, a):
        self.a = a


def _to(lib, v, grad):
    """numpy arrays become tensors (floats requiring grad when ``grad``); lists recurse."""
    if isinstance(v, NG):
        return lib.from_numpy(v.a.copy())
    if isinstance(v, np.ndarray):
        t = lib.from_numpy(v.copy())
        if grad and v.dtype.kind == "f":
            t.requires_grad_(True)
        return t
    if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
        return [_to(lib, x, grad) for x in v]
    return v


def _leaves(args):
    out = []
    for a in args:
        if isinstance(a, list):
            out += _leaves(a)
        elif hasattr(a, "requires_grad") and a.requires_grad:
            out.append(a)
    return out


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def check(name, args, kwargs=None, grad=True, rtol=1e-10, atol=1e-10, transform=None):
    """Runs torch.<name> on both sides; compares every output, then the gradients of a random
    weighted sum of the floating outputs with respect to every floating input."""
    kwargs = kwargs or {}
    fa = [_to(torch, a, grad) for a in args]
    pa = [_to(pt, a, grad) for a in args]
    if transform is not None:
        fa, pa = transform(fa, torch), transform(pa, pt)
    ours = _flat(getattr(torch, name)(*fa, **kwargs))
    theirs = _flat(getattr(pt, name)(*pa, **kwargs))
    assert len(ours) == len(theirs), name
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert_close(a, b, rtol=rtol, atol=atol, what=f"{name} output {k}")
    if not grad:
        return
    lf, lp = _leaves(fa), _leaves(pa)
    outs = [(a, b) for a, b in zip(ours, theirs) if b.dtype.is_floating_point and b.requires_grad]
    if not lf or not outs:
        return
    sf = sp = 0
    for a, b in outs:
        w = RNG.standard_normal(tuple(b.shape)).astype(np.float64)
        sf = sf + (a * torch.from_numpy(w).to(a.dtype)).sum()
        sp = sp + (b * pt.from_numpy(w).to(b.dtype)).sum()
    gf = torch.autograd.grad(sf, lf, allow_unused=True)
    gp = pt.autograd.grad(sp, lp, allow_unused=True)
    for k, (a, b) in enumerate(zip(gf, gp)):
        if b is None:
            assert a is None or not a.abs().sum().item(), f"{name} grad {k}: torch has none"
            continue
        assert_close(a, b, rtol=rtol, atol=atol, what=f"{name} grad {k}")


def T(fs):
    """A transform transposing the listed argument positions (non-contiguous inputs)."""

    def go(args, lib):
        return [a.transpose(-1, -2) if i in fs else a for i, a in enumerate(args)]

    return go


X3 = rn(2, 4, 7)
CASES = [
    ("conv1d", [X3, rn(6, 4, 3), rn(6)], {}),
    ("conv1d", [X3, rn(4, 2, 3), None, 2, 1, 2, 2], {}),
    ("conv1d", [X3, rn(6, 4, 3)], {"padding": "same"}),
    ("conv2d", [rn(2, 3, 6, 5), rn(4, 3, 3, 2), rn(4), (2, 1), 1], {}),
    ("conv3d", [rn(1, 2, 4, 5, 3), rn(3, 2, 2, 2, 2)], {"padding": 1}),
    ("conv_transpose1d", [X3, rn(4, 3, 3), rn(3), 2, 1, 1], {}),
    ("conv_transpose2d", [rn(2, 4, 3, 4), rn(4, 2, 3, 3), None, 2, 1, 1, 2], {}),
    ("conv_transpose3d", [rn(1, 2, 3, 2, 3), rn(2, 3, 2, 2, 2)], {"stride": 2}),
    ("conv_tbc", [rn(7, 2, 3), rn(3, 3, 5), rn(5)], {}),
    ("conv_tbc", [rn(7, 2, 3), rn(3, 3, 5), rn(5), 2], {}),
    ("convolution", [X3, rn(6, 4, 3), rn(6), [2], [1], [1], False, [0], 1], {}),
    ("convolution", [rn(2, 4, 3, 3), rn(4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1], {}),
    ("layer_norm", [X3, [7], rn(7), rn(7)], {}),
    ("layer_norm", [X3, [4, 7], None, None, 1e-3, False], {}),
    ("group_norm", [rn(2, 6, 5), 3, rn(6), rn(6)], {}),
    ("group_norm", [rn(2, 6, 5), 2, None, None, 1e-3, False], {}),
    ("instance_norm", [rn(2, 3, 5), rn(3), rn(3), None, None, True, 0.1, 1e-5, False], {}),
    ("batch_norm", [rn(4, 3, 5), rn(3), rn(3), NG(np.zeros(3)), NG(np.ones(3)), True, 0.3, 1e-5, False], {}),
    ("batch_norm", [rn(4, 3), None, None, NG(rn(3)), NG(np.abs(rn(3)) + 0.5), False, 0.1, 1e-3, True], {}),
    ("rms_norm", [X3, [7], rn(7)], {}),
    ("rms_norm", [X3, [4, 7], None, 1e-3], {}),
    ("native_layer_norm", [X3, [7], rn(7), rn(7), 1e-5], {}),
    ("native_layer_norm", [X3, [4, 7], None, None, 1e-3], {}),
    ("native_batch_norm", [rn(4, 3, 2), rn(3), rn(3), NG(np.zeros(3)), NG(np.ones(3)), True, 0.1, 1e-5], {}),
    ("native_batch_norm", [rn(4, 3, 2), None, None, None, None, True, 0.1, 1e-5], {}),
    ("native_batch_norm", [rn(4, 3), rn(3), rn(3), NG(rn(3)), NG(np.ones(3)), False, 0.1, 1e-5], {}),
    ("native_group_norm", [rn(2, 6, 5), rn(6), rn(6), 2, 6, 5, 3, 1e-5], {}),
    ("embedding", [rn(6, 3), np.array([[0, 2, 5], [2, 2, 1]])], {}),
    ("embedding", [rn(6, 3), np.array([0, 2, 5, 2]), 2], {}),
    ("embedding", [rn(6, 3), np.array([0, 2, 5, 2]), -1, True], {}),
    ("embedding", [rn(6, 3), np.array([0, 2, 5, 2], dtype=np.int32)], {}),
    ("bilinear", [rn(4, 3), rn(4, 2), rn(5, 3, 2), rn(5)], {}),
    ("binary_cross_entropy_with_logits", [rn(4, 3), RNG.uniform(size=(4, 3))], {}),
    ("binary_cross_entropy_with_logits", [rn(4, 3), RNG.uniform(size=(4, 3)), NG(rn(3)), NG(np.abs(rn(3))), 0], {}),
    ("binary_cross_entropy_with_logits", [rn(4, 3), RNG.uniform(size=(4, 3)), None, NG(np.abs(rn(3))), 1], {}),
    ("binary_cross_entropy_with_logits", [rn(4, 3), RNG.uniform(size=(4, 3)), NG(rn(4, 1)), None, 2], {}),
    ("cosine_similarity", [rn(4, 3), rn(4, 3)], {}),
    ("cosine_similarity", [rn(4, 3), rn(1, 3), 1, 1e-6], {}),
    ("pairwise_distance", [rn(4, 3), rn(4, 3), 1.5, 1e-6, True], {}),
    ("pdist", [rn(5, 3)], {}),
    ("pdist", [rn(5, 3), 1.0], {}),
    ("kl_div", [rn(4, 3), RNG.uniform(size=(4, 3))], {}),
    ("kl_div", [rn(4, 3), rn(4, 3), 2], {"log_target": True}),
    ("kl_div", [rn(4, 3), RNG.uniform(size=(4, 3)), 0], {}),
    ("kl_div", [rn(4, 3), RNG.uniform(size=(4, 3)), 1], {}),
    ("kl_div", [rn(4, 3), RNG.uniform(size=(4, 3)), 7], {}),
    ("margin_ranking_loss", [rn(5), rn(5), np.sign(rn(5))], {}),
    ("margin_ranking_loss", [rn(5), rn(5), np.sign(rn(5)), 0.5, 1], {}),
    ("hinge_embedding_loss", [rn(5, 2), np.sign(rn(5, 2))], {}),
    ("hinge_embedding_loss", [rn(5, 2), np.sign(rn(5, 2)), 0.3, 2], {}),
    ("cosine_embedding_loss", [rn(5, 3), rn(5, 3), np.sign(rn(5))], {}),
    ("cosine_embedding_loss", [rn(5, 3), rn(5, 3), np.sign(rn(5)), 0.2, 0], {}),
    ("triplet_margin_loss", [rn(5, 3), rn(5, 3), rn(5, 3)], {}),
    ("triplet_margin_loss", [rn(5, 3), rn(5, 3), rn(5, 3), 0.5, 1.0, 1e-6, True, 1], {}),
    ("poisson_nll_loss", [rn(4, 3), np.abs(rn(4, 3)), True, False, 1e-8, 1], {}),
    ("poisson_nll_loss", [np.abs(rn(4, 3)), np.abs(rn(4, 3)) * 3, False, True, 1e-8, 0], {}),
    ("pixel_shuffle", [rn(2, 8, 3, 2), 2], {}),
    ("pixel_unshuffle", [rn(2, 2, 4, 6), 2], {}),
    ("channel_shuffle", [rn(2, 6, 3), 3], {}),
    ("max_pool1d", [X3, 2], {}),
    ("max_pool1d", [X3, 3, [], 1, 1, True], {}),
    ("max_pool1d", [X3, 2, 1, 0, 2], {}),
    ("max_pool2d", [rn(2, 3, 6, 5), 2], {}),
    ("max_pool2d", [rn(2, 3, 6, 5), [3, 2], [2, 1], [1, 0], 1, True], {}),
    ("max_pool3d", [rn(1, 2, 4, 4, 5), 2], {}),
    ("max_pool1d_with_indices", [X3, 3, 2], {}),
    ("avg_pool1d", [X3, 3], {}),
    ("avg_pool1d", [X3, 3, 2, 1, True, False], {}),
    ("adaptive_avg_pool1d", [X3, 3], {}),
    ("adaptive_max_pool1d", [X3, 3], {}),
    ("prelu", [rn(2, 3, 4), np.abs(rn(3))], {}),
    ("hardshrink", [rn(4, 5)], {}),
    ("hardshrink", [rn(4, 5), 1.0], {}),
    ("constant_pad_nd", [rn(2, 3), [1, 2]], {}),
    ("constant_pad_nd", [rn(2, 3, 4), [1, -1, 2, 0], 2.5], {}),
    ("constant_pad_nd", [np.arange(6).reshape(2, 3), [1, 2], 7], {}),
    ("constant_pad_nd", [np.array([True, False]), [1, 1], True], {}),
    ("pixel_shuffle", [np.arange(32).reshape(2, 4, 2, 2), 2], {}),
    ("pixel_unshuffle", [np.arange(32).reshape(2, 2, 2, 4), 2], {}),
    ("channel_shuffle", [np.arange(24).reshape(2, 6, 2).astype(np.int32), 2], {}),
    ("pixel_shuffle", [rn(4, 1, 1), 2], {}),
    ("lstm_cell", [rn(3, 4), [rn(3, 5), rn(3, 5)], rn(20, 4), rn(20, 5), rn(20), rn(20)], {}),
    ("lstm_cell", [rn(3, 4), [rn(3, 5), rn(3, 5)], rn(20, 4), rn(20, 5)], {}),
    ("gru_cell", [rn(3, 4), rn(3, 5), rn(15, 4), rn(15, 5), rn(15), rn(15)], {}),
    ("gru_cell", [rn(3, 4), rn(3, 5), rn(15, 4), rn(15, 5)], {}),
    ("rnn_tanh_cell", [rn(3, 4), rn(3, 5), rn(5, 4), rn(5, 5), rn(5), rn(5)], {}),
    ("rnn_relu_cell", [rn(3, 4), rn(3, 5), rn(5, 4), rn(5, 5), None, rn(5)], {}),
]


@pytest.mark.parametrize("name,args,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_against_torch(name, args, kw):
    check(name, args, kw)


def test_native_channel_shuffle():
    # PyTorch has no derivative for it: values only.
    check("native_channel_shuffle", [rn(2, 6, 3), 2], grad=False)
    check("native_channel_shuffle", [np.arange(24).reshape(2, 6, 2), 3], grad=False)


@pytest.mark.parametrize("name,args,kw", [c for c in CASES if c[0] in ("conv1d", "layer_norm", "max_pool1d", "cosine_similarity", "kl_div", "gru_cell")][:8])
def test_float32(name, args, kw):
    args32 = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in args]
    args32 = [[x.astype(np.float32) for x in a] if isinstance(a, list) and a and isinstance(a[0], np.ndarray) else a for a in args32]
    check(name, args32, kw, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,args,fs", [
    ("conv1d", [rn(2, 7, 4), rn(6, 4, 3)], [0]),
    ("layer_norm", [rn(2, 7, 4), [7]], [0]),
    ("group_norm", [rn(2, 5, 6), 3], [0]),
    ("pdist", [rn(3, 5)], [0]),
    ("max_pool1d", [rn(2, 7, 4), 2], [0]),
    ("constant_pad_nd", [rn(3, 2), [1, 1]], [0]),
    ("gru_cell", [rn(4, 3), rn(5, 3), rn(15, 4), rn(15, 5)], [0, 1]),
])
def test_non_contiguous(name, args, fs):
    check(name, args, transform=T(fs))


def test_zero_size():
    check("layer_norm", [rn(0, 4), [4]])
    check("conv_tbc", [rn(5, 0, 3), rn(2, 3, 4), rn(4)])
    check("embedding", [rn(6, 3), np.zeros((0,), dtype=np.int64)])
    check("constant_pad_nd", [rn(0, 3), [1, 1]])
    check("kl_div", [rn(0), rn(0), 2])


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_ctc_loss(reduction):
    T_, C, N, S = 8, 5, 2, 3
    lp = np.log(RNG.dirichlet(np.ones(C), size=(T_, N)))
    targets = RNG.integers(1, C, size=(N, S))
    check("ctc_loss", [lp, targets, [8, 6], [3, 2], 0, reduction, False], rtol=1e-8, atol=1e-8)
    check("ctc_loss", [lp, targets, np.array([8, 7]), np.array([3, 1])], {"reduction": reduction, "zero_infinity": True}, rtol=1e-8, atol=1e-8)


EB_W = rn(6, 3)
EB_IDX = np.array([1, 2, 4, 5, 4, 3, 2, 0])
EB_OFF = np.array([0, 2, 2, 5])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("extra", [(), (False, None, False, 4), (False, None, False, None), (False, None, True, None)])
def test_embedding_bag(dtype, mode, extra):
    # The quadruple (output, offset2bag, bag_size, max_indices) of ATen's CPU kernel.
    check("embedding_bag", [EB_W.astype(dtype), EB_IDX, EB_OFF if not (extra and extra[2]) else np.array([0, 2, 2, 8]), False, mode] + list(extra), rtol=1e-6, atol=1e-6)


def test_embedding_bag_per_sample_weights():
    check("embedding_bag", [EB_W, EB_IDX, EB_OFF, False, 0, False, RNG.uniform(size=8)])
    check("embedding_bag", [EB_W.astype(np.float32), EB_IDX, EB_OFF, False, 0, False, RNG.uniform(size=8).astype(np.float32)], rtol=1e-5, atol=1e-6)


def test_batch_norm_running_stats_updated():
    x = rn(4, 3, 5)
    rm_f, rv_f = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_p, rv_p = pt.zeros(3, dtype=pt.float64), pt.ones(3, dtype=pt.float64)
    torch.batch_norm(torch.from_numpy(x), None, None, rm_f, rv_f, True, 0.2, 1e-5, False)
    pt.batch_norm(pt.from_numpy(x), None, None, rm_p, rv_p, True, 0.2, 1e-5, False)
    assert_close(rm_f, rm_p, rtol=1e-12, atol=1e-12)
    assert_close(rv_f, rv_p, rtol=1e-12, atol=1e-12)


DROPOUTS = ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_not_training_is_identity(name):
    x = torch.randn(4, 5, 3)
    assert getattr(torch, name)(x, 0.5, False) is x
    assert getattr(torch, name)(x, 0.0, True) is x
    y = torch.randn(4, 5, 3)
    before = y._version
    assert getattr(torch, name + "_")(y, 0.5, False) is y
    assert y._version == before


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_training(name):
    torch.manual_seed(0)
    p = 0.3
    if "alpha" in name:
        # Dropped values go to a*(-SELU saturation) + b: a standard normal input keeps mean 0, std 1.
        x = torch.randn(400, 50, 8, dtype=torch.float64)
        y = getattr(torch, name)(x, p, True)
        assert abs(float(y.mean())) < 0.05 and abs(float(y.std()) - 1.0) < 0.05
        sat = 1.7580993408473766
        a = 1.0 / np.sqrt((sat**2 * p + 1) * (1 - p))
        dropped = (y - sat * a * (p - 1)).abs() < 1e-12
    else:
        x = torch.ones(200, 50, 4, dtype=torch.float64)
        y = getattr(torch, name)(x, p, True)
        assert set(np.unique(np.round(y.numpy(), 9)).tolist()) <= {0.0, round(1 / (1 - p), 9)}
        dropped = y == 0
    assert y.shape == x.shape and y.dtype == x.dtype
    assert abs(float(dropped.double().mean()) - p) < 0.03
    if "feature" in name:
        # One draw per (sample, channel): the same along the trailing dim.
        assert bool((dropped == dropped[:, :, :1]).all())
    z = x.clone()
    before = z._version
    assert getattr(torch, name + "_")(z, p, True) is z
    assert z._version > before
    assert bool((getattr(torch, name)(x, 1.0, True) == 0).all())
    assert bool((getattr(pt, name)(pt.from_numpy(x.numpy()), 1.0, True) == 0).all())


def test_dropout_gradient_is_mask():
    torch.manual_seed(1)
    x = torch.randn(50, 40, dtype=torch.float64, requires_grad=True)
    y = torch.dropout(x, 0.4, True)
    y.sum().backward()
    kept = (y != 0).double()
    assert_close(x.grad, pt.from_numpy((kept / 0.6).numpy()), rtol=1e-12, atol=1e-12)


def test_native_dropout():
    torch.manual_seed(2)
    x = torch.randn(100, 30, dtype=torch.float64)
    out, mask = torch.native_dropout(x, 0.25, True)
    assert mask.dtype == torch.bool and mask.shape == x.shape
    assert_close(out, pt.from_numpy((x * mask.double() / 0.75).numpy()), rtol=1e-12, atol=1e-12)
    assert abs(float(mask.double().mean()) - 0.75) < 0.03
    out, mask = torch.native_dropout(x, 0.25, None)
    assert abs(float(mask.double().mean()) - 0.75) < 0.03
    ptx = pt.from_numpy(x.numpy())
    ours, theirs = torch.native_dropout(x, 0.25, False), pt.native_dropout(ptx, 0.25, False)
    assert_close(ours[0], theirs[0])
    assert_close(ours[1], theirs[1])
    assert ours[0] is not x


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.dropout(x, 1.5, True),
    lambda lib, x: lib.dropout(x, -0.1, False),
    lambda lib, x: lib.alpha_dropout_(x, 2.0, True),
    lambda lib, x: lib.feature_dropout(x[0, 0], 0.5, True),
    lambda lib, x: lib.native_dropout(x, 1.5, True),
    lambda lib, x: lib.conv_tbc(x[0], x, x[0, 0], 0),
    lambda lib, x: lib.conv_tbc(x, lib.zeros(2, 4, 4, dtype=x.dtype), lib.zeros(4, dtype=x.dtype), 0),
    lambda lib, x: lib.conv_tbc(x, lib.zeros(2, 3, 4, dtype=x.dtype), lib.zeros(3, dtype=x.dtype), 0),
    lambda lib, x: lib.embedding(x[0, 0], lib.tensor([1])),
    lambda lib, x: lib.embedding(x[0], x[0, 0]),
    lambda lib, x: lib.batch_norm(x, None, None, None, None, False, 0.1, 1e-5, True),
    lambda lib, x: lib.lstm_cell(x[0, 0], [x[0, 0], x[0, 0]], lib.zeros(12, 3, dtype=x.dtype), lib.zeros(12, 3, dtype=x.dtype)),
    lambda lib, x: lib.gru_cell(x[0], x[0], lib.zeros(9, 4, dtype=x.dtype), lib.zeros(9, 3, dtype=x.dtype)),
    lambda lib, x: lib.rnn_tanh_cell(x[0], x[0, :1], lib.zeros(3, 3, dtype=x.dtype), lib.zeros(3, 3, dtype=x.dtype)),
])
def test_errors(call):
    x = np.zeros((2, 2, 3))
    with pytest.raises(Exception) as theirs:
        call(pt, pt.from_numpy(x))
    with pytest.raises(type(theirs.value)):
        call(torch, torch.from_numpy(x))


def test_gradcheck():
    d = torch.float64
    assert torch.autograd.gradcheck(lambda x, w, b: torch.conv_tbc(x, w, b, 1), (torch.randn(5, 2, 3, dtype=d, requires_grad=True), torch.randn(2, 3, 4, dtype=d, requires_grad=True), torch.randn(4, dtype=d, requires_grad=True)))
    assert torch.autograd.gradcheck(lambda x, w, b: torch.native_layer_norm(x, [4], w, b, 1e-5)[0], (torch.randn(3, 4, dtype=d, requires_grad=True), torch.randn(4, dtype=d, requires_grad=True), torch.randn(4, dtype=d, requires_grad=True)))
    assert torch.autograd.gradcheck(lambda x, h, c, wi, wh: torch.lstm_cell(x, [h, c], wi, wh)[1], tuple(torch.randn(*s, dtype=d, requires_grad=True) for s in [(2, 3), (2, 2), (2, 2), (8, 3), (8, 2)]))
    assert torch.autograd.gradcheck(lambda w: torch.embedding_bag(w, torch.tensor([0, 2, 1, 3]), torch.tensor([0, 1]), False, 2)[0], (torch.randn(4, 3, dtype=d, requires_grad=True),))
    assert torch.autograd.gradcheck(lambda a, b: torch.binary_cross_entropy_with_logits(a, b, None, None, 2), (torch.randn(3, 2, dtype=d, requires_grad=True), torch.rand(3, 2, dtype=d, requires_grad=True)))


# ---------------------------------------------------------------------------------------------
# Regressions found by the differential fuzzer (tests/fuzz): each case is the fuzzer's own
# reproducing case, run on both libraries and compared by its rules (result dtype, shape and
# values, or the exception class).


def _run_fuzz_case(case: dict) -> None:
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    for p in (here, os.path.join(here, "fuzz")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from fuzz_case import run_case
    from fuzz_known import excluded

    assert excluded(case) is None, "a regression case must not be one the fuzzer skips"
    run_case(case)


_FUZZ_REGRESSIONS = {
    'instance_norm_0d': {'op': 'torch.instance_norm', 'inputs': [{'shape': [], 'dtype': 'uint8', 'layout': 'transposed', 'values': 'normal', 'seed': 299725044}], 'args': []},
    'instance_norm_empty_int': {'op': 'torch.instance_norm', 'inputs': [{'shape': [4, 3, 0], 'dtype': 'int16', 'layout': 'contiguous', 'values': 'normal', 'seed': 634}], 'args': []},
    'instance_norm_bool': {'op': 'torch.instance_norm', 'inputs': [{'shape': [3, 7], 'dtype': 'bool', 'layout': 'contiguous', 'values': 'normal', 'seed': 12037}], 'args': []},
    'native_layer_norm_empty_mean': {'op': 'torch.native_layer_norm', 'inputs': [{'shape': [0], 'dtype': 'float16', 'layout': 'permuted', 'values': 'normal', 'seed': 1}], 'args': []},
    'group_norm_empty_batch_int': {'op': 'torch.group_norm', 'inputs': [{'shape': [0, 2, 3], 'dtype': 'int16', 'layout': 'flipped', 'values': 'ints', 'seed': 1}], 'args': [1]},
    'bce_logits_bool_target_before_shapes': {'op': 'torch.bce_with_logits', 'inputs': [{'shape': [3, 5, 2, 5], 'dtype': 'float64', 'layout': 'flipped', 'values': 'normal', 'seed': 1}, {'shape': [5, 2, 5], 'dtype': 'bool', 'layout': 'contiguous', 'values': 'normal', 'seed': 2}], 'args': [0]},
    'group_norm_0d': {'op': 'torch.group_norm', 'inputs': [{'shape': [], 'dtype': 'int8', 'layout': 'flipped', 'values': 'normal', 'seed': 3}], 'args': [0]},
    'group_norm_zero_groups': {'op': 'torch.group_norm', 'inputs': [{'shape': [3, 7, 7, 7], 'dtype': 'float64', 'layout': 'flipped', 'values': 'normal', 'seed': 1}], 'args': [0]},
    'group_norm_zero_channels': {'op': 'torch.group_norm', 'inputs': [{'shape': [3, 0, 2], 'dtype': 'float32', 'layout': 'transposed', 'values': 'normal', 'seed': 1312942708}], 'args': [3]},
    'group_norm_zero_hxw': {'op': 'torch.group_norm', 'inputs': [{'shape': [3, 3, 0], 'dtype': 'float32', 'layout': 'transposed', 'values': 'normal', 'seed': 4}], 'args': [3]},
    'batch_norm_half_training': {'op': 'torch.batch_norm', 'inputs': [{'shape': [3, 2, 4], 'dtype': 'float16', 'layout': 'contiguous', 'values': 'normal', 'seed': 7}], 'args': [True]},
    'batch_norm_1d': {'op': 'torch.batch_norm', 'inputs': [{'shape': [5], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 1}], 'args': [True]},
    'batch_norm_empty_eval': {'op': 'torch.batch_norm', 'inputs': [{'shape': [4, 0], 'dtype': 'bool', 'layout': 'transposed', 'values': 'normal', 'seed': 1}], 'args': [False]},
    'batch_norm_1d_eval': {'op': 'torch.batch_norm', 'inputs': [{'shape': [2], 'dtype': 'complex64', 'layout': 'transposed', 'values': 'normal', 'seed': 4}], 'args': [False]},
    'margin_ranking_loss_broadcasts': {'op': 'torch.margin_ranking_loss', 'inputs': [{'shape': [], 'dtype': 'uint8', 'layout': 'transposed', 'values': 'normal', 'seed': 21}, {'shape': [2, 1], 'dtype': 'uint8', 'layout': 'expanded', 'values': 'ints', 'seed': 1651451, 'expand_dim': 0}, {'shape': [], 'dtype': 'uint8', 'layout': 'contiguous', 'values': 'ints', 'seed': 7}], 'args': []},
    'bce_logits_target_smaller': {'op': 'torch.bce_with_logits', 'inputs': [{'shape': [3, 5, 0], 'dtype': 'float32', 'layout': 'flipped', 'values': 'extreme', 'seed': 100}, {'shape': [3, 1, 0], 'dtype': 'float32', 'layout': 'flipped', 'values': 'normal', 'seed': 2097}], 'args': [1]},
    'bce_logits_bool_input': {'op': 'torch.bce_with_logits', 'inputs': [{'shape': [1, 1, 1, 3], 'dtype': 'bool', 'layout': 'flipped', 'values': 'ints', 'seed': 1}, {'shape': [1, 1, 1, 1], 'dtype': 'float64', 'layout': 'expanded', 'values': 'special', 'seed': 1}], 'args': [0]},
    'bce_logits_input_broadcasts': {'op': 'torch.bce_with_logits', 'inputs': [{'shape': [3, 1, 2], 'dtype': 'float64', 'layout': 'contiguous', 'values': 'normal', 'seed': 1}, {'shape': [3, 5, 2], 'dtype': 'float64', 'layout': 'contiguous', 'values': 'normal', 'seed': 2}], 'args': [1]},
    'constant_pad_complex_value': {'op': 'torch.constant_pad_nd', 'inputs': [{'shape': [3, 1], 'dtype': 'float64', 'layout': 'expanded', 'values': 'extreme', 'seed': 2647, 'expand_dim': 1}], 'args': [[-1, 0, 2, 1], {'complex': [1.5, -2.0]}]},
    'constant_pad_huge_int_value': {'op': 'torch.constant_pad_nd', 'inputs': [{'shape': [2], 'dtype': 'int16', 'layout': 'permuted', 'values': 'extreme', 'seed': 2731380}], 'args': [[0, 2], 18446744073709551616]},
    'rnn_tanh_cell_0d_input': {'op': 'torch.rnn_tanh_cell', 'inputs': [{'shape': [], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 0}, {'shape': [], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 0}, {'shape': [1], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 0}], 'args': []},
}


@pytest.mark.parametrize("name", sorted(_FUZZ_REGRESSIONS))
def test_fuzz_regression(name: str) -> None:
    _run_fuzz_case(_FUZZ_REGRESSIONS[name])


@pytest.mark.parametrize("name", ["instance_norm", "batch_norm"])
def test_aten_norms_accept_one_element_per_group(name: str) -> None:
    """ATen's torch.instance_norm / torch.batch_norm (unlike nn.functional's) normalize a group
    of one element (to 0; PyTorch leaves a rounding residue of about 1e-5)."""
    x = rn(3, 7) if name == "instance_norm" else rn(1, 4, 1)
    if name == "instance_norm":
        ours = torch.instance_norm(torch.tensor(x), None, None, None, None, True, 0.1, 1e-5, False)
        theirs = pt.instance_norm(pt.tensor(x), None, None, None, None, True, 0.1, 1e-5, False)
    else:
        ours = torch.batch_norm(torch.tensor(x), None, None, None, None, True, 0.1, 1e-5, False)
        theirs = pt.batch_norm(pt.tensor(x), None, None, None, None, True, 0.1, 1e-5, False)
    assert_close(ours, theirs, rtol=0, atol=1e-4)

"""The CUDA forwards of cat (and the copies under in-place ops and view gradients), max/min
over a dim, scatter and scatter_add, nll_loss / cross_entropy, conv2d (im2col + cuBLAS),
max/avg pooling and batch norm match the CPU, gradients included; device sampling (rand,
randn, uniform_, normal_, bernoulli, dropout) is reproducible under manual_seed and well
distributed. Skipped without a GPU: these have not run on hardware yet (see the README)."""


import numpy as np
import pytest
from cuda_checks import both as _both
from cuda_checks import gpu

import ferrotorch as torch
import ferrotorch.nn.functional as F


@gpu
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_any_dim_views_and_dtypes(dim: int) -> None:
    a = torch.randn(4, 3, 5, dtype=torch.float64)
    b = torch.randn(4, 3, 5, dtype=torch.float64)
    _both(lambda x, y: torch.cat([x, y.transpose(0, 2).transpose(0, 2), x[:, :, :]], dim), a, b)
    _both(lambda x: torch.stack([x, x * 2.0], dim), a)
    # Promotion: int64 joins float64 on the device.
    i = torch.arange(60).reshape(4, 3, 5)
    out = torch.cat([a.cuda(), i.cuda()], dim)
    assert out.device.type == "cuda" and out.dtype == torch.float64
    np.testing.assert_array_equal(out.cpu().numpy(), torch.cat([a, i], dim).numpy())
    with pytest.raises(RuntimeError, match="same device"):
        torch.cat([a.cuda(), b], dim)


@gpu
def test_in_place_ops_and_view_gradients_stay_on_the_device() -> None:
    x = torch.randn(5, 4, dtype=torch.float64)
    xd = x.cuda()
    xd.mul_(2.0).add_(1.0)
    xd[1:3] = 0.5
    ref = x * 2.0 + 1.0
    ref[1:3] = 0.5
    np.testing.assert_allclose(xd.cpu().numpy(), ref.numpy())
    _both(lambda t: t[1:4, ::2].sum(0) + t.narrow(1, 1, 2).sum(1)[:2], x)
    _both(lambda t: t.amax(1), x)


@gpu
def test_max_min_over_a_dim_and_argmax() -> None:
    x = torch.randn(5, 4, 3, dtype=torch.float64)
    _both(lambda t: t.max(1)[0], x)
    _both(lambda t: t.min(-1, keepdim=True)[0], x)
    for dim in (0, 2):
        np.testing.assert_array_equal(x.cuda().argmax(dim).cpu().numpy(), x.argmax(dim).numpy())
    np.testing.assert_array_equal(x.cuda().argmin().cpu().numpy(), x.argmin().numpy())


@gpu
@pytest.mark.parametrize("add", [False, True])
def test_scatter_and_scatter_add(add: bool) -> None:
    x = torch.randn(4, 6, dtype=torch.float64)
    src = torch.randn(3, 5, dtype=torch.float64)
    # Distinct positions per column for plain scatter (duplicates race, as in PyTorch).
    idx = torch.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 0, 1], [2, 3, 0, 1, 2]])
    op = (lambda t, s: t.scatter_add(0, idx.to(t.device), s)) if add else (lambda t, s: t.scatter(0, idx.to(t.device), s))
    _both(op, x, src)
    _both(lambda t: t.scatter(1, idx[:, :2].to(t.device), 7.0), x)
    # A scalar source over a 1-D index (the gradient of scatter uses one) fills every position.
    _both(lambda t: t.reshape(-1).scatter(0, torch.tensor([0, 5, 9, 23]).to(t.device), 7.0), x)
    with pytest.raises(RuntimeError):
        x.cuda().scatter_add(0, torch.tensor([[4]]).cuda(), src.cuda()).cpu()


@gpu
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_and_cross_entropy(reduction: str) -> None:
    logits = torch.randn(7, 4, dtype=torch.float64)
    target = torch.tensor([0, 3, 1, 1, 2, -100, 0])
    w = torch.rand(4, dtype=torch.float64) + 0.5
    _both(lambda z: F.nll_loss(z.log_softmax(1), target.to(z.device), reduction=reduction), logits)
    _both(lambda z, ww: F.nll_loss(z.log_softmax(1), target.to(z.device), weight=ww.detach(), reduction=reduction), logits, w)
    _both(lambda z: F.cross_entropy(z, target.to(z.device), reduction=reduction, label_smoothing=0.1), logits)
    img = torch.randn(2, 4, 3, 3, dtype=torch.float64)
    t2 = torch.randint(0, 4, (2, 3, 3))
    _both(lambda z: F.cross_entropy(z, t2.to(z.device), reduction=reduction), img)
    with pytest.raises(IndexError):
        F.nll_loss(logits.cuda(), torch.tensor([0, 4, 1, 1, 2, 0, 0]).cuda())


@gpu
@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 1, 1), (1, 2, 2, 1), (2, 1, 1, 2)])
def test_conv2d_forward_and_both_backward_passes(stride: int, padding: int, dilation: int, groups: int) -> None:
    x = torch.randn(2, 4, 9, 8, dtype=torch.float64)
    w = torch.randn(6, 4 // groups, 3, 3, dtype=torch.float64)
    b = torch.randn(6, dtype=torch.float64)
    _both(lambda t, ww, bb: F.conv2d(t, ww, bb, stride=stride, padding=padding, dilation=dilation, groups=groups), x, w, b)
    _both(lambda t, ww: F.conv_transpose2d(t, ww, stride=stride, padding=padding, groups=groups), x, torch.randn(4, 6 // groups, 3, 3, dtype=torch.float64))
    _both(lambda t: F.fold(F.unfold(t, 3, padding=1), (9, 8), 3, padding=1), x)


@gpu
def test_conv2d_float32_model_runs_on_the_device() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8 * 4 * 4, 5))
    x = torch.randn(4, 3, 8, 8)
    ref = model(x)
    model.cuda()
    out = model(x.cuda())
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    F.cross_entropy(out, torch.tensor([0, 1, 2, 3]).cuda()).backward()
    assert all(p.grad is not None and p.grad.device.type == "cuda" for p in model.parameters())


@gpu
@pytest.mark.parametrize("kernel,stride,padding,ceil_mode", [(2, 2, 0, False), (3, 2, 1, False), (3, 2, 1, True), (2, 1, 0, True)])
def test_max_and_avg_pool2d(kernel: int, stride: int, padding: int, ceil_mode: bool) -> None:
    x = torch.randn(2, 3, 7, 6, dtype=torch.float64)
    _both(lambda t: F.max_pool2d(t, kernel, stride, padding, ceil_mode=ceil_mode), x)
    _both(lambda t: F.max_pool2d(t, kernel, stride, 0, dilation=2, ceil_mode=ceil_mode), x)
    for include_pad in (True, False):
        _both(lambda t: F.avg_pool2d(t, kernel, stride, padding, ceil_mode=ceil_mode, count_include_pad=include_pad), x)
    _both(lambda t: F.avg_pool2d(t, kernel, stride, padding, ceil_mode=ceil_mode, divisor_override=5), x)
    values, idx = F.max_pool2d(x.cuda(), kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)
    np.testing.assert_array_equal(idx.cpu().numpy(), F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)[1].numpy())


@gpu
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(training: bool) -> None:
    x = torch.randn(4, 3, 5, 5, dtype=torch.float64)
    w, b = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    rm, rv = torch.randn(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 0.5
    rm_d, rv_d = rm.cuda(), rv.cuda()
    _both(lambda t, ww, bb: F.batch_norm(t, rm_d if t.device.type == "cuda" else rm, rv_d if t.device.type == "cuda" else rv, ww, bb, training=training), x, w, b)
    np.testing.assert_allclose(rm_d.cpu().numpy(), rm.numpy(), rtol=1e-9)
    np.testing.assert_allclose(rv_d.cpu().numpy(), rv.numpy(), rtol=1e-9)


def _draws() -> list:
    x = torch.empty(1001, device="cuda")
    y = torch.empty(33, dtype=torch.float64, device="cuda")
    return [
        torch.rand(257, device="cuda"),
        torch.randn(3, 5, dtype=torch.float64, device="cuda"),
        x.uniform_(-2.0, 3.0).clone(),
        y.normal_(1.0, 0.5).clone(),
        torch.full((500,), 0.3, device="cuda").bernoulli(),
        torch.empty(64, device="cuda").bernoulli_(0.7),
        F.dropout(torch.ones(300, device="cuda"), p=0.4),
    ]


@gpu
def test_device_sampling_is_reproducible_under_manual_seed() -> None:
    torch.manual_seed(123)
    first = [t.cpu().numpy() for t in _draws()]
    torch.manual_seed(123)
    second = [t.cpu().numpy() for t in _draws()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    # A later call continues the stream instead of repeating it.
    assert not np.array_equal(torch.rand(257, device="cuda").cpu().numpy(), first[0])
    g = torch.Generator().manual_seed(5)
    a = torch.rand(100, device="cuda", generator=g).cpu().numpy()
    g.manual_seed(5)
    np.testing.assert_array_equal(torch.rand(100, device="cuda", generator=g).cpu().numpy(), a)


@gpu
def test_device_samples_are_well_distributed() -> None:
    torch.manual_seed(0)
    u = torch.rand(200_000, device="cuda").cpu().numpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    n = torch.randn(200_000, dtype=torch.float64, device="cuda").cpu().numpy()
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1.0) < 0.01
    v = torch.empty(100_000, device="cuda").normal_(2.0, 3.0).cpu().numpy()
    assert abs(v.mean() - 2.0) < 0.05 and abs(v.std() - 3.0) < 0.05
    p = torch.rand(50_000, device="cuda")
    hits = p.bernoulli().cpu().numpy()
    assert set(np.unique(hits).tolist()) <= {0.0, 1.0} and abs(hits.mean() - p.mean().item()) < 0.02
    with pytest.raises(RuntimeError):
        torch.full((3,), 1.5, device="cuda").bernoulli()


@gpu
def test_dropout_mask_scale_and_gradient() -> None:
    x = torch.randn(4000, device="cuda").requires_grad_(True)
    y = F.dropout(x, p=0.3, training=True)
    kept = (y != 0).cpu().numpy()
    assert abs(kept.mean() - 0.7) < 0.03
    np.testing.assert_allclose(y.detach().cpu().numpy()[kept], (x.detach().cpu().numpy() / 0.7)[kept], rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.where(kept, 1 / 0.7, 0.0), rtol=1e-6)
    assert F.dropout(x, p=0.3, training=False) is x

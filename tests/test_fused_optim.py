"""The fused optimizer kernels against NumPy implementations of PyTorch's update rules."""

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch import _core


def T(a, dtype=torch.float64):
    return torch.tensor(np.asarray(a).tolist(), dtype=dtype)


def run_fused(rule, p0, grads, nstate, hyper_for_step, dtype=torch.float64):
    p = T(p0, dtype)
    states = [torch.zeros(p0.shape, dtype=dtype) for _ in range(nstate)]
    for t, g in enumerate(grads, start=1):
        _core._fused_step(rule, [p], [T(g, dtype)], [states], hyper_for_step(t))
    return np.array(p.tolist())


RNG = np.random.default_rng(0)
P0 = RNG.standard_normal(7)
GRADS = [RNG.standard_normal(7) for _ in range(5)]


@pytest.mark.parametrize("momentum,dampening,wd,nesterov,maximize", [(0, 0, 0, False, False), (0.9, 0, 0.01, False, False), (0.9, 0.1, 0, False, True), (0.8, 0, 0.1, True, False)])
def test_sgd(momentum, dampening, wd, nesterov, maximize):
    lr = 0.1
    p, buf = P0.copy(), None
    for g in GRADS:
        d = -g if maximize else g.copy()
        d = d + wd * p
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        p = p - lr * d
    got = run_fused("sgd", P0, GRADS, 1, lambda t: dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=wd, nesterov=nesterov, maximize=maximize, first=t == 1))
    np.testing.assert_allclose(got, p, rtol=1e-12)


@pytest.mark.parametrize("rule,wd,amsgrad,maximize", [("adam", 0, False, False), ("adam", 0.1, True, False), ("adamw", 0.01, False, True), ("adamw", 0.1, True, False)])
def test_adam(rule, wd, amsgrad, maximize):
    lr, b1, b2, eps = 0.01, 0.9, 0.99, 1e-8
    p, m, v, vmax = P0.copy(), 0 * P0, 0 * P0, 0 * P0
    for t, g in enumerate(GRADS, start=1):
        d = -g if maximize else g.copy()
        if rule == "adamw":
            p = p * (1 - lr * wd)
        else:
            d = d + wd * p
        m = b1 * m + (1 - b1) * d
        v = b2 * v + (1 - b2) * d * d
        vmax = np.maximum(vmax, v)
        den = np.sqrt(vmax if amsgrad else v) / np.sqrt(1 - b2**t) + eps
        p = p - lr / (1 - b1**t) * m / den
    got = run_fused(rule, P0, GRADS, 3, lambda t: dict(lr=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=wd, amsgrad=amsgrad, maximize=maximize, step=float(t)))
    np.testing.assert_allclose(got, p, rtol=1e-12)


@pytest.mark.parametrize("momentum,centered,wd", [(0, False, 0), (0.9, True, 0.01), (0.5, False, 0.1)])
def test_rmsprop(momentum, centered, wd):
    lr, alpha, eps = 0.01, 0.99, 1e-8
    p, sq, ga, buf = P0.copy(), 0 * P0, 0 * P0, 0 * P0
    for g in GRADS:
        d = g + wd * p
        sq = alpha * sq + (1 - alpha) * d * d
        if centered:
            ga = alpha * ga + (1 - alpha) * d
            avg = np.sqrt(sq - ga * ga) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum:
            buf = momentum * buf + d / avg
            p = p - lr * buf
        else:
            p = p - lr * d / avg
    got = run_fused("rmsprop", P0, GRADS, 3, lambda t: dict(lr=lr, alpha=alpha, eps=eps, weight_decay=wd, momentum=momentum, centered=centered, maximize=False))
    np.testing.assert_allclose(got, p, rtol=1e-12)


def test_adagrad_and_float32():
    lr, decay, eps, wd = 0.1, 0.01, 1e-10, 0.05
    p, s = P0.copy(), 0 * P0
    for t, g in enumerate(GRADS, start=1):
        d = g + wd * p
        clr = lr / (1 + (t - 1) * decay)
        s = s + d * d
        p = p - clr * d / (np.sqrt(s) + eps)
    hyper = lambda t: dict(lr=lr, lr_decay=decay, weight_decay=wd, eps=eps, maximize=False, step=float(t))  # noqa: E731
    np.testing.assert_allclose(run_fused("adagrad", P0, GRADS, 1, hyper), p, rtol=1e-12)
    np.testing.assert_allclose(run_fused("adagrad", P0, GRADS, 1, hyper, torch.float32), p, rtol=1e-5)


def test_fused_step_bumps_versions_and_rejects_mismatches():
    p = torch.zeros(3)
    v = p._version
    _core._fused_step("sgd", [p], [torch.ones(3)], [[torch.zeros(3)]], dict(lr=1.0, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False, first=True))
    assert p.tolist() == [-1.0, -1.0, -1.0] and p._version == v + 1
    with pytest.raises(RuntimeError, match="does not match parameter"):
        _core._fused_step("sgd", [p], [torch.ones(4)], [[]], dict(lr=1.0, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False, first=True))
    with pytest.raises(ValueError, match="missing hyper-parameter 'lr'"):
        _core._fused_step("sgd", [p], [torch.ones(3)], [[]], {})

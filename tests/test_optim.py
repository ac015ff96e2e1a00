"""Optimizers and schedulers against NumPy implementations of PyTorch's documented rules."""

import math

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch import nn, optim
from ferrotorch.optim import lr_scheduler as S

RNG = np.random.default_rng(0)
P0 = RNG.standard_normal(5)
GRADS = [RNG.standard_normal(5) for _ in range(4)]


def run(opt_cls, dtype=torch.float64, **kw):
    p = nn.Parameter(torch.tensor(P0.tolist(), dtype=dtype))
    opt = opt_cls([p], **kw)
    out = []
    for g in GRADS:
        p.grad = torch.tensor(g.tolist(), dtype=dtype)
        opt.step()
        out.append(np.array(p.tolist()))
    return out, opt, p


def ref_sgd(lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False, maximize=False):
    p, buf, out = P0.copy(), None, []
    for g in GRADS:
        d = (-g if maximize else g) + wd * p
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        p = p - lr * d
        out.append(p.copy())
    return out


def ref_adam(lr, b1, b2, eps, wd, amsgrad, decoupled):
    p, m, v, vm, out = P0.copy(), 0 * P0, 0 * P0, 0 * P0, []
    for t, g in enumerate(GRADS, 1):
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vm = np.maximum(vm, v)
        den = np.sqrt(vm if amsgrad else v) / math.sqrt(1 - b2**t) + eps
        p = p - lr / (1 - b1**t) * m / den
        out.append(p.copy())
    return out


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01), dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)])
def test_sgd(kw):
    got, _, _ = run(optim.SGD, **kw)
    ref = ref_sgd(kw["lr"], kw.get("momentum", 0), kw.get("dampening", 0), kw.get("weight_decay", 0), kw.get("nesterov", False), kw.get("maximize", False))
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("cls,wd,ams", [(optim.Adam, 0.0, False), (optim.Adam, 0.1, True), (optim.AdamW, 0.01, False), (optim.AdamW, 0.1, True)])
def test_adam_family(cls, wd, ams):
    got, _, _ = run(cls, lr=0.01, betas=(0.9, 0.99), weight_decay=wd, amsgrad=ams)
    ref = ref_adam(0.01, 0.9, 0.99, 1e-8, wd, ams, cls is optim.AdamW)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_adam_reference_path_for_noncontiguous_params_matches():
    base = torch.tensor(np.stack([P0, P0]).T.tolist(), dtype=torch.float64)
    p = nn.Parameter(base)
    view_opt = optim.Adam([p], lr=0.01)
    p.grad = torch.ones(5, 2, dtype=torch.float64).t().contiguous().t()  # non-contiguous grad
    view_opt.step()
    q, _, _ = run(optim.Adam, lr=0.01)
    assert abs(p[0, 0].item() - (P0[0] - 0.01)) < 1e-9


def test_rmsprop_and_adagrad():
    got, _, _ = run(optim.RMSprop, lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)
    p, sq, ga, buf = P0.copy(), 0 * P0, 0 * P0, 0 * P0
    for g, a in zip(GRADS, got):
        d = g + 0.1 * p
        sq = 0.99 * sq + 0.01 * d * d
        ga = 0.99 * ga + 0.01 * d
        buf = 0.9 * buf + d / (np.sqrt(sq - ga * ga) + 1e-8)
        p = p - 0.01 * buf
        np.testing.assert_allclose(a, p, rtol=1e-12)
    got, _, _ = run(optim.Adagrad, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)
    p, s = P0.copy(), 0 * P0 + 0.1
    for t, (g, a) in enumerate(zip(GRADS, got), 1):
        s = s + g * g
        p = p - 0.1 / (1 + (t - 1) * 0.01) * g / (np.sqrt(s) + 1e-10)
        np.testing.assert_allclose(a, p, rtol=1e-12)


def test_float32_params_use_the_fused_path():
    got, _, _ = run(optim.Adam, dtype=torch.float32, lr=0.01)
    ref = ref_adam(0.01, 0.9, 0.999, 1e-8, 0.0, False, False)
    np.testing.assert_allclose(got[-1], ref[-1], rtol=1e-5)


def test_param_groups_zero_grad_and_errors():
    a = nn.Parameter(torch.ones(2))
    b = nn.Parameter(torch.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    a.grad, b.grad = torch.ones(2), torch.ones(2)
    opt.step()
    assert np.allclose(a.tolist(), [0.9, 0.9]) and b.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None
    a.grad = torch.ones(2)
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    c = nn.Parameter(torch.ones(1))
    opt.add_param_group({"params": c, "lr": 0.5})
    assert opt.param_groups[-1]["momentum"] == 0 and opt.param_groups[-1]["lr"] == 0.5
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([a], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([a], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)


def test_state_dict_round_trip_continues_identically():
    got, opt, p = run(optim.Adam, lr=0.01, amsgrad=True)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    q = nn.Parameter(p.detach().clone())
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01
    g = torch.tensor([0.3, -0.1, 0.2, 0.5, -0.4], dtype=torch.float64)
    p.grad, q.grad = g.clone(), g.clone()
    opt.step()
    opt2.step()
    assert p.tolist() == q.tolist()


def test_closure():
    p = nn.Parameter(torch.tensor([2.0]))
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 4.0 and abs(p.item() - 1.6) < 1e-6


def sched_lrs(make, n=8, lr=1.0, opt_cls=optim.SGD):
    p = nn.Parameter(torch.zeros(1))
    opt = opt_cls([p], lr=lr)
    s = make(opt)
    out = [s.get_last_lr()[0]]
    for _ in range(n):
        opt.step()
        s.step()
        out.append(s.get_last_lr()[0])
    return out


def test_schedulers_match_formulas():
    close = lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)  # noqa: E731
    close(sched_lrs(lambda o: S.StepLR(o, 3, 0.5)), [0.5 ** (e // 3) for e in range(9)])
    close(sched_lrs(lambda o: S.MultiStepLR(o, [2, 5], 0.1)), [1, 1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 0.01])
    close(sched_lrs(lambda o: S.ExponentialLR(o, 0.9)), [0.9**e for e in range(9)])
    close(sched_lrs(lambda o: S.CosineAnnealingLR(o, 8, 0.1)), [0.1 + 0.9 * (1 + math.cos(math.pi * e / 8)) / 2 for e in range(9)])
    close(sched_lrs(lambda o: S.LinearLR(o, 0.5, 1.0, 4)), [0.5 + 0.5 * min(e, 4) / 4 for e in range(9)])
    close(sched_lrs(lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1))), [1 / (e + 1) for e in range(9)])
    warm = sched_lrs(lambda o: S.CosineAnnealingWarmRestarts(o, 3, 2, 0.0))
    t_cur = [0, 1, 2, 0, 1, 2, 3, 4, 5]
    t_i = [3, 3, 3, 6, 6, 6, 6, 6, 6]
    close(warm, [(1 + math.cos(math.pi * c / i)) / 2 for c, i in zip(t_cur, t_i)])
    seq = sched_lrs(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, 1.0, 2), S.ExponentialLR(o, 0.5)], milestones=[3]))
    close(seq, [0.1, 0.55, 1.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125])


def test_one_cycle_and_plateau():
    lrs = sched_lrs(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=10), n=9, opt_cls=optim.SGD)
    assert abs(lrs[0] - 1.0 / 25) < 1e-12 and abs(max(lrs) - 1.0) < 1e-12 and lrs[-1] < 1e-4
    p = nn.Parameter(torch.zeros(1))
    opt = optim.Adam([p], lr=1.0)
    S.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["betas"][0] == 0.95
    opt = optim.SGD([p], lr=1.0)
    s = S.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1)
    lrs = []
    for m in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        s.step(m)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25]


def test_scheduler_state_dict():
    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    s = S.StepLR(opt, 2)
    for _ in range(3):
        s.step()
    s2 = S.StepLR(optim.SGD([p], lr=1.0), 5)
    s2.load_state_dict(s.state_dict())
    assert s2.last_epoch == 3 and s2.step_size == 2


@pytest.mark.parametrize("name", ["Adam", "Adamax", "Adadelta", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad"])
def test_unpickled_state_without_newer_group_keys_gets_their_defaults(name):
    """A pickled optimizer from before a flag existed comes back with the flag's default."""
    import pickle

    opt = getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2))])
    state = opt.__getstate__() if hasattr(opt, "__getstate__") else dict(opt.__dict__)
    state = pickle.loads(pickle.dumps(state))
    for g in state["param_groups"]:
        g.pop("maximize", None)
        g.pop("foreach", None)
    fresh = object.__new__(type(opt))
    fresh.__setstate__(state)
    assert fresh.param_groups[0]["maximize"] is False and fresh.param_groups[0]["foreach"] is None

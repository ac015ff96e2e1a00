"""torch.amp.GradScaler against PyTorch's on CPU (device="cpu"): the same scale and growth
tracker sequence over a training loop, the same skipped steps on inf/NaN gradients, the same
parameters; unscale_/step/update errors, state_dict round trips, the disabled pass-through, the
deprecated aliases and the two kernels it runs."""

from __future__ import annotations

import pickle
import warnings
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch


def _model(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Linear(6, 2))


def _same_params(ours: Any, theirs: Any) -> None:
    for q, p in zip(ours.parameters(), theirs.parameters()):
        q.data = to_ft(p.detach())


# Each config: scaler kwargs, steps whose gradient holds inf ("inf") or NaN ("nan"), optimizer,
# whether to autocast the forward, whether to unscale_ and clip before step.
CONFIGS: List[Tuple[str, Dict[str, Any], Dict[int, str], str, bool, bool]] = [
    ("defaults_sgd", {}, {}, "sgd", False, False),
    ("grow_every_2", {"init_scale": 8.0, "growth_interval": 2}, {}, "sgd", False, False),
    ("inf_backoff", {"init_scale": 1024.0, "growth_interval": 3}, {2: "inf", 3: "inf", 7: "nan"}, "sgd", False, False),
    ("factors", {"init_scale": 100.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 2}, {1: "nan", 4: "inf"}, "adam", False, False),
    ("autocast_bf16", {"init_scale": 2.0**10, "growth_interval": 2}, {3: "inf"}, "sgd", True, False),
    ("unscale_and_clip", {"init_scale": 2.0**12, "growth_interval": 2}, {2: "inf"}, "adam", True, True),
    ("growth_to_float32_max", {"init_scale": 2.0**126, "growth_interval": 1, "growth_factor": 4.0}, {}, "sgd", False, False),
]


def _train(lib: Any, model: Any, kwargs: Dict[str, Any], bad: Dict[int, str], opt_name: str, use_autocast: bool, clip: bool, steps: int = 9) -> List[Any]:
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9) if opt_name == "sgd" else lib.optim.Adam(model.parameters(), lr=0.01)
    scaler = lib.amp.GradScaler("cpu", **kwargs)
    x = lib.from_numpy(np.random.default_rng(1).uniform(-1, 1, (8, 4)).astype(np.float32))
    y = lib.from_numpy(np.random.default_rng(2).uniform(-1, 1, (8, 2)).astype(np.float32))
    log: List[Any] = []
    for i in range(steps):
        opt.zero_grad()
        with lib.autocast("cpu", enabled=use_autocast):
            loss = lib.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        if i in bad:
            first = next(model.parameters())
            first.grad[0, 0] = float("inf") if bad[i] == "inf" else float("nan")
        if clip:
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        before = [p.detach().clone() for p in model.parameters()]
        scaler.step(opt)
        skipped = all(bool((p.detach() == b).all()) for p, b in zip(model.parameters(), before))
        scaler.update()
        log.append((scaler.get_scale(), scaler._get_growth_tracker(), skipped))
    log.append(scaler.state_dict())
    return log


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_training_loop_matches_pytorch(cfg: Any) -> None:
    _, kwargs, bad, opt_name, use_autocast, clip = cfg
    theirs, ours = _model(pt), _model(torch)
    _same_params(ours, theirs)
    their_log = _train(pt, theirs, kwargs, bad, opt_name, use_autocast, clip)
    our_log = _train(torch, ours, kwargs, bad, opt_name, use_autocast, clip)
    assert our_log == their_log
    tol = 2e-2 if use_autocast else 1e-4
    for q, p in zip(ours.parameters(), theirs.parameters()):
        assert_close(q, p, rtol=tol, atol=tol)


def test_state_dict_round_trip_continues_the_same_sequence() -> None:
    logs = []
    for lib in (pt, torch):
        model = _model(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        first = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=2)
        x = lib.ones(3, 4)
        for _ in range(3):
            opt.zero_grad()
            first.scale(model(x).sum()).backward()
            first.step(opt)
            first.update()
        state = first.state_dict()
        second = lib.amp.GradScaler("cpu")
        second.load_state_dict(state)
        log = [state, second.state_dict(), second.get_scale()]
        for _ in range(3):
            opt.zero_grad()
            second.scale(model(x).sum()).backward()
            second.step(opt)
            second.update()
            log.append((second.get_scale(), second._get_growth_tracker()))
        loaded_late = lib.amp.GradScaler("cpu")
        loaded_late.scale(lib.ones(1))
        loaded_late.load_state_dict(second.state_dict())
        log.append(loaded_late.state_dict())
        logs.append(log)
    assert logs[1] == logs[0]


def test_pickle_keeps_scale_and_tracker() -> None:
    s = torch.amp.GradScaler("cpu", init_scale=32.0, growth_interval=5)
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    s.scale(model(torch.ones(1, 4)).sum()).backward()
    s.step(opt)
    s.update()
    r = pickle.loads(pickle.dumps(s))
    assert r.state_dict() == s.state_dict() == {"scale": 32.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 5, "_growth_tracker": 1}


def _outcome(fn: Any) -> Any:
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as err:  # noqa: BLE001 - class and message are compared
            r = (type(err).__name__, str(err))
    return r, [(w.category.__name__, str(w.message)) for w in ws]


def _one_step_setup(lib: Any, **kw: Any) -> Tuple[Any, Any, Any]:
    model = _model(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **kw)
    return model, opt, scaler


def _backward(lib: Any, model: Any, scaler: Any) -> None:
    scaler.scale(model(lib.ones(2, 4)).sum()).backward()


def _double_unscale(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.unscale_(opt)
    s.unscale_(opt)


def _unscale_after_step(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.step(opt)
    s.unscale_(opt)


def _step_twice(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.step(opt)
    s.step(opt)


def _closure(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.step(opt, closure=lambda: None)


def _update_before_scale(lib: Any) -> Any:
    return lib.amp.GradScaler("cpu").update()


def _step_before_scale(lib: Any) -> Any:
    _, opt, s = _one_step_setup(lib)
    s.step(opt)


def _update_without_step(lib: Any) -> Any:
    s = lib.amp.GradScaler("cpu")
    s.scale(lib.ones(1))
    s.update()


def _no_grads(lib: Any) -> Any:
    _, opt, s = _one_step_setup(lib)
    s.scale(lib.ones(1))
    s.step(opt)


def _fp16_grads(lib: Any) -> Any:
    w = lib.ones(2, dtype=lib.float16, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    s = lib.amp.GradScaler("cpu")
    s.scale((w * 2).sum()).backward()
    s.unscale_(opt)


def _scale_non_tensor(lib: Any) -> Any:
    return lib.amp.GradScaler("cpu").scale([lib.ones(1), 3])


def _scale_nested(lib: Any) -> Any:
    out = lib.amp.GradScaler("cpu", init_scale=4.0).scale([lib.ones(1), (lib.full((2,), 2.0), [lib.ones(1)])])
    return [out[0].tolist(), type(out[1]).__name__, out[1][0].tolist(), out[1][1][0].tolist()]


def _scale_generator(lib: Any) -> Any:
    out = lib.amp.GradScaler("cpu", init_scale=4.0).scale(t for t in [lib.ones(1), lib.full((1,), 3.0)])
    return [t.tolist() for t in out]


def _bad_factors(lib: Any) -> Any:
    return lib.amp.GradScaler("cpu", backoff_factor=1.0)


def _new_scale(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.step(opt)
    s.update(new_scale=8.0)
    first = s.get_scale()
    _backward(lib, model, s)
    s.step(opt)
    s.update(lib.tensor(3.0))
    return first, s.get_scale()


def _new_scale_bad(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib)
    _backward(lib, model, s)
    s.update(lib.ones(2))


def _load_empty(lib: Any) -> Any:
    lib.amp.GradScaler("cpu").load_state_dict({})


def _getters_setters(lib: Any) -> Any:
    s = lib.amp.GradScaler("cpu")
    s.set_growth_factor(3.0)
    s.set_backoff_factor(0.125)
    s.set_growth_interval(7)
    return s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(), s.get_scale(), s.is_enabled()


def _cuda_default(lib: Any) -> Any:
    s = lib.amp.GradScaler()
    return s.is_enabled(), s.get_scale(), s.state_dict(), s.scale(lib.full((1,), 2.0)).tolist()


def _deprecated_aliases(lib: Any) -> Any:
    return lib.cpu.amp.GradScaler(init_scale=4.0).get_scale(), lib.cuda.amp.GradScaler().is_enabled()


def _disabled_passthrough(lib: Any) -> Any:
    model, opt, s = _one_step_setup(lib, enabled=False)
    loss = model(lib.ones(2, 4)).sum()
    same = s.scale(loss) is loss
    loss.backward()
    before = next(model.parameters()).detach().clone()
    s.unscale_(opt)
    s.step(opt)
    s.update()
    s.load_state_dict({"scale": 3.0})
    moved = not bool((next(model.parameters()).detach() == before).all())
    return same, moved, s.get_scale(), s.state_dict(), s._get_growth_tracker()


ERRORS = [
    _double_unscale, _unscale_after_step, _step_twice, _closure, _update_before_scale, _step_before_scale,
    _update_without_step, _no_grads, _fp16_grads, _scale_non_tensor, _scale_nested, _scale_generator, _bad_factors,
    _new_scale, _new_scale_bad, _load_empty, _getters_setters, _cuda_default, _deprecated_aliases, _disabled_passthrough,
]


@pytest.mark.parametrize("case", ERRORS, ids=[f.__name__.strip("_") for f in ERRORS])
def test_api_and_errors_match_pytorch(case: Any) -> None:
    ours, our_warnings = _outcome(lambda: case(torch))
    theirs, their_warnings = _outcome(lambda: case(pt))
    assert ours == theirs
    assert our_warnings == their_warnings


# ---- the kernels ----

KERNEL_CASES = [
    ("finite_f32", [[1.0, 2.0], [4.0]], "float32", 0.25),
    ("inf_in_second", [[1.0, 2.0], [float("inf"), 1.0]], "float32", 0.5),
    ("nan", [[float("nan")]], "float32", 2.0),
    ("unit_inv", [[3.0, -1.0]], "float32", 1.0),
    ("float64_grads", [[1.0, 3.0]], "float64", 0.125),
    ("bfloat16_grads", [[1.0, 3.0], [-2.0]], "bfloat16", 0.5),
    ("empty", [[]], "float32", 0.5),
]


@pytest.mark.parametrize("case", KERNEL_CASES, ids=[c[0] for c in KERNEL_CASES])
def test_non_finite_check_and_unscale_matches_pytorch(case: Any) -> None:
    _, values, dtype, inv = case
    results = []
    for lib in (pt, torch):
        grads = [lib.tensor(v, dtype=getattr(lib, dtype)) for v in values]
        found = lib.zeros(())
        lib._amp_foreach_non_finite_check_and_unscale_(grads, found, lib.full((), inv))
        results.append((found.item(), [g.float().tolist() for g in grads]))
    assert str(results[1]) == str(results[0])


UPDATE_CASES = [
    ("count", 8.0, 0, 0.0, 3),
    ("grow", 8.0, 2, 0.0, 3),
    ("backoff", 8.0, 2, 1.0, 3),
    ("backoff_sum_of_infs", 6.0, 1, 2.0, 3),
    ("no_overflow", 3.0e38, 0, 0.0, 1),
]


@pytest.mark.parametrize("case", UPDATE_CASES, ids=[c[0] for c in UPDATE_CASES])
def test_update_scale_matches_pytorch(case: Any) -> None:
    _, scale, tracker, found, interval = case
    results = []
    for lib in (pt, torch):
        s, t = lib.full((), scale), lib.full((), tracker, dtype=lib.int32)
        r = lib._amp_update_scale_(s, t, lib.full((), found), 2.0, 0.5, interval)
        results.append((r is s, s.item(), t.item()))
    assert results[1] == results[0]


@pytest.mark.parametrize(
    "args",
    [
        ("scale_dtype", lambda L: (L.full((), 1.0, dtype=L.float64), L.zeros((), dtype=L.int32), L.zeros(()))),
        ("tracker_dtype", lambda L: (L.full((), 1.0), L.zeros(()), L.zeros(()))),
        ("scale_numel", lambda L: (L.ones(2), L.zeros((), dtype=L.int32), L.zeros(()))),
    ],
    ids=lambda a: a[0],
)
def test_update_scale_rejects_bad_state_like_pytorch(args: Any) -> None:
    _, make = args
    for lib in (pt, torch):
        s, t, f = make(lib)
        with pytest.raises(RuntimeError, match="must be a"):
            lib._amp_update_scale_(s, t, f, 2.0, 0.5, 2)

"""Every learning-rate scheduler run side by side with PyTorch's.

Each case builds the same optimizer and scheduler(s) in both libraries, then takes 32 steps
(``optimizer.step()`` then ``scheduler.step()``; ReduceLROnPlateau is fed one metric sequence).
After every step the groups' rates and cycled momenta, ``get_last_lr()`` and ``state_dict()``
must agree; a state saved half-way and loaded into fresh objects must continue as PyTorch does.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import pickle
import warnings
from typing import Any, Callable, List, Tuple

import pytest

import ferrotorch as torch
from tests.torch_oracle import needs_torch, pt

STEPS = 32
# Group options a scheduler reads or writes; everything else belongs to the optimizer.
SCHEDULED_KEYS = ("lr", "initial_lr", "momentum", "betas", "max_lr", "min_lr", "max_momentum", "base_momentum", "swa_lr")

# Falls, then flattens with small wobbles, so that patience, threshold and cooldown all matter.
METRICS = [1.0 / (1 + i) if i < 8 else 0.12 + 0.004 * ((i * 7) % 5) - 0.0005 * i for i in range(STEPS)]


class WarmupFactor:
    """A callable object: its attributes travel in LambdaLR's state_dict, unlike a lambda's."""

    def __init__(self, warmup: int) -> None:
        self.warmup = warmup

    def __call__(self, epoch: int) -> float:
        return min(1.0, (epoch + 1) / self.warmup)


class HalvingScale:
    """A callable scale_fn object for CyclicLR."""

    def __init__(self, base: float) -> None:
        self.base = base

    def __call__(self, x: float) -> float:
        return self.base ** (x - 1)


def halve_every_third(base: type) -> type:
    """A user-defined scheduler built on the library's base class."""

    class HalveEveryThird(base):  # type: ignore[misc, valid-type]
        def get_lr(self) -> List[float]:
            factor = 0.5 if self.last_epoch > 0 and self.last_epoch % 3 == 0 else 1.0
            return [g["lr"] * factor for g in self.optimizer.param_groups]

    return HalveEveryThird


def swa_of(S: Any) -> Any:
    """The library's ``optim.swa_utils`` next to its ``optim.lr_scheduler``."""
    return importlib.import_module(S.__name__.rsplit(".", 1)[0] + ".swa_utils")


def make_optimizer(lib: Any, kind: str) -> Any:
    """Two groups (the second with its own lr) for SGD with momentum or Adam; one group for 'sgd1'."""
    a = lib.zeros(3, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    if kind == "sgd1":
        return lib.optim.SGD([a], lr=0.5, momentum=0.9)
    # "-tensor" kinds hold each rate as a 0-d tensor, which schedulers must fill in place.
    rate = lib.tensor if kind.endswith("-tensor") else float
    groups = [{"params": [a]}, {"params": [b], "lr": rate(0.2)}]
    if kind.startswith("adam"):
        return lib.optim.Adam(groups, lr=rate(0.01), betas=(0.9, 0.99))
    return lib.optim.SGD(groups, lr=rate(0.1), momentum=0.9)


Builder = Callable[[Any, Any], List[Any]]

# (id, optimizer kind, builder(S, opt) -> schedulers stepped in order each step)
CASES: List[Tuple[str, str, Builder]] = [
    ("lambda", "sgd", lambda S, o: [S.LambdaLR(o, lambda e: 0.95**e)]),
    ("lambda-per-group", "sgd", lambda S, o: [S.LambdaLR(o, [lambda e: 0.9**e, lambda e: 1 / (1 + e)])]),
    ("lambda-object", "sgd", lambda S, o: [S.LambdaLR(o, [WarmupFactor(6), lambda e: 1.0])]),
    ("multiplicative", "sgd", lambda S, o: [S.MultiplicativeLR(o, lambda e: 0.97)]),
    ("multiplicative-per-group", "adam", lambda S, o: [S.MultiplicativeLR(o, [WarmupFactor(4), lambda e: 0.9 if e % 2 else 1.0])]),
    ("step", "sgd", lambda S, o: [S.StepLR(o, step_size=5)]),
    ("step-gamma", "adam", lambda S, o: [S.StepLR(o, step_size=3, gamma=0.5)]),
    ("multistep", "sgd", lambda S, o: [S.MultiStepLR(o, milestones=[5, 10, 10, 20])]),
    ("multistep-unsorted", "sgd", lambda S, o: [S.MultiStepLR(o, milestones=[25, 7], gamma=0.5)]),
    ("constant", "sgd", lambda S, o: [S.ConstantLR(o)]),
    ("constant-args", "sgd", lambda S, o: [S.ConstantLR(o, factor=0.5, total_iters=8)]),
    ("linear", "sgd", lambda S, o: [S.LinearLR(o)]),
    ("linear-args", "adam", lambda S, o: [S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=12)]),
    ("linear-decay", "sgd", lambda S, o: [S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=20)]),
    ("exponential", "sgd", lambda S, o: [S.ExponentialLR(o, gamma=0.9)]),
    ("polynomial", "sgd", lambda S, o: [S.PolynomialLR(o)]),
    ("polynomial-args", "sgd", lambda S, o: [S.PolynomialLR(o, total_iters=20, power=2.0)]),
    ("cosine", "sgd", lambda S, o: [S.CosineAnnealingLR(o, T_max=10)]),
    ("cosine-eta-min", "adam", lambda S, o: [S.CosineAnnealingLR(o, T_max=7, eta_min=0.001)]),
    ("warm-restarts", "sgd", lambda S, o: [S.CosineAnnealingWarmRestarts(o, T_0=5)]),
    ("warm-restarts-mult", "sgd", lambda S, o: [S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)]),
    ("two-on-one-optimizer", "sgd", lambda S, o: [S.StepLR(o, step_size=4, gamma=0.5), S.ExponentialLR(o, gamma=0.95)]),
    ("linear-then-cosine-on-one-optimizer", "sgd", lambda S, o: [S.LinearLR(o, total_iters=6), S.CosineAnnealingLR(o, T_max=12)]),
    ("chained", "sgd", lambda S, o: [S.ChainedScheduler([S.StepLR(o, 3, 0.5), S.ExponentialLR(o, 0.9)])]),
    ("chained-with-optimizer", "adam", lambda S, o: [S.ChainedScheduler([S.ConstantLR(o, 0.1, 4), S.CosineAnnealingLR(o, 10)], optimizer=o)]),
    ("sequential", "sgd", lambda S, o: [S.SequentialLR(o, [S.LinearLR(o, 0.1, 1.0, 5), S.ExponentialLR(o, 0.9)], milestones=[5])]),
    (
        "sequential-three",
        "sgd",
        lambda S, o: [S.SequentialLR(o, [S.ConstantLR(o, 0.5, 3), S.CosineAnnealingLR(o, 8), S.StepLR(o, 3)], milestones=[4, 15])],
    ),
    ("sequential-single", "adam", lambda S, o: [S.SequentialLR(o, [S.PolynomialLR(o, 10, 0.5)], milestones=[])]),
    ("custom-subclass", "sgd", lambda S, o: [halve_every_third(S.LRScheduler)(o)]),
    ("custom-old-base", "sgd", lambda S, o: [halve_every_third(S._LRScheduler)(o, last_epoch=-1)]),
    ("plateau", "sgd", lambda S, o: [S.ReduceLROnPlateau(o)]),
    ("plateau-rel-short", "sgd", lambda S, o: [S.ReduceLROnPlateau(o, patience=1, cooldown=1, min_lr=0.02, factor=0.5)]),
    (
        "plateau-max-abs",
        "adam",
        lambda S, o: [S.ReduceLROnPlateau(o, mode="max", factor=0.5, patience=2, threshold=0.01, threshold_mode="abs", cooldown=2, min_lr=[0.004, 0.001], eps=1e-6)],
    ),
    ("plateau-min-abs-eps", "sgd", lambda S, o: [S.ReduceLROnPlateau(o, threshold_mode="abs", threshold=0.001, patience=0, eps=0.01)]),
    ("plateau-max-rel", "sgd", lambda S, o: [S.ReduceLROnPlateau(o, mode="max", patience=3, factor=0.3)]),
    ("cyclic", "sgd", lambda S, o: [S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4)]),
    ("cyclic-triangular2", "sgd", lambda S, o: [S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5, mode="triangular2")]),
    ("cyclic-exp-range", "sgd", lambda S, o: [S.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], step_size_up=5, mode="exp_range", gamma=0.9)]),
    ("cyclic-custom-scale", "sgd", lambda S, o: [S.CyclicLR(o, 0.001, 0.01, step_size_up=2, scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations")]),
    ("cyclic-scale-object", "sgd", lambda S, o: [S.CyclicLR(o, 0.001, 0.01, step_size_up=3, scale_fn=HalvingScale(0.7))]),
    ("cyclic-adam-betas", "adam", lambda S, o: [S.CyclicLR(o, 0.001, 0.01, step_size_up=4, base_momentum=0.85, max_momentum=0.95)]),
    ("cyclic-no-momentum", "adam", lambda S, o: [S.CyclicLR(o, 0.001, 0.01, step_size_up=6, cycle_momentum=False)]),
    ("cyclic-momentum-lists", "sgd", lambda S, o: [S.CyclicLR(o, 0.01, 0.1, step_size_up=4, base_momentum=[0.7, 0.8], max_momentum=[0.9, 0.95])]),
    ("swa", "sgd", lambda S, o: [swa_of(S).SWALR(o, swa_lr=0.05)]),
    ("swa-linear-per-group", "adam", lambda S, o: [swa_of(S).SWALR(o, [0.001, 0.05], anneal_epochs=5, anneal_strategy="linear")]),
    ("swa-no-annealing", "sgd", lambda S, o: [swa_of(S).SWALR(o, 0.02, anneal_epochs=0)]),
    ("cosine-then-swa", "sgd", lambda S, o: [S.SequentialLR(o, [S.CosineAnnealingLR(o, 20), swa_of(S).SWALR(o, 0.01, 4)], milestones=[12])]),
    ("tensor-lr-step", "sgd-tensor", lambda S, o: [S.StepLR(o, 4, 0.5)]),
    ("tensor-lr-chained", "sgd-tensor", lambda S, o: [S.ChainedScheduler([S.LinearLR(o, 0.5, total_iters=4), S.ExponentialLR(o, 0.95)])]),
    ("tensor-lr-sequential", "adam-tensor", lambda S, o: [S.SequentialLR(o, [S.ConstantLR(o, 0.5, 3), S.CosineAnnealingLR(o, 10)], [5])]),
    ("tensor-lr-lambda", "adam-tensor", lambda S, o: [S.LambdaLR(o, lambda e: 0.9**e)]),
    ("tensor-lr-plateau", "sgd-tensor", lambda S, o: [S.ReduceLROnPlateau(o, patience=1)]),
    ("tensor-lr-cyclic", "adam-tensor", lambda S, o: [S.CyclicLR(o, 0.001, 0.01, step_size_up=3)]),
    ("tensor-lr-one-cycle", "sgd-tensor", lambda S, o: [S.OneCycleLR(o, 0.1, total_steps=STEPS)]),
    ("tensor-lr-warm-restarts", "sgd-tensor", lambda S, o: [S.CosineAnnealingWarmRestarts(o, 4, 2)]),
    ("one-cycle", "sgd", lambda S, o: [S.OneCycleLR(o, max_lr=0.1, total_steps=40)]),
    ("one-cycle-linear", "sgd", lambda S, o: [S.OneCycleLR(o, max_lr=[0.1, 0.5], total_steps=STEPS, anneal_strategy="linear", pct_start=0.25)]),
    ("one-cycle-three-phase", "sgd", lambda S, o: [S.OneCycleLR(o, max_lr=0.2, epochs=4, steps_per_epoch=9, three_phase=True)]),
    ("one-cycle-adam", "adam", lambda S, o: [S.OneCycleLR(o, max_lr=0.01, total_steps=STEPS, base_momentum=0.8, max_momentum=0.9, div_factor=10.0, final_div_factor=100.0)]),
    ("one-cycle-no-momentum", "adam", lambda S, o: [S.OneCycleLR(o, max_lr=0.01, total_steps=50, cycle_momentum=False, three_phase=True, anneal_strategy="linear")]),
]


def normalized(value: Any) -> Any:
    """A plain structure to compare: dicts (Counters too) as dicts, tuples as lists, floats
    rounded to 12 significant digits (the formulas are the same, so only the last bit may
    differ), tensors as their value and dtype."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalized(v) for v in value]
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.12g}")
    if hasattr(value, "dtype") and hasattr(value, "item"):
        # A 0-d tensor rate: its value to float32 precision and its dtype name.
        return ["tensor", float(f"{value.item():.6g}"), str(value.dtype).split(".")[-1]]
    return value


def group_view(opt: Any) -> List[Any]:
    return [normalized({k: g[k] for k in SCHEDULED_KEYS if k in g}) for g in opt.param_groups]


def snapshot(opt: Any, scheds: List[Any]) -> Any:
    """Everything the table compares after one step."""
    return {
        "groups": group_view(opt),
        "last_lr": [normalized(s.get_last_lr()) for s in scheds],
        "state": [normalized(s.state_dict()) for s in scheds],
    }


def step_all(opt: Any, scheds: List[Any], i: int) -> None:
    opt.step()
    for s in scheds:
        if type(s).__name__ == "ReduceLROnPlateau":
            s.step(METRICS[i] if s.mode == "min" else -METRICS[i])
        else:
            s.step()


def run_case(lib: Any, kind: str, build: Builder, resume_at: int = -1) -> List[Any]:
    """Snapshots after construction and each step; at ``resume_at`` the run moves to fresh
    objects restored from the state dicts."""
    opt = make_optimizer(lib, kind)
    scheds = build(lib.optim.lr_scheduler, opt)
    out = [snapshot(opt, scheds)]
    for i in range(STEPS):
        if i == resume_at:
            saved_opt = copy.deepcopy(opt.state_dict())
            saved = [copy.deepcopy(s.state_dict()) for s in scheds]
            opt = make_optimizer(lib, kind)
            scheds = build(lib.optim.lr_scheduler, opt)
            opt.load_state_dict(saved_opt)
            for s, sd in zip(scheds, saved):
                s.load_state_dict(sd)
        step_all(opt, scheds, i)
        out.append(snapshot(opt, scheds))
    return out


def first_difference(ours: List[Any], theirs: List[Any]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        for key in a:
            if a[key] != b[key]:
                return f"step {i} {key}:\n ours  {a[key]}\n torch {b[key]}"
    return ""


@needs_torch
@pytest.mark.parametrize("name,kind,build", CASES, ids=[c[0] for c in CASES])
def test_schedule_matches_pytorch(name: str, kind: str, build: Builder) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = run_case(pt, kind, build)
        ours = run_case(torch, kind, build)
    assert first_difference(ours, theirs) == ""


@needs_torch
@pytest.mark.parametrize("name,kind,build", CASES, ids=[c[0] for c in CASES])
def test_resumed_from_state_dict_continues_as_pytorch(name: str, kind: str, build: Builder) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = run_case(pt, kind, build)
        ours = run_case(torch, kind, build, resume_at=STEPS // 2)
    # Fresh objects restored half-way continue with the same rates and the same state.
    assert first_difference(ours, theirs) == ""


def _pickles(state: Any) -> bool:
    try:
        return normalized(pickle.loads(pickle.dumps(state))) == normalized(state)
    except Exception:
        return False


@needs_torch
@pytest.mark.parametrize("name,kind,build", CASES, ids=[c[0] for c in CASES])
def test_state_dict_pickles_where_pytorchs_does(name: str, kind: str, build: Builder) -> None:
    """Checkpoints are pickled: a state that survives pickling in PyTorch must here too."""
    results = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, kind)
        scheds = build(lib.optim.lr_scheduler, opt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(5):
                step_all(opt, scheds, i)
        results.append([_pickles(s.state_dict()) for s in scheds])
    assert results[0] == results[1]


@needs_torch
@pytest.mark.parametrize("name,kind,build", [c for c in CASES if "tensor" not in c[1]], ids=[c[0] for c in CASES if "tensor" not in c[1]])
def test_loads_pytorch_scheduler_state(name: str, kind: str, build: Builder) -> None:
    """A checkpoint written by PyTorch (the scheduler state and the groups' scheduled options)
    restores a ferrotorch run that continues exactly as PyTorch's."""
    half = STEPS // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pt_opt = make_optimizer(pt, kind)
        pt_scheds = build(pt.optim.lr_scheduler, pt_opt)
        for i in range(half):
            step_all(pt_opt, pt_scheds, i)
        opt = make_optimizer(torch, kind)
        scheds = build(torch.optim.lr_scheduler, opt)
        for ours, theirs in zip(opt.param_groups, pt_opt.param_groups):
            ours.update({k: copy.deepcopy(theirs[k]) for k in SCHEDULED_KEYS if k in theirs})
        for s, t in zip(scheds, pt_scheds):
            s.load_state_dict(copy.deepcopy(t.state_dict()))
        for i in range(half, STEPS):
            step_all(pt_opt, pt_scheds, i)
            step_all(opt, scheds, i)
            assert snapshot(opt, scheds) == snapshot(pt_opt, pt_scheds), f"step {i}"


# --- step(epoch): the deprecated closed forms, and CosineAnnealingWarmRestarts' fractional epochs

EPOCH_CASES: List[Tuple[str, Builder, List[Any]]] = [
    ("step", lambda S, o: S.StepLR(o, 3, 0.5), [1, 3, 2, 7, 7, 12, 0]),
    ("multistep", lambda S, o: S.MultiStepLR(o, [2, 5, 5, 9]), [1, 2, 6, 5, 10, 3]),
    ("constant", lambda S, o: S.ConstantLR(o, 0.25, 4), [1, 4, 2, 9]),
    ("linear", lambda S, o: S.LinearLR(o, 0.3, 0.8, 6), [2, 5, 9, 1]),
    ("exponential", lambda S, o: S.ExponentialLR(o, 0.8), [3, 1, 10]),
    ("polynomial", lambda S, o: S.PolynomialLR(o, 8, 1.5), [2, 7, 12, 4]),
    ("cosine", lambda S, o: S.CosineAnnealingLR(o, 6, 0.01), [1, 6, 9, 13, 2]),
    ("lambda-no-closed-form", lambda S, o: S.LambdaLR(o, lambda e: 1 / (1 + e)), [4, 2, 8]),
    ("cyclic-no-closed-form", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3), [5, 2, 11]),
    ("warm-restarts", lambda S, o: S.CosineAnnealingWarmRestarts(o, 4), [0.5, 1.25, 3.75, 4.0, 9.5, 2]),
    ("warm-restarts-mult", lambda S, o: S.CosineAnnealingWarmRestarts(o, 2, 3, 0.005), [0.5, 1.5, 2.25, 7.9, 8.0, 30.5, None, None, 1]),
]


@needs_torch
@pytest.mark.parametrize("name,build,epochs", EPOCH_CASES, ids=[c[0] for c in EPOCH_CASES])
def test_step_with_epoch_matches_pytorch(name: str, build: Builder, epochs: List[Any]) -> None:
    runs = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, "sgd")
        sched = build(lib.optim.lr_scheduler, opt)
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e in epochs:
                opt.step()
                sched.step(e)
                seen.append((group_view(opt), normalized(sched.get_last_lr()), normalized(sched.state_dict())))
        runs.append(seen)
    assert runs[0] == runs[1]


# --- resuming with last_epoch >= 0 (groups already carry initial_lr)

RESUME_CASES: List[Tuple[str, Builder]] = [
    ("step", lambda S, o: S.StepLR(o, 3, last_epoch=4)),
    ("multistep", lambda S, o: S.MultiStepLR(o, [3, 8], last_epoch=5)),
    ("exponential", lambda S, o: S.ExponentialLR(o, 0.9, last_epoch=3)),
    ("linear", lambda S, o: S.LinearLR(o, 0.5, total_iters=6, last_epoch=2)),
    ("constant", lambda S, o: S.ConstantLR(o, 0.5, total_iters=6, last_epoch=2)),
    ("polynomial", lambda S, o: S.PolynomialLR(o, 12, last_epoch=4)),
    ("cosine", lambda S, o: S.CosineAnnealingLR(o, 10, last_epoch=5)),
    ("warm-restarts", lambda S, o: S.CosineAnnealingWarmRestarts(o, 4, 2, last_epoch=6)),
    ("lambda", lambda S, o: S.LambdaLR(o, lambda e: 0.9**e, last_epoch=7)),
    ("cyclic", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 4, last_epoch=5)),
]


@needs_torch
@pytest.mark.parametrize("name,build", RESUME_CASES, ids=[c[0] for c in RESUME_CASES])
def test_resume_with_last_epoch_matches_pytorch(name: str, build: Builder) -> None:
    runs = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, "sgd")
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"] * 2
        sched = build(lib.optim.lr_scheduler, opt)
        seen = [snapshot(opt, [sched])]
        for i in range(12):
            step_all(opt, [sched], i)
            seen.append(snapshot(opt, [sched]))
        runs.append(seen)
    assert first_difference(runs[0], runs[1]) == ""


# --- errors: same exception class (and message, unless it shows an object's repr)


def _added_group_then_plateau(S: Any, o: Any, lib: Any) -> None:
    s = S.ReduceLROnPlateau(o, patience=0, min_lr=[0.0, 0.0])
    o.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
    s.step(1.0)
    s.step(2.0)


def _added_group_then_step(sched: Any, o: Any, lib: Any) -> None:
    """A group added after construction has no base rate (or lambda): the next step raises."""
    o.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.01})
    o.step()
    sched.step()


def _step_past(sched: Any, n: int) -> None:
    for _ in range(n):
        sched.step()


ErrorCase = Callable[[Any, Any, Any], Any]
ERROR_CASES: List[Tuple[str, str, ErrorCase, bool]] = [
    ("not-an-optimizer", "sgd", lambda S, o, lib: S.StepLR(object(), 3), True),
    ("resume-without-initial-lr", "sgd", lambda S, o, lib: S.StepLR(o, 3, last_epoch=4), True),
    ("verbose-removed", "sgd", lambda S, o, lib: S.StepLR(o, 3, verbose=True), True),
    ("base-get-lr", "sgd", lambda S, o, lib: S.LRScheduler(o), True),
    ("lambda-count", "sgd", lambda S, o, lib: S.LambdaLR(o, [lambda e: 1.0]), True),
    ("multiplicative-not-callable", "sgd", lambda S, o, lib: S.MultiplicativeLR(o, [1.0, 2.0]), True),
    ("constant-factor", "sgd", lambda S, o, lib: S.ConstantLR(o, factor=1.5), True),
    ("linear-start", "sgd", lambda S, o, lib: S.LinearLR(o, start_factor=0.0), True),
    ("linear-end", "sgd", lambda S, o, lib: S.LinearLR(o, end_factor=1.5), True),
    ("warm-restarts-T0", "sgd", lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, 0), True),
    ("warm-restarts-T0-float", "sgd", lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, 2.5), True),
    ("warm-restarts-Tmult", "sgd", lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, 3, T_mult=0), True),
    ("warm-restarts-eta-min", "sgd", lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, 3, eta_min="0"), True),
    ("warm-restarts-negative-epoch", "sgd", lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, 3).step(-1), True),
    ("plateau-factor", "sgd", lambda S, o, lib: S.ReduceLROnPlateau(o, factor=1.0), True),
    ("plateau-mode", "sgd", lambda S, o, lib: S.ReduceLROnPlateau(o, mode="avg"), True),
    ("plateau-threshold-mode", "sgd", lambda S, o, lib: S.ReduceLROnPlateau(o, threshold_mode="pct"), True),
    ("plateau-min-lr-count", "sgd", lambda S, o, lib: S.ReduceLROnPlateau(o, min_lr=[0.1]), True),
    ("plateau-not-an-optimizer", "sgd", lambda S, o, lib: S.ReduceLROnPlateau([1]), True),
    ("plateau-new-group", "sgd", lambda S, o, lib: _added_group_then_plateau(S, o, lib), True),
    ("warm-restarts-new-group", "sgd", lambda S, o, lib: _added_group_then_step(S.CosineAnnealingWarmRestarts(o, T_0=2), o, lib), True),
    ("multiplicative-new-group", "sgd", lambda S, o, lib: _added_group_then_step(S.MultiplicativeLR(o, lambda e: 0.9), o, lib), True),
    ("cyclic-mode", "sgd", lambda S, o, lib: S.CyclicLR(o, 0.01, 0.1, mode="sine"), True),
    ("cyclic-base-lr-count", "sgd", lambda S, o, lib: S.CyclicLR(o, [0.01], 0.1), True),
    ("cyclic-max-momentum-count", "sgd", lambda S, o, lib: S.CyclicLR(o, 0.01, 0.1, max_momentum=[0.9, 0.9, 0.9]), True),
    ("cyclic-no-momentum-option", "sgd", lambda S, o, lib: S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.01, 0.1), True),
    ("one-cycle-no-length", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1), True),
    ("one-cycle-total-steps", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, total_steps=0), True),
    ("one-cycle-total-steps-float", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, total_steps=10.0), True),
    ("one-cycle-epochs", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3), True),
    ("one-cycle-steps-per-epoch", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=-3), True),
    ("one-cycle-pct-start-int", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, 10, pct_start=1), True),
    ("one-cycle-pct-start-range", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, 10, pct_start=1.5), True),
    ("one-cycle-anneal", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, 10, anneal_strategy="exp"), True),
    ("one-cycle-max-lr-count", "sgd", lambda S, o, lib: S.OneCycleLR(o, [0.1, 0.2, 0.3], 10), True),
    ("one-cycle-past-the-end", "sgd", lambda S, o, lib: _step_past(S.OneCycleLR(o, 0.1, 10), 11), True),
    ("one-cycle-resume-without-max-lr", "sgd", lambda S, o, lib: S.OneCycleLR(o, 0.1, 10, last_epoch=3), True),
    ("swa-anneal-strategy", "sgd", lambda S, o, lib: swa_of(S).SWALR(o, 0.01, anneal_strategy="exp"), True),
    ("swa-anneal-epochs", "sgd", lambda S, o, lib: swa_of(S).SWALR(o, 0.01, anneal_epochs=-1), True),
    ("swa-anneal-epochs-float", "sgd", lambda S, o, lib: swa_of(S).SWALR(o, 0.01, anneal_epochs=2.5), True),
    ("swa-lr-count", "sgd", lambda S, o, lib: swa_of(S).SWALR(o, [0.01, 0.02, 0.03]), True),
    ("sequential-empty", "sgd", lambda S, o, lib: S.SequentialLR(o, [], []), True),
    ("sequential-milestones", "sgd", lambda S, o, lib: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(o, 3)], [2, 4]), True),
    ("sequential-plateau", "sgd", lambda S, o, lib: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], [2]), True),
    ("sequential-not-a-scheduler", "sgd", lambda S, o, lib: S.SequentialLR(o, [S.StepLR(o, 2), 3], [2]), True),
    ("sequential-other-optimizer", "sgd", lambda S, o, lib: S.SequentialLR(o, [S.StepLR(make_optimizer(lib, "sgd"), 2)], []), False),
    ("sequential-of-chained", "sgd", lambda S, o, lib: _step_past(S.SequentialLR(o, [S.StepLR(o, 2), S.ChainedScheduler([S.StepLR(o, 5)])], [3]), 4), True),
    ("chained-empty", "sgd", lambda S, o, lib: S.ChainedScheduler([]), True),
    ("chained-plateau", "sgd", lambda S, o, lib: S.ChainedScheduler([S.ReduceLROnPlateau(o)]), True),
    ("chained-other-optimizer", "sgd", lambda S, o, lib: S.ChainedScheduler([S.StepLR(o, 2), S.StepLR(make_optimizer(lib, "sgd"), 2)]), False),
]


@needs_torch
@pytest.mark.parametrize("name,kind,make,same_message", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_pytorch(name: str, kind: str, make: ErrorCase, same_message: bool) -> None:
    raised = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, kind)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                make(lib.optim.lr_scheduler, opt, lib)
        raised.append(info.value)
    ours, theirs = raised
    assert type(ours).__name__ == type(theirs).__name__ and type(ours).__mro__[1:] == type(theirs).__mro__[1:]
    if same_message:
        assert str(ours) == str(theirs)


# --- warnings: the same UserWarnings, in the same order


def _scheduler_first(S: Any, o: Any) -> None:
    S.StepLR(o, 3).step()


def _optimizer_first(S: Any, o: Any) -> None:
    s = S.ExponentialLR(o, 0.9)
    for _ in range(3):
        o.step()
        s.step()


def _step_replaced(S: Any, o: Any) -> None:
    s = S.StepLR(o, 3)
    o.step = lambda closure=None: None
    o.step()
    s.step()


def _second_scheduler_sees_the_wrapped_step(S: Any, o: Any) -> None:
    a = S.StepLR(o, 3)
    b = S.ExponentialLR(o, 0.9)
    o.step()
    a.step()
    b.step()


WARNING_CASES: List[Tuple[str, Callable[[Any, Any], Any]]] = [
    ("scheduler-before-optimizer", _scheduler_first),
    ("optimizer-first-is-quiet", _optimizer_first),
    ("optimizer-step-replaced", _step_replaced),
    ("two-schedulers", _second_scheduler_sees_the_wrapped_step),
    ("step-with-epoch", lambda S, o: (o.step(), S.StepLR(o, 3).step(4))),
    ("get-lr-called-directly", lambda S, o: S.StepLR(o, 3).get_lr()),
    ("plateau-epoch", lambda S, o: S.ReduceLROnPlateau(o).step(1.0, 3)),
    ("plateau-quiet", lambda S, o: S.ReduceLROnPlateau(o).step(1.0)),
    ("warm-restarts-epoch-is-quiet", lambda S, o: S.CosineAnnealingWarmRestarts(o, 3).step(1.5)),
    ("sequential", lambda S, o: S.SequentialLR(o, [S.ConstantLR(o), S.StepLR(o, 2)], [2]).step()),
]


@needs_torch
@pytest.mark.parametrize("name,run", WARNING_CASES, ids=[c[0] for c in WARNING_CASES])
def test_warnings_match_pytorch(name: str, run: Callable[[Any, Any], Any]) -> None:
    seen = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, "sgd")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run(lib.optim.lr_scheduler, opt)
        seen.append([(w.category.__name__, str(w.message)) for w in caught if issubclass(w.category, UserWarning)])
    assert seen[0] == seen[1]


def test_tensor_rates_are_filled_in_place_and_never_handed_out() -> None:
    opt = make_optimizer(torch, "sgd-tensor")
    rates = [g["lr"] for g in opt.param_groups]
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step()
    sched.step()
    assert all(g["lr"] is r for g, r in zip(opt.param_groups, rates))
    assert [r.item() for r in rates] == pytest.approx([0.05, 0.1])
    # get_last_lr() and base_lrs hold copies: changing them leaves the optimizer alone.
    sched.get_last_lr()[0].fill_(9.0)
    sched.base_lrs[0].fill_(9.0)
    assert opt.param_groups[0]["lr"].item() == pytest.approx(0.05) and opt.param_groups[0]["initial_lr"].item() == pytest.approx(0.1)


@needs_torch
def test_plateau_covers_a_group_added_later_with_its_scalar_min_lr() -> None:
    seen = []
    for lib in (torch, pt):
        opt = make_optimizer(lib, "sgd")
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5, min_lr=0.03)
        sched.step(1.0)
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.04})
        for metric in (2.0, 3.0, 4.0):
            sched.step(metric)
        seen.append((normalized(sched.get_last_lr()), normalized(sched.state_dict())))
    assert seen[0] == seen[1]


@needs_torch
def test_lambda_state_keeps_callable_objects_only() -> None:
    """LambdaLR saves None for a lambda and the attributes of a callable object, which
    load_state_dict writes back into the receiving scheduler's object."""
    opt = make_optimizer(torch, "sgd")
    sched = torch.optim.lr_scheduler.LambdaLR(opt, [WarmupFactor(6), lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"warmup": 6}, None]
    target = WarmupFactor(2)
    other = torch.optim.lr_scheduler.LambdaLR(make_optimizer(torch, "sgd"), [target, lambda e: 1.0])
    other.load_state_dict(state)
    assert target.warmup == 6 and "lr_lambdas" in state


def _parameters(fn: Any) -> List[Tuple[str, Any, str]]:
    return [(p.name, p.default, str(p.kind)) for p in inspect.signature(fn).parameters.values()]


@needs_torch
@pytest.mark.parametrize("module", ["lr_scheduler", "swa_utils"])
def test_signatures_match_pytorch(module: str) -> None:
    """Every class and function PyTorch defines there (private helpers too) exists here with the
    same parameter names, kinds and defaults."""
    ours, theirs = getattr(torch.optim, module), getattr(pt.optim, module)
    differences = []
    for name, obj in vars(theirs).items():
        if not (inspect.isclass(obj) or inspect.isfunction(obj)) or obj.__module__ != theirs.__name__ or name == "_SchedulePhase":
            continue
        mine = getattr(ours, name, None)
        if mine is None:
            differences.append(f"{name} missing")
            continue
        if inspect.isfunction(obj) and _parameters(mine) != _parameters(obj):
            differences.append(f"{name}{inspect.signature(mine)} vs {inspect.signature(obj)}")
        if inspect.isclass(obj):
            for method in ("__init__", "step", "get_lr", "get_last_lr", "state_dict", "load_state_dict", "update_parameters", "scale_fn"):
                if hasattr(obj, method) and _parameters(getattr(mine, method))[1:] != _parameters(getattr(obj, method))[1:]:
                    differences.append(f"{name}.{method}{inspect.signature(getattr(mine, method))} vs {inspect.signature(getattr(obj, method))}")
    assert differences == []


def test_every_pytorch_scheduler_name_exists() -> None:
    names = [
        "LRScheduler", "_LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
        "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler", "SequentialLR", "ReduceLROnPlateau",
        "CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts", "EPOCH_DEPRECATION_WARNING",
    ]  # fmt: skip
    missing = [n for n in names if not hasattr(torch.optim.lr_scheduler, n)]
    assert missing == []
    assert torch.optim.lr_scheduler._LRScheduler.__name__ == "_LRScheduler"
    assert issubclass(torch.optim.lr_scheduler.ReduceLROnPlateau, torch.optim.lr_scheduler.LRScheduler)


# --- a real training loop: the optimizer must read the rates and momenta the scheduler writes

TRAINING_CASES: List[Tuple[str, Callable[[Any, Any], Any], Builder]] = [
    ("sgd-one-cycle", lambda lib, g: lib.optim.SGD(g, lr=0.1, momentum=0.9), lambda S, o: [S.OneCycleLR(o, [0.1, 0.05], total_steps=20)]),
    ("adam-cyclic-betas", lambda lib, g: lib.optim.Adam(g, lr=0.1), lambda S, o: [S.CyclicLR(o, 0.01, 0.1, step_size_up=3)]),
    ("nesterov-cyclic", lambda lib, g: lib.optim.SGD(g, lr=0.1, momentum=0.9, nesterov=True), lambda S, o: [S.CyclicLR(o, 0.01, 0.1, 3, mode="triangular2")]),
    ("adamw-three-phase", lambda lib, g: lib.optim.AdamW(g, lr=0.1), lambda S, o: [S.OneCycleLR(o, 0.1, total_steps=20, three_phase=True)]),
    ("sgd-plateau", lambda lib, g: lib.optim.SGD(g, lr=0.2), lambda S, o: [S.ReduceLROnPlateau(o, patience=1, factor=0.5)]),
    ("sgd-warmup-cosine", lambda lib, g: lib.optim.SGD(g, lr=0.1), lambda S, o: [S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=5), S.CosineAnnealingLR(o, 15)], [5])]),
]


def _train(lib: Any, make_opt: Callable[[Any, Any], Any], build: Builder, steps: int = 20) -> List[float]:
    """Least squares on fixed data; ReduceLROnPlateau watches the loss."""
    data = [[math.sin(i * 0.7 + j) for j in range(3)] for i in range(16)]
    target = [[math.cos(i * 0.3)] for i in range(16)]
    x, y = lib.tensor(data, dtype=lib.float64), lib.tensor(target, dtype=lib.float64)
    w = lib.zeros(3, 1, dtype=lib.float64, requires_grad=True)
    b = lib.zeros(1, dtype=lib.float64, requires_grad=True)
    opt = make_opt(lib, [{"params": [w]}, {"params": [b], "lr": 0.05}])
    scheds = build(lib.optim.lr_scheduler, opt)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        for s in scheds:
            if type(s).__name__ == "ReduceLROnPlateau":
                s.step(loss.item())
            else:
                s.step()
    return w.detach().reshape(-1).tolist() + b.detach().tolist()


@needs_torch
@pytest.mark.parametrize("name,make_opt,build", TRAINING_CASES, ids=[c[0] for c in TRAINING_CASES])
def test_training_with_scheduler_matches_pytorch(name: str, make_opt: Callable[[Any, Any], Any], build: Builder) -> None:
    ours = _train(torch, make_opt, build)
    theirs = _train(pt, make_opt, build)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


@needs_torch
def test_scheduler_classes_report_pytorchs_module_path() -> None:
    """PyTorch defines every scheduler in ``torch.optim.lr_scheduler``: the classes' module (in
    reprs, pickles and ``type(s).__module__`` checks) is that path here too."""
    ours = {n: getattr(torch.optim.lr_scheduler, n).__module__.replace("ferrotorch", "torch", 1) for n in torch.optim.lr_scheduler.__all__ if isinstance(getattr(torch.optim.lr_scheduler, n), type)}
    theirs = {n: getattr(pt.optim.lr_scheduler, n).__module__ for n in ours}
    assert ours == theirs

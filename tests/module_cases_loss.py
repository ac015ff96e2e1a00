"""Module table cases: the loss modules, with every constructor argument both ways.

Float targets require grad too (PyTorch differentiates them for the pointwise losses), so the
table also checks the gradient with respect to the target."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import numpy as np

from module_table import ModCase, ints, randn

F64 = "float64"
REDUCTIONS = ("mean", "sum", "none")
Inputs = Callable[[np.random.Generator], Tuple[Any, ...]]


def pair(*shape: int, dtype: Any = F64) -> Inputs:
    """(input, target), both standard normal."""
    return lambda rng: (randn(*shape, dtype=dtype)(rng), randn(*shape, dtype=dtype)(rng))


def unit(*shape: int, dtype: Any = F64) -> Callable[[np.random.Generator], np.ndarray]:
    """Values in (0.05, 0.95): probabilities away from the clamps."""
    return lambda rng: rng.uniform(0.05, 0.95, shape).astype(dtype)


def signs(*shape: int, dtype: Any = F64) -> Callable[[np.random.Generator], np.ndarray]:
    """Targets of +1 / -1."""
    return lambda rng: (rng.integers(0, 2, shape) * 2 - 1).astype(dtype)


def _reductions(name: str, make: Callable[[Any, str], Any], inputs: Inputs, **kw: Any) -> List[ModCase]:
    return [ModCase(f"{name}-{r}", lambda t, r=r: make(t, r), inputs, **kw) for r in REDUCTIONS]


def _pointwise() -> List[ModCase]:
    cases: List[ModCase] = []
    for name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss"):
        cases += _reductions(name, lambda t, r, n=name: getattr(t.nn, n)(reduction=r), pair(3, 4))
        cases.append(ModCase(f"{name}-f32", lambda t, n=name: getattr(t.nn, n)(), pair(2, 3, 4, dtype="float32")))
        cases.append(ModCase(f"{name}-0d", lambda t, n=name: getattr(t.nn, n)(), pair()))
        cases.append(ModCase(f"{name}-empty-sum", lambda t, n=name: getattr(t.nn, n)(reduction="sum"), pair(0, 3)))
        cases.append(ModCase(f"{name}-input-only-grad", lambda t, n=name: getattr(t.nn, n)(), pair(5), grad_inputs=(0,)))
    for name in ("MSELoss", "L1Loss", "SmoothL1Loss"):
        # The deprecated flags map to a reduction; reduce=False wins over size_average.
        cases.append(ModCase(f"{name}-size_average-False", lambda t, n=name: getattr(t.nn, n)(size_average=False), pair(3, 4)))
        cases.append(ModCase(f"{name}-reduce-False", lambda t, n=name: getattr(t.nn, n)(size_average=True, reduce=False), pair(3, 4)))
        cases.append(ModCase(f"{name}-reduce-True", lambda t, n=name: getattr(t.nn, n)(reduce=True, reduction="none"), pair(3, 4)))
    cases += [
        ModCase("SmoothL1Loss-beta-0.3", lambda t: t.nn.SmoothL1Loss(beta=0.3), pair(4, 5)),
        ModCase("SmoothL1Loss-beta-0", lambda t: t.nn.SmoothL1Loss(beta=0.0, reduction="none"), pair(4, 5)),
        ModCase("SmoothL1Loss-beta-2-sum", lambda t: t.nn.SmoothL1Loss(reduction="sum", beta=2.0), pair(4, 5)),
        ModCase("HuberLoss-delta-0.4", lambda t: t.nn.HuberLoss(delta=0.4), pair(4, 5)),
        ModCase("HuberLoss-delta-2-none", lambda t: t.nn.HuberLoss(reduction="none", delta=2.0), pair(4, 5)),
    ]
    return cases


def _bce() -> List[ModCase]:
    probs = lambda rng: (unit(4, 3)(rng), unit(4, 3)(rng))  # noqa: E731
    w = lambda t: t.tensor([0.5, 2.0, 1.5], dtype=t.float64)  # noqa: E731
    cases = _reductions("BCELoss", lambda t, r: t.nn.BCELoss(reduction=r), probs)
    cases += [
        ModCase("BCELoss-weight", lambda t: t.nn.BCELoss(weight=w(t)), probs),
        ModCase("BCELoss-weight-none", lambda t: t.nn.BCELoss(weight=w(t), reduction="none"), probs),
        ModCase("BCELoss-size_average-False", lambda t: t.nn.BCELoss(size_average=False), probs),
        ModCase("BCELoss-hard-targets", lambda t: t.nn.BCELoss(), lambda rng: (unit(6)(rng), rng.integers(0, 2, 6).astype(F64))),
        ModCase("BCELoss-f32", lambda t: t.nn.BCELoss(), lambda rng: (unit(2, 5, dtype="float32")(rng), unit(2, 5, dtype="float32")(rng))),
        ModCase("BCELoss-0d", lambda t: t.nn.BCELoss(), lambda rng: (unit()(rng), unit()(rng))),
    ]
    logits = pair(4, 3)
    cases += _reductions("BCEWithLogitsLoss", lambda t, r: t.nn.BCEWithLogitsLoss(reduction=r), lambda rng: (randn(4, 3, dtype=F64)(rng), unit(4, 3)(rng)))
    soft = lambda rng: (randn(4, 3, dtype=F64)(rng) * 3, unit(4, 3)(rng))  # noqa: E731
    cases += [
        ModCase("BCEWithLogitsLoss-weight", lambda t: t.nn.BCEWithLogitsLoss(weight=w(t)), soft),
        ModCase("BCEWithLogitsLoss-pos_weight", lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([1.0, 3.0, 0.5], dtype=t.float64)), soft),
        ModCase("BCEWithLogitsLoss-pos_weight-3d", lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([1.0, 3.0, 0.5], dtype=t.float64), reduction="none"), lambda rng: (randn(2, 4, 3, dtype=F64)(rng), unit(2, 4, 3)(rng))),
        ModCase("BCEWithLogitsLoss-both-weights-sum", lambda t: t.nn.BCEWithLogitsLoss(weight=w(t), reduction="sum", pos_weight=t.tensor([2.0, 0.3, 1.0], dtype=t.float64)), soft),
        ModCase("BCEWithLogitsLoss-reduce-False", lambda t: t.nn.BCEWithLogitsLoss(reduce=False), logits),
        ModCase("BCEWithLogitsLoss-large-logits", lambda t: t.nn.BCEWithLogitsLoss(), lambda rng: (np.array([-80.0, -20.0, 0.0, 30.0, 90.0]), unit(5)(rng))),
        ModCase("BCEWithLogitsLoss-f32", lambda t: t.nn.BCEWithLogitsLoss(), lambda rng: (randn(3, 4)(rng), unit(3, 4, dtype="float32")(rng))),
    ]
    return cases


def _classification() -> List[ModCase]:
    cases: List[ModCase] = []
    w5 = lambda t: t.tensor([0.2, 1.0, 2.0, 0.7, 1.3], dtype=t.float64)  # noqa: E731
    logp = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), ints(5, *(s[:1] + s[2:]))(rng))  # noqa: E731
    # Class index 1 is set to ignore_index=1 in some of the targets below.
    for name in ("NLLLoss", "CrossEntropyLoss"):
        cases += _reductions(name, lambda t, r, n=name: getattr(t.nn, n)(reduction=r), logp(6, 5))
        cases += [
            ModCase(f"{name}-weight", lambda t, n=name: getattr(t.nn, n)(weight=w5(t)), logp(6, 5)),
            ModCase(f"{name}-weight-sum", lambda t, n=name: getattr(t.nn, n)(weight=w5(t), reduction="sum"), logp(6, 5)),
            ModCase(f"{name}-weight-none", lambda t, n=name: getattr(t.nn, n)(weight=w5(t), reduction="none"), logp(6, 5)),
            ModCase(f"{name}-ignore_index", lambda t, n=name: getattr(t.nn, n)(ignore_index=1), logp(8, 5)),
            ModCase(f"{name}-ignore_index-weight", lambda t, n=name: getattr(t.nn, n)(weight=w5(t), ignore_index=2), logp(8, 5)),
            ModCase(f"{name}-ignore_index-none", lambda t, n=name: getattr(t.nn, n)(ignore_index=0, reduction="none"), logp(8, 5)),
            ModCase(f"{name}-4d", lambda t, n=name: getattr(t.nn, n)(), logp(2, 5, 3, 4)),
            ModCase(f"{name}-4d-weight-ignore", lambda t, n=name: getattr(t.nn, n)(weight=w5(t), ignore_index=3), logp(2, 5, 3, 4)),
            ModCase(f"{name}-3d-none", lambda t, n=name: getattr(t.nn, n)(reduction="none"), logp(2, 5, 3)),
            ModCase(f"{name}-unbatched", lambda t, n=name: getattr(t.nn, n)(), lambda rng: (randn(5, dtype=F64)(rng), np.array(3, dtype=np.int64))),
            ModCase(f"{name}-unbatched-none", lambda t, n=name: getattr(t.nn, n)(reduction="none"), lambda rng: (randn(5, dtype=F64)(rng), np.array(3, dtype=np.int64))),
            ModCase(f"{name}-size_average-False", lambda t, n=name: getattr(t.nn, n)(size_average=False), logp(6, 5)),
            ModCase(f"{name}-f32", lambda t, n=name: getattr(t.nn, n)(), lambda rng: (randn(4, 5)(rng), ints(5, 4)(rng))),
            ModCase(f"{name}-all-ignored-sum", lambda t, n=name: getattr(t.nn, n)(reduction="sum"), lambda rng: (randn(3, 5, dtype=F64)(rng), np.full(3, -100, dtype=np.int64))),
        ]
    probs = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), np.moveaxis(rng.dirichlet(np.ones(s[1]), (s[0],) + s[2:]), -1, 1).copy() if len(s) > 2 else rng.dirichlet(np.ones(s[1]), s[0]))  # noqa: E731
    cases += [
        ModCase("CrossEntropyLoss-label_smoothing", lambda t: t.nn.CrossEntropyLoss(label_smoothing=0.1), logp(6, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-weight-ignore", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), ignore_index=1, label_smoothing=0.3), logp(8, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-none", lambda t: t.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.2, ignore_index=4), logp(8, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-sum-4d", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), reduction="sum", label_smoothing=0.25), logp(2, 5, 3, 2)),
        ModCase("CrossEntropyLoss-probs", lambda t: t.nn.CrossEntropyLoss(), probs(4, 5)),
        ModCase("CrossEntropyLoss-probs-weight-smoothing", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), label_smoothing=0.2), probs(4, 5)),
        ModCase("CrossEntropyLoss-probs-none-4d", lambda t: t.nn.CrossEntropyLoss(reduction="none", weight=w5(t)), probs(2, 5, 3, 2)),
        ModCase("CrossEntropyLoss-probs-sum", lambda t: t.nn.CrossEntropyLoss(reduction="sum"), probs(4, 5)),
        ModCase("CrossEntropyLoss-probs-unbatched", lambda t: t.nn.CrossEntropyLoss(), lambda rng: (randn(5, dtype=F64)(rng), rng.dirichlet(np.ones(5)))),
        ModCase("CrossEntropyLoss-probs-f32", lambda t: t.nn.CrossEntropyLoss(label_smoothing=0.5), lambda rng: (randn(3, 5)(rng), rng.dirichlet(np.ones(5), 3).astype(np.float32))),
    ]
    return cases


def _divergence_and_embedding() -> List[ModCase]:
    logq = lambda rng: (np.log(rng.dirichlet(np.ones(4), 3)), rng.dirichlet(np.ones(4), 3))  # noqa: E731
    cases = [ModCase(f"KLDivLoss-{r}", lambda t, r=r: t.nn.KLDivLoss(reduction=r), logq) for r in REDUCTIONS + ("batchmean",)]
    cases += [
        ModCase(f"KLDivLoss-log_target-{r}", lambda t, r=r: t.nn.KLDivLoss(reduction=r, log_target=True), lambda rng: (np.log(rng.dirichlet(np.ones(4), 3)), np.log(rng.dirichlet(np.ones(4), 3))))
        for r in REDUCTIONS + ("batchmean",)
    ]
    cases += [
        ModCase("KLDivLoss-zero-target", lambda t: t.nn.KLDivLoss(reduction="sum"), lambda rng: (randn(2, 3, dtype=F64)(rng), np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))),
        ModCase("KLDivLoss-size_average-False", lambda t: t.nn.KLDivLoss(size_average=False), logq),
        ModCase("KLDivLoss-f32-batchmean", lambda t: t.nn.KLDivLoss(reduction="batchmean"), lambda rng: (randn(2, 3, 4)(rng), unit(2, 3, 4, dtype="float32")(rng))),
    ]
    cos_in = lambda rng: (randn(5, 4, dtype=F64)(rng), randn(5, 4, dtype=F64)(rng), signs(5, dtype=np.int64)(rng))  # noqa: E731
    cases += _reductions("CosineEmbeddingLoss", lambda t, r: t.nn.CosineEmbeddingLoss(reduction=r), cos_in)
    cases += [
        ModCase("CosineEmbeddingLoss-margin", lambda t: t.nn.CosineEmbeddingLoss(margin=-0.2), cos_in),
        ModCase("CosineEmbeddingLoss-margin-0.5-sum", lambda t: t.nn.CosineEmbeddingLoss(0.5, reduction="sum"), cos_in),
        ModCase("CosineEmbeddingLoss-float-target", lambda t: t.nn.CosineEmbeddingLoss(), lambda rng: (randn(5, 4, dtype=F64)(rng), randn(5, 4, dtype=F64)(rng), signs(5)(rng)), grad_inputs=(0, 1)),
        ModCase("CosineEmbeddingLoss-unbatched", lambda t: t.nn.CosineEmbeddingLoss(reduction="none"), lambda rng: (randn(4, dtype=F64)(rng), randn(4, dtype=F64)(rng), np.array(-1, dtype=np.int64))),
    ]
    return cases


CASES = _pointwise() + _bce() + _classification() + _divergence_and_embedding()

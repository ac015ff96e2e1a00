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
    return lambda rng: np.asarray(rng.uniform(0.05, 0.95, shape)).astype(dtype)


def signs(*shape: int, dtype: Any = F64) -> Callable[[np.random.Generator], np.ndarray]:
    """Targets of +1 / -1."""
    return lambda rng: np.asarray(rng.integers(0, 2, shape) * 2 - 1).astype(dtype)


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
        # Saturated probabilities (exactly 0 or 1): clamped loss, large but finite input gradient.
        ModCase("BCELoss-saturated", lambda t: t.nn.BCELoss(), lambda rng: (np.array([0.0, 1.0, 1.0, 0.0, 0.5]), np.array([1.0, 0.0, 1.0, 0.0, 0.3]))),
        ModCase("BCELoss-saturated-f32-weight", lambda t: t.nn.BCELoss(weight=t.tensor([2.0, 0.5]), reduction="sum"), lambda rng: (np.array([[1.0, 0.25], [0.0, 1.0]], dtype=np.float32), np.array([[0.0, 1.0], [0.5, 1.0]], dtype=np.float32)), grad_inputs=(0,)),
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
            ModCase(f"{name}-all-ignored-mean", lambda t, n=name: getattr(t.nn, n)(ignore_index=2), lambda rng: (randn(3, 5, dtype=F64)(rng), np.full(3, 2, dtype=np.int64))),
            ModCase(f"{name}-zero-batch", lambda t, n=name: getattr(t.nn, n)(weight=w5(t)), lambda rng: (randn(0, 5, dtype=F64)(rng), np.zeros(0, dtype=np.int64))),
            ModCase(f"{name}-zero-batch-none", lambda t, n=name: getattr(t.nn, n)(reduction="none"), lambda rng: (randn(0, 5, 2, dtype=F64)(rng), np.zeros((0, 2), dtype=np.int64))),
            ModCase(f"{name}-uint8-target", lambda t, n=name: getattr(t.nn, n)(reduction="sum"), lambda rng: (randn(4, 5, dtype=F64)(rng), np.array([0, 4, 2, 2], dtype=np.uint8))),
            ModCase(f"{name}-all-ignored-sum", lambda t, n=name: getattr(t.nn, n)(reduction="sum"), lambda rng: (randn(3, 5, dtype=F64)(rng), np.full(3, -100, dtype=np.int64))),
        ]
    probs = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), np.moveaxis(rng.dirichlet(np.ones(s[1]), (s[0],) + s[2:]), -1, 1).copy() if len(s) > 2 else rng.dirichlet(np.ones(s[1]), s[0]))  # noqa: E731
    cases += [
        ModCase("CrossEntropyLoss-label_smoothing", lambda t: t.nn.CrossEntropyLoss(label_smoothing=0.1), logp(6, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-weight-ignore", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), ignore_index=1, label_smoothing=0.3), logp(8, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-none", lambda t: t.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.2, ignore_index=4), logp(8, 5)),
        ModCase("CrossEntropyLoss-label_smoothing-sum-4d", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), reduction="sum", label_smoothing=0.25), logp(2, 5, 3, 2)),
        ModCase("CrossEntropyLoss-all-ignored-smoothing", lambda t: t.nn.CrossEntropyLoss(weight=w5(t), ignore_index=0, label_smoothing=0.3), lambda rng: (randn(3, 5, dtype=F64)(rng), np.zeros(3, dtype=np.int64))),
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


def _likelihood() -> List[ModCase]:
    counts = lambda *s: lambda rng: rng.poisson(1.5, s).astype(F64)  # noqa: E731
    rates = lambda rng: (rng.uniform(0.1, 3.0, (4, 3)), counts(4, 3)(rng))  # noqa: E731
    log_rates = lambda rng: (randn(4, 3, dtype=F64)(rng), counts(4, 3)(rng))  # noqa: E731
    cases = _reductions("PoissonNLLLoss", lambda t, r: t.nn.PoissonNLLLoss(reduction=r), log_rates)
    cases += [
        ModCase("PoissonNLLLoss-full", lambda t: t.nn.PoissonNLLLoss(full=True), log_rates),
        ModCase("PoissonNLLLoss-rate", lambda t: t.nn.PoissonNLLLoss(log_input=False), rates),
        ModCase("PoissonNLLLoss-rate-full-eps-none", lambda t: t.nn.PoissonNLLLoss(False, True, eps=0.5, reduction="none"), rates),
        ModCase("PoissonNLLLoss-reduce-False", lambda t: t.nn.PoissonNLLLoss(reduce=False), log_rates),
        ModCase("PoissonNLLLoss-f32", lambda t: t.nn.PoissonNLLLoss(full=True), lambda rng: (randn(2, 5)(rng), rng.poisson(2.0, (2, 5)).astype(np.float32))),
    ]
    var = lambda *s: unit(*s)  # noqa: E731
    gauss = lambda vs: lambda rng: (randn(4, 3, dtype=F64)(rng), randn(4, 3, dtype=F64)(rng), var(*vs)(rng))  # noqa: E731
    cases += _reductions("GaussianNLLLoss", lambda t, r: t.nn.GaussianNLLLoss(reduction=r), gauss((4, 3)))
    cases += [
        ModCase("GaussianNLLLoss-full", lambda t: t.nn.GaussianNLLLoss(full=True), gauss((4, 3))),
        ModCase("GaussianNLLLoss-eps-clamps", lambda t: t.nn.GaussianNLLLoss(eps=0.5, reduction="sum"), gauss((4, 3))),
        ModCase("GaussianNLLLoss-var-one-short", lambda t: t.nn.GaussianNLLLoss(), gauss((4,))),
        ModCase("GaussianNLLLoss-var-size-1", lambda t: t.nn.GaussianNLLLoss(full=True, reduction="none"), gauss((4, 1))),
        ModCase("GaussianNLLLoss-var-bcast-mid", lambda t: t.nn.GaussianNLLLoss(), lambda rng: (randn(2, 3, 4, dtype=F64)(rng), randn(2, 3, 4, dtype=F64)(rng), var(2, 1, 4)(rng))),
        ModCase("GaussianNLLLoss-var-float", lambda t: t.nn.GaussianNLLLoss(), lambda rng: (randn(4, 3, dtype=F64)(rng), randn(4, 3, dtype=F64)(rng), 0.7)),
        ModCase("GaussianNLLLoss-unbatched", lambda t: t.nn.GaussianNLLLoss(), lambda rng: (randn(3, dtype=F64)(rng), randn(3, dtype=F64)(rng), var(3)(rng))),
    ]
    return cases


def _margin() -> List[ModCase]:
    rank = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), randn(*s, dtype=F64)(rng), signs(*s)(rng))  # noqa: E731
    cases = _reductions("MarginRankingLoss", lambda t, r: t.nn.MarginRankingLoss(reduction=r), rank(6))
    cases += [
        ModCase("MarginRankingLoss-margin", lambda t: t.nn.MarginRankingLoss(margin=0.5), rank(6)),
        ModCase("MarginRankingLoss-0d", lambda t: t.nn.MarginRankingLoss(0.2, reduction="none"), rank()),
        ModCase("MarginRankingLoss-f32", lambda t: t.nn.MarginRankingLoss(), lambda rng: (randn(5)(rng), randn(5)(rng), signs(5, dtype="float32")(rng))),
    ]
    hinge = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng) * 2, signs(*s)(rng))  # noqa: E731
    cases += _reductions("HingeEmbeddingLoss", lambda t, r: t.nn.HingeEmbeddingLoss(reduction=r), hinge(4, 3), grad_inputs=(0,))
    cases += [
        ModCase("HingeEmbeddingLoss-margin", lambda t: t.nn.HingeEmbeddingLoss(margin=0.3), hinge(4, 3), grad_inputs=(0,)),
        ModCase("HingeEmbeddingLoss-size_average-False", lambda t: t.nn.HingeEmbeddingLoss(2.0, size_average=False), hinge(7), grad_inputs=(0,)),
    ]
    cases += _reductions("SoftMarginLoss", lambda t, r: t.nn.SoftMarginLoss(reduction=r), hinge(4, 3), grad_inputs=(0,))
    cases.append(ModCase("SoftMarginLoss-large", lambda t: t.nn.SoftMarginLoss(), lambda rng: (np.array([-40.0, -3.0, 0.0, 25.0]), np.array([1.0, -1.0, 1.0, -1.0])), grad_inputs=(0,)))
    labels = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), rng.integers(0, 2, s).astype(F64))  # noqa: E731
    w4 = lambda t: t.tensor([0.5, 1.0, 2.0, 1.5], dtype=t.float64)  # noqa: E731
    cases += _reductions("MultiLabelSoftMarginLoss", lambda t, r: t.nn.MultiLabelSoftMarginLoss(reduction=r), labels(3, 4))
    cases += [
        ModCase("MultiLabelSoftMarginLoss-weight", lambda t: t.nn.MultiLabelSoftMarginLoss(weight=w4(t)), labels(3, 4)),
        ModCase("MultiLabelSoftMarginLoss-weight-none", lambda t: t.nn.MultiLabelSoftMarginLoss(w4(t), reduction="none"), labels(3, 4)),
        ModCase("MultiLabelSoftMarginLoss-unbatched", lambda t: t.nn.MultiLabelSoftMarginLoss(), labels(4)),
    ]
    # Targets list class indices, ended by -1 (later entries ignored, even if valid).
    listed = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 0, 0]], dtype=np.int64)
    multilabel = lambda rng: (randn(3, 4, dtype=F64)(rng), listed)  # noqa: E731
    cases += _reductions("MultiLabelMarginLoss", lambda t, r: t.nn.MultiLabelMarginLoss(reduction=r), multilabel)
    cases += [
        ModCase("MultiLabelMarginLoss-unbatched", lambda t: t.nn.MultiLabelMarginLoss(reduction="none"), lambda rng: (randn(4, dtype=F64)(rng), np.array([2, 2, -1, 0], dtype=np.int64))),
        ModCase("MultiLabelMarginLoss-f32", lambda t: t.nn.MultiLabelMarginLoss(), lambda rng: (randn(3, 4)(rng), listed)),
    ]
    classes = lambda *s: lambda rng: (randn(*s, dtype=F64)(rng), ints(s[-1], *s[:-1])(rng))  # noqa: E731
    cases += _reductions("MultiMarginLoss", lambda t, r: t.nn.MultiMarginLoss(reduction=r), classes(5, 4))
    cases += [
        ModCase("MultiMarginLoss-p2", lambda t: t.nn.MultiMarginLoss(p=2), classes(5, 4)),
        ModCase("MultiMarginLoss-margin-weight", lambda t: t.nn.MultiMarginLoss(margin=0.4, weight=w4(t)), classes(5, 4)),
        ModCase("MultiMarginLoss-p2-weight-none", lambda t: t.nn.MultiMarginLoss(2, 2.0, w4(t), reduction="none"), classes(5, 4)),
        ModCase("MultiMarginLoss-unbatched", lambda t: t.nn.MultiMarginLoss(), lambda rng: (randn(4, dtype=F64)(rng), np.array(2, dtype=np.int64))),
        ModCase("MultiMarginLoss-unbatched-1d-target", lambda t: t.nn.MultiMarginLoss(reduction="none"), lambda rng: (randn(4, dtype=F64)(rng), np.array([1], dtype=np.int64))),
    ]
    return cases


def _triplet() -> List[ModCase]:
    three = lambda *s: lambda rng: tuple(randn(*s, dtype=F64)(rng) for _ in range(3))  # noqa: E731
    cases = _reductions("TripletMarginLoss", lambda t, r: t.nn.TripletMarginLoss(reduction=r), three(5, 4))
    cases += [
        ModCase("TripletMarginLoss-margin-p1", lambda t: t.nn.TripletMarginLoss(margin=2.0, p=1), three(5, 4)),
        ModCase("TripletMarginLoss-p3-eps", lambda t: t.nn.TripletMarginLoss(p=3.0, eps=1e-3), three(5, 4)),
        ModCase("TripletMarginLoss-swap", lambda t: t.nn.TripletMarginLoss(margin=3.0, swap=True, reduction="none"), three(6, 4)),
        ModCase("TripletMarginLoss-unbatched", lambda t: t.nn.TripletMarginLoss(margin=4.0), three(4)),
        ModCase("TripletMarginLoss-f32", lambda t: t.nn.TripletMarginLoss(margin=3.0), lambda rng: tuple(randn(3, 5)(rng) for _ in range(3))),
    ]
    cases += _reductions("TripletMarginWithDistanceLoss", lambda t, r: t.nn.TripletMarginWithDistanceLoss(margin=3.0, reduction=r), three(5, 4))
    l1_distance = lambda a, b: (a - b).abs().sum(-1)  # noqa: E731
    cases += [
        ModCase("TripletMarginWithDistanceLoss-default", lambda t: t.nn.TripletMarginWithDistanceLoss(), three(5, 4)),
        ModCase("TripletMarginWithDistanceLoss-l1", lambda t: t.nn.TripletMarginWithDistanceLoss(distance_function=l1_distance, margin=2.0), three(5, 4)),
        ModCase("TripletMarginWithDistanceLoss-swap", lambda t: t.nn.TripletMarginWithDistanceLoss(distance_function=l1_distance, margin=4.0, swap=True, reduction="none"), three(6, 4)),
        ModCase("TripletMarginWithDistanceLoss-unbatched", lambda t: t.nn.TripletMarginWithDistanceLoss(margin=4.0, swap=True), three(4)),
    ]
    return cases


def _log_probs(t: int, n: int, c: int, dtype: Any = F64) -> Callable[[np.random.Generator], np.ndarray]:
    """Normalized log-probabilities [T, N, C] (or [T, C] for n = 0)."""

    def make(rng: np.random.Generator) -> np.ndarray:
        z = rng.standard_normal((t, n, c) if n else (t, c))
        return (z - np.log(np.exp(z).sum(-1, keepdims=True))).astype(dtype)

    return make


def _ctc() -> List[ModCase]:
    # Sample 1 repeats a label (the path needs a blank between) and sample 2 has an empty target.
    padded = np.array([[1, 2, 2, 3], [4, 4, 0, 0], [0, 0, 0, 0]], dtype=np.int64)
    lengths = np.array([4, 2, 0], dtype=np.int64)
    steps = np.array([10, 8, 5], dtype=np.int64)
    batch = lambda rng: (_log_probs(10, 3, 5)(rng), padded, steps, lengths)  # noqa: E731
    cases = _reductions("CTCLoss", lambda t, r: t.nn.CTCLoss(reduction=r), batch)
    concat = np.array([1, 2, 2, 3, 4, 4], dtype=np.int64)
    blank4 = np.array([[0, 1, 1, 2], [3, 3, 0, 4], [2, 4, 4, 4]], dtype=np.int64)
    cases += [
        ModCase("CTCLoss-concatenated", lambda t: t.nn.CTCLoss(reduction="sum"), lambda rng: (_log_probs(10, 3, 5)(rng), concat, steps, lengths)),
        ModCase("CTCLoss-length-tuples", lambda t: t.nn.CTCLoss(), lambda rng: (_log_probs(10, 3, 5)(rng), padded, (10, 8, 5), (4, 2, 0))),
        ModCase("CTCLoss-blank-4", lambda t: t.nn.CTCLoss(blank=4, reduction="none"), lambda rng: (_log_probs(9, 3, 5)(rng), blank4, np.array([9, 9, 7]), np.array([4, 3, 1]))),
        ModCase("CTCLoss-unbatched", lambda t: t.nn.CTCLoss(), lambda rng: (_log_probs(7, 0, 4)(rng), np.array([1, 3, 3], dtype=np.int64), np.array(7), np.array(3))),
        ModCase("CTCLoss-f32", lambda t: t.nn.CTCLoss(), lambda rng: (_log_probs(12, 2, 6, np.float32)(rng), np.array([[1, 5, 2], [3, 3, 0]]), np.array([12, 11]), np.array([3, 2]))),
        ModCase("CTCLoss-raw-scores", lambda t: t.nn.CTCLoss(reduction="sum"), lambda rng: (randn(6, 2, 4, dtype=F64)(rng), np.array([[1, 2], [3, 0]]), np.array([6, 5]), np.array([2, 1]))),
        # Sample 0 cannot be aligned (3 labels with a repeat need 4 steps): zero_infinity zeroes it.
        ModCase("CTCLoss-zero_infinity", lambda t: t.nn.CTCLoss(reduction="none", zero_infinity=True), lambda rng: (_log_probs(3, 2, 4)(rng), np.array([[1, 1, 2], [2, 0, 0]]), np.array([3, 3]), np.array([3, 1]))),
        ModCase("CTCLoss-infinite", lambda t: t.nn.CTCLoss(reduction="none"), lambda rng: (_log_probs(3, 2, 4)(rng), np.array([[1, 1, 2], [2, 0, 0]]), np.array([3, 3]), np.array([3, 1])), backward=False),
    ]
    return cases


def _projection() -> List[ModCase]:
    f64 = lambda t: dict(dtype=t.float64, device="cpu")  # noqa: E731
    # Targets reach the head (below 4), the first cluster (4-6) and the second (7-9).
    spread = np.array([0, 5, 9, 3, 7, 4], dtype=np.int64)
    cases = [
        ModCase("AdaptiveLogSoftmaxWithLoss", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]), lambda rng: (randn(6, 8)(rng), spread)),
        ModCase("AdaptiveLogSoftmaxWithLoss-2-clusters", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, (4, 7), div_value=2.0, head_bias=True, **f64(t)), lambda rng: (randn(6, 8, dtype=F64)(rng), spread)),
        ModCase("AdaptiveLogSoftmaxWithLoss-head-only-targets", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], **f64(t)), lambda rng: (randn(3, 8, dtype=F64)(rng), np.array([0, 1, 3], dtype=np.int64))),
        ModCase("AdaptiveLogSoftmaxWithLoss-unbatched", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 6], div_value=1.5, **f64(t)), lambda rng: (randn(8, dtype=F64)(rng), np.array(7, dtype=np.int64))),
    ]
    w5 = lambda t: t.tensor([0.2, 1.0, 2.0, 0.7, 1.3], dtype=t.float64)  # noqa: E731
    cases += _reductions("LinearCrossEntropyLoss", lambda t, r: t.nn.LinearCrossEntropyLoss(6, 5, reduction=r, **f64(t)), lambda rng: (randn(4, 6, dtype=F64)(rng), ints(5, 4)(rng)))
    cases += [
        ModCase("LinearCrossEntropyLoss-f32", lambda t: t.nn.LinearCrossEntropyLoss(6, 5), lambda rng: (randn(4, 6)(rng), ints(5, 4)(rng))),
        ModCase("LinearCrossEntropyLoss-bias-weight-ignore", lambda t: t.nn.LinearCrossEntropyLoss(6, 5, bias=True, weight=w5(t), ignore_index=2, **f64(t)), lambda rng: (randn(8, 6, dtype=F64)(rng), ints(5, 8)(rng))),
        ModCase("LinearCrossEntropyLoss-out_features", lambda t: t.nn.LinearCrossEntropyLoss(6, 5, out_features=(2, 3), bias=True, label_smoothing=0.2, **f64(t)), lambda rng: (randn(4, 6, dtype=F64)(rng), ints(5, 4, 2, 3)(rng))),
        ModCase("LinearCrossEntropyLoss-probs", lambda t: t.nn.LinearCrossEntropyLoss(6, 5, reduction="none", **f64(t)), lambda rng: (randn(4, 6, dtype=F64)(rng), rng.dirichlet(np.ones(5), 4))),
        ModCase("LinearCrossEntropyLoss-unbatched", lambda t: t.nn.LinearCrossEntropyLoss(6, 5, bias=True, **f64(t)), lambda rng: (randn(6, dtype=F64)(rng), np.array(4, dtype=np.int64))),
    ]
    return cases


CASES = _pointwise() + _bce() + _classification() + _divergence_and_embedding() + _likelihood() + _margin() + _triplet() + _ctc() + _projection()


def _mixed_dtypes() -> List[ModCase]:
    """A float32 prediction against a float64 target and the other way round: PyTorch keeps
    the input's dtype for Huber and soft-margin, the target's for BCE with logits, and refuses
    mismatched dtypes (an integer target included) in BCE."""
    f32, f64 = "float32", F64
    cases: List[ModCase] = []
    for a, b in ((f32, f64), (f64, f32)):
        both = lambda rng, a=a, b=b: (randn(3, 4, dtype=a)(rng), randn(3, 4, dtype=b)(rng))  # noqa: E731
        probs = lambda rng, a=a, b=b: (unit(3, 4, dtype=a)(rng), unit(3, 4, dtype=b)(rng))  # noqa: E731
        # PyTorch's own Huber backward refuses a target of another dtype: forward only.
        cases += [
            ModCase(f"HuberLoss-{a}-{b}", lambda t: t.nn.HuberLoss(reduction="none"), both, backward=False),
            ModCase(f"SoftMarginLoss-{a}-{b}", lambda t: t.nn.SoftMarginLoss(), lambda rng, a=a, b=b: (randn(3, 4, dtype=a)(rng), signs(3, 4, dtype=b)(rng)), grad_inputs=(0,)),
            ModCase(f"BCEWithLogitsLoss-{a}-{b}", lambda t: t.nn.BCEWithLogitsLoss(), probs),
            ModCase(f"BCELoss-error-{a}-{b}", lambda t: t.nn.BCELoss(), probs, error=RuntimeError, modes=("eval",)),
        ]
    int_target = lambda rng: (unit(3, 4, dtype=f32)(rng), rng.integers(0, 2, (3, 4)))  # noqa: E731
    cases += [
        ModCase("BCELoss-error-int-target", lambda t: t.nn.BCELoss(), int_target, error=RuntimeError, modes=("eval",)),
        ModCase("BCEWithLogitsLoss-error-int-target", lambda t: t.nn.BCEWithLogitsLoss(), int_target, error=RuntimeError, modes=("eval",)),
    ]
    return cases


CASES += _mixed_dtypes()


def _dtype_errors() -> List[ModCase]:
    """Integer inputs and class weights of another dtype: PyTorch's exception and message."""
    err = {"modes": ("eval",), "backward": False}
    i64 = lambda *shape: lambda rng: rng.integers(0, 3, shape)  # noqa: E731
    return [
        ModCase("MSELoss-error-int", lambda t: t.nn.MSELoss(), lambda rng: (i64(3, 4)(rng), i64(3, 4)(rng)), error=NotImplementedError, **err),
        ModCase("HuberLoss-error-int", lambda t: t.nn.HuberLoss(), lambda rng: (i64(3, 4)(rng), i64(3, 4)(rng)), error=NotImplementedError, **err),
        ModCase("SmoothL1Loss-error-int", lambda t: t.nn.SmoothL1Loss(), lambda rng: (i64(3, 4)(rng), i64(3, 4)(rng)), error=NotImplementedError, **err),
        ModCase("KLDivLoss-error-int-target", lambda t: t.nn.KLDivLoss(reduction="batchmean"), lambda rng: (randn(3, 4)(rng), i64(3, 4)(rng)), error=RuntimeError, **err),
        ModCase("KLDivLoss-error-int-input", lambda t: t.nn.KLDivLoss(reduction="sum", log_target=True), lambda rng: (i64(3, 4)(rng), randn(3, 4)(rng)), error=RuntimeError, **err),
        ModCase("NLLLoss-error-int", lambda t: t.nn.NLLLoss(), lambda rng: (i64(3, 4)(rng), ints(4, 3)(rng)), error=NotImplementedError, **err),
        ModCase("NLLLoss-error-int-2d", lambda t: t.nn.NLLLoss(), lambda rng: (i64(2, 4, 3)(rng), ints(4, 2, 3)(rng)), error=NotImplementedError, **err),
        ModCase("CrossEntropyLoss-error-int", lambda t: t.nn.CrossEntropyLoss(), lambda rng: (i64(3, 4)(rng), ints(4, 3)(rng)), error=NotImplementedError, **err),
        ModCase("CrossEntropyLoss-error-int-2d", lambda t: t.nn.CrossEntropyLoss(), lambda rng: (i64(2, 4, 3)(rng), ints(4, 2, 3)(rng)), error=NotImplementedError, **err),
        ModCase("NLLLoss-error-weight-dtype", lambda t: t.nn.NLLLoss(weight=t.ones(4, dtype=t.float64)), lambda rng: (randn(3, 4)(rng), ints(4, 3)(rng)), error=RuntimeError, **err),
        ModCase("CrossEntropyLoss-error-weight-long", lambda t: t.nn.CrossEntropyLoss(weight=t.tensor([1, 2, 3, 4])), lambda rng: (randn(3, 4)(rng), ints(4, 3)(rng)), error=RuntimeError, **err),
    ]


CASES += _dtype_errors()

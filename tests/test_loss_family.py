"""The loss family beyond the module table: every torch.nn loss exists, bad inputs raise
PyTorch's exception class with a message naming the loss (and the shapes), the deprecated
flags warn, and functional-only arguments match PyTorch."""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch


def test_every_torch_loss_module_exists() -> None:
    names = [n for n in dir(pt.nn) if n.endswith("Loss") and isinstance(getattr(pt.nn, n), type)]
    assert len(names) > 15
    missing = [n for n in names if not hasattr(torch.nn, n)]
    assert missing == []


def test_every_torch_loss_function_exists() -> None:
    names = [n for n in dir(pt.nn.functional) if n.endswith("_loss") or n in ("cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div")]
    missing = [n for n in names if not hasattr(torch.nn.functional, n)]
    assert missing == []


def _x(lib: Any, *shape: int) -> Any:
    return lib.from_numpy(np.random.default_rng(0).standard_normal(shape))


def _long(lib: Any, values: Any) -> Any:
    return lib.tensor(values, dtype=lib.int64)


# (id, call(lib), the loss's name and shape fragments our message must contain)
ERRORS: List[Tuple[str, Callable[[Any], Any], Tuple[str, ...]]] = [
    ("nll-target-out-of-range", lambda t: t.nn.functional.nll_loss(_x(t, 4, 5), _long(t, [0, 1, 7, 2])), ("nll_loss", "Target 7")),
    ("nll-negative-target", lambda t: t.nn.functional.nll_loss(_x(t, 4, 5), _long(t, [0, -3, 1, 2])), ("nll_loss", "Target -3")),
    ("ce-target-out-of-range", lambda t: t.nn.CrossEntropyLoss()(_x(t, 4, 5), _long(t, [0, 1, 5, 2])), ("nll_loss", "Target 5")),
    ("ce-float-target-not-probs", lambda t: t.nn.CrossEntropyLoss()(_x(t, 4, 5), _x(t, 4)), ("Long", "Double")),
    ("nll-int32-target", lambda t: t.nn.NLLLoss()(_x(t, 4, 5), t.tensor([0, 1, 2, 3], dtype=t.int32)), ("nll_loss", "Int")),
    ("nll-batch-mismatch", lambda t: t.nn.NLLLoss()(_x(t, 4, 5), _long(t, [0, 1, 2])), ("nll_loss", "(4)", "(3)")),
    ("ce-spatial-mismatch", lambda t: t.nn.CrossEntropyLoss()(_x(t, 4, 5, 3), t.zeros(4, 2, dtype=t.int64)), ("[4, 3]", "[4, 2]")),
    ("nll-float-target-batch-first", lambda t: t.nn.NLLLoss()(_x(t, 4, 5), _x(t, 3)), ("nll_loss", "(4)", "(3)")),
    ("nll-float-2d-target-shape-first", lambda t: t.nn.NLLLoss()(_x(t, 4, 5), _x(t, 4, 2)), ("nll_loss", "multi-target", "[4, 2]")),
    ("nll-2d-target", lambda t: t.nn.NLLLoss()(_x(t, 4, 5), t.zeros(4, 1, dtype=t.int64)), ("nll_loss", "multi-target")),
    ("nll-0d-input", lambda t: t.nn.NLLLoss()(_x(t), _long(t, 0)), ("nll_loss", "(got 0)")),
    ("nll-weight-size", lambda t: t.nn.NLLLoss(weight=t.ones(3, dtype=t.float64))(_x(t, 4, 5), _long(t, [0, 1, 2, 3])), ("nll_loss", "5 classes", "[3]")),
    ("ce-probs-ignore_index", lambda t: t.nn.CrossEntropyLoss(ignore_index=1)(_x(t, 4, 5), _x(t, 4, 5)), ("cross_entropy", "ignore_index")),
    ("ce-label_smoothing-range", lambda t: t.nn.CrossEntropyLoss(label_smoothing=1.5)(_x(t, 4, 5), _long(t, [0, 1, 2, 3])), ("cross_entropy", "1.5")),
    ("bad-reduction", lambda t: t.nn.MSELoss(reduction="avg")(_x(t, 3), _x(t, 3)), ("avg",)),
    ("mse-shape", lambda t: t.nn.functional.mse_loss(_x(t, 4, 5), _x(t, 3, 5)), ("mse_loss", "[4, 5]", "[3, 5]", "dimension 0")),
    ("l1-shape", lambda t: t.nn.L1Loss()(_x(t, 2, 4, 5), _x(t, 4, 6)), ("l1_loss", "[2, 4, 5]", "[4, 6]", "dimension 2")),
    ("kl-shape", lambda t: t.nn.KLDivLoss(reduction="sum")(_x(t, 4, 5), _x(t, 3, 5)), ("kl_div", "[3, 5]")),
    ("poisson-shape", lambda t: t.nn.PoissonNLLLoss()(_x(t, 4, 5), _x(t, 3, 5)), ("poisson_nll_loss", "[3, 5]")),
    ("soft-margin-shape", lambda t: t.nn.SoftMarginLoss()(_x(t, 4, 5), _x(t, 3, 5)), ("soft_margin_loss", "[3, 5]")),
    ("hinge-shape", lambda t: t.nn.HingeEmbeddingLoss()(_x(t, 4, 5), _x(t, 3, 5)), ("hinge_embedding_loss", "[3, 5]")),
    ("cosine-shape", lambda t: t.nn.CosineEmbeddingLoss()(_x(t, 4, 5), _x(t, 4, 4), _x(t, 4)), ("cosine_embedding_loss", "[4, 4]")),
    ("mse-weight-size", lambda t: t.nn.functional.mse_loss(_x(t, 4, 5), _x(t, 4, 5), weight=_x(t, 5)), ("mse_loss", "same size")),
    ("bce-shape", lambda t: t.nn.BCELoss()(_x(t, 4, 5).sigmoid(), _x(t, 3, 5).sigmoid()), ("binary_cross_entropy", "[3, 5]", "[4, 5]")),
    ("bce-range", lambda t: t.nn.BCELoss()(_x(t, 4, 5), _x(t, 4, 5).sigmoid()), ("binary_cross_entropy", "between 0 and 1")),
    ("bce-logits-shape", lambda t: t.nn.BCEWithLogitsLoss()(_x(t, 4, 5), _x(t, 4)), ("binary_cross_entropy_with_logits", "[4]", "[4, 5]")),
    ("bce-weight-shape", lambda t: t.nn.BCELoss(weight=t.ones(3, dtype=t.float64))(_x(t, 4, 5).sigmoid(), _x(t, 4, 5).sigmoid()), ("binary_cross_entropy", "[3]")),
    ("bce-logits-pos_weight-shape", lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.ones(3, dtype=t.float64))(_x(t, 4, 5), _x(t, 4, 5)), ("binary_cross_entropy_with_logits", "pos_weight", "[3]")),
    ("smooth_l1-negative-beta", lambda t: t.nn.SmoothL1Loss(beta=-1.0)(_x(t, 3), _x(t, 3)), ("smooth_l1_loss", "beta")),
    ("huber-zero-delta", lambda t: t.nn.HuberLoss(delta=0.0)(_x(t, 3), _x(t, 3)), ("huber_loss", "delta")),
    ("cosine-3d", lambda t: t.nn.CosineEmbeddingLoss()(_x(t, 2, 4, 5), _x(t, 2, 4, 5), _long(t, [1, -1])), ("cosine_embedding_loss", "[2, 4, 5]")),
    ("gaussian-var-size", lambda t: t.nn.GaussianNLLLoss()(_x(t, 4, 5), _x(t, 4, 5), t.ones(3, dtype=t.float64)), ("gaussian_nll_loss", "var is of incorrect size")),
    ("gaussian-negative-var", lambda t: t.nn.GaussianNLLLoss()(_x(t, 4, 5), _x(t, 4, 5), -t.ones(4, 5, dtype=t.float64)), ("gaussian_nll_loss", "negative")),
    ("margin-ranking-dims", lambda t: t.nn.MarginRankingLoss()(_x(t, 3), _x(t, 3), t.ones(3, 1)), ("margin_ranking_loss", "[3, 1]")),
    ("multi-margin-p", lambda t: t.nn.functional.multi_margin_loss(_x(t, 4, 5), _long(t, [0, 1, 2, 3]), p=3), ("p == 1",)),
    ("multi-margin-target-range", lambda t: t.nn.MultiMarginLoss()(_x(t, 4, 5), _long(t, [0, 1, 2, 9])), ("multi_margin_loss", "out of range")),
    ("multi-margin-batch", lambda t: t.nn.MultiMarginLoss()(_x(t, 4, 5), _long(t, [0, 1, 2])), ("multi_margin_loss", "[3]", "[4, 5]")),
    ("multilabel-margin-shape", lambda t: t.nn.MultiLabelMarginLoss()(_x(t, 4, 5), t.zeros(4, 4, dtype=t.int64)), ("multilabel_margin_loss", "[4, 4]", "[4, 5]")),
    ("multilabel-margin-range", lambda t: t.nn.MultiLabelMarginLoss()(_x(t, 4, 5), t.full((4, 5), 7, dtype=t.int64)), ("multilabel_margin_loss", "out of range")),
    ("triplet-dims", lambda t: t.nn.TripletMarginLoss()(_x(t, 4, 5), _x(t, 4, 5), _x(t, 5)), ("triplet_margin_loss", "1D")),
    ("ctc-input-length", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4).log_softmax(2), t.ones(2, 3, dtype=t.int64), [6, 5], [3, 3]), ("ctc_loss", "at most 5", "6")),
    ("ctc-target-length", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4).log_softmax(2), t.ones(2, 3, dtype=t.int64), [5, 5], [4, 3]), ("ctc_loss", "at least 4")),
    ("ctc-blank", lambda t: t.nn.CTCLoss(blank=4)(_x(t, 5, 2, 4).log_softmax(2), t.ones(2, 3, dtype=t.int64), [5, 5], [3, 3]), ("ctc_loss", "blank")),
    ("ctc-concatenated-too-short", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4).log_softmax(2), t.ones(4, dtype=t.int64), [5, 5], [3, 3]), ("ctc_loss", "size 6", "size 4")),
    ("ctc-float-lengths", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4).log_softmax(2), t.ones(2, 3, dtype=t.int64), t.tensor([5.0, 5.0]), t.tensor([3, 3])), ("ctc_loss", "integral")),
    ("ctc-4d", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4, 1), t.ones(2, 3, dtype=t.int64), [5, 5], [3, 3]), ("ctc_loss", "[5, 2, 4, 1]")),
    ("adaptive-cutoffs-repeated", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]), ("cutoffs",)),
    ("adaptive-cutoffs-too-large", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [10]), ("n_classes-1",)),
    ("adaptive-cutoffs-empty", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []), ("length larger than 0",)),
    ("adaptive-target-range", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(_x(t, 2, 8), _long(t, [1, 12])), ("AdaptiveLogSoftmaxWithLoss", "[0, 9]", "[1, 12]")),
    ("adaptive-batch", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(_x(t, 2, 8), _long(t, [1, 2, 3])), ("AdaptiveLogSoftmaxWithLoss", "batch dimension")),
    ("adaptive-3d-input", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(_x(t, 2, 2, 8), _long(t, [1, 2])), ("AdaptiveLogSoftmaxWithLoss", "2D input", "[2, 2, 8]")),
    ("adaptive-2d-target", lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(_x(t, 2, 8), _long(t, [[1], [2]])), ("AdaptiveLogSoftmaxWithLoss", "multi-target")),
    ("linear-ce-weight-shape", lambda t: t.nn.LinearCrossEntropyLoss(8, 5, weight=t.ones(4)), ("LinearCrossEntropyLoss", "(5,)", "(4,)")),
    ("linear-ce-smoothing", lambda t: t.nn.LinearCrossEntropyLoss(8, 5, label_smoothing=2.0), ("LinearCrossEntropyLoss", "2.0")),
    ("linear-ce-3d-input", lambda t: t.nn.LinearCrossEntropyLoss(8, 5)(_x(t, 2, 3, 8), t.zeros(2, 3, dtype=t.int64)), ("linear_cross_entropy", "got 3")),
    ("ctc-lengths-batch", lambda t: t.nn.CTCLoss()(_x(t, 5, 2, 4).log_softmax(2), t.ones(2, 3, dtype=t.int64), [5], [3, 3]), ("ctc_loss", "batch_size")),
]


@pytest.mark.parametrize("call,fragments", [(c, f) for _, c, f in ERRORS], ids=[i for i, _, _ in ERRORS])
def test_errors_as_pytorch(call: Callable[[Any], Any], fragments: Tuple[str, ...]) -> None:
    with pytest.raises(Exception) as theirs:
        call(pt)
    with pytest.raises(type(theirs.value)) as ours:
        call(torch)
    assert type(ours.value) is type(theirs.value)
    for fragment in fragments:
        assert fragment in str(ours.value)


@pytest.mark.parametrize("ctor,legacy", [("MSELoss", dict(size_average=False)), ("NLLLoss", dict(reduce=False)), ("KLDivLoss", dict(size_average=True, reduce=True))])
def test_deprecated_flags_warn_as_pytorch(ctor: str, legacy: dict) -> None:
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = getattr(pt.nn, ctor)(**legacy).reduction
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = getattr(torch.nn, ctor)(**legacy).reduction
    assert got == want
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_size_mismatch_warns() -> None:
    with pytest.warns(UserWarning, match=re.escape("Using a target size (torch.Size([4])) that is different to the input size (torch.Size([3, 4]))")):
        torch.nn.functional.l1_loss(torch.zeros(3, 4), torch.zeros(4))


def _both(fn: Callable[[Any, List[Any]], Any], *arrays: np.ndarray, grad: Tuple[int, ...] = (0,)) -> None:
    """Runs ``fn(lib, tensors)`` in both libraries and compares the value and input gradients."""
    outs, grads = [], []
    for lib in (torch, pt):
        ts = [lib.from_numpy(a.copy()) for a in arrays]
        for i in grad:
            ts[i].requires_grad_(True)
        out = fn(lib, ts)
        out.sum().backward()
        outs.append(out)
        grads.append([ts[i].grad for i in grad])
    assert_close(outs[0], outs[1], 1e-6, 1e-8, what="value")
    for k, (a, b) in enumerate(zip(*grads)):
        assert_close(a, b, 1e-6, 1e-8, what=f"grad {k}")


RNG = np.random.default_rng(7)
X, Y, W = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)), RNG.uniform(0.1, 2.0, (4, 3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_elementwise_weight_argument(name: str, reduction: str) -> None:
    _both(lambda t, a: getattr(t.nn.functional, name)(a[0], a[1], reduction=reduction, weight=a[2]), X, Y, W, grad=(0, 1, 2))


def test_functional_legacy_flags() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _both(lambda t, a: t.nn.functional.smooth_l1_loss(a[0], a[1], size_average=False, beta=0.5), X, Y, grad=(0, 1))
        _both(lambda t, a: t.nn.functional.cross_entropy(a[0], t.tensor([0, 2, 1, 1]), reduce=False), X)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_through_log_softmax(zero_infinity: bool) -> None:
    # The way programs call it: logits -> log_softmax -> ctc_loss; 3 samples of varied lengths.
    logits = RNG.standard_normal((15, 3, 6))
    targets = np.array([[1, 2, 3, 3, 5], [2, 2, 0, 0, 0], [5, 4, 3, 2, 1]])
    _both(lambda t, a: t.nn.functional.ctc_loss(a[0].log_softmax(2), t.from_numpy(targets), t.tensor([15, 12, 9]), t.tensor([5, 2, 5]), blank=0, zero_infinity=zero_infinity), logits)


def test_gaussian_nll_float_var_and_kl_div_mean_warning() -> None:
    _both(lambda t, a: t.nn.functional.gaussian_nll_loss(a[0], a[1], 0.25, full=True, reduction="none"), X, Y, grad=(0, 1))
    with pytest.warns(UserWarning, match="batchmean"):
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3) / 3)


def test_triplet_with_distance_module_argument() -> None:
    # A module distance is registered as a child, so it shows in the repr as in PyTorch.
    class L1(torch.nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return (a - b).abs().sum(-1)

    loss = torch.nn.TripletMarginWithDistanceLoss(distance_function=L1(), margin=0.5)
    assert repr(loss) == "TripletMarginWithDistanceLoss(\n  (distance_function): L1()\n)"
    a, p, n = (torch.tensor(v, dtype=torch.float64) for v in ([[0.0, 0.0]], [[1.0, 1.0]], [[0.5, 0.0]]))
    assert loss(a, p, n).item() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="margin"):
        torch.nn.TripletMarginWithDistanceLoss(margin=0.0)


def test_non_contiguous_inputs() -> None:
    # Transposed and sliced views: class dim strided, target a strided slice.
    logits = RNG.standard_normal((5, 6))
    _both(lambda t, a: t.nn.functional.cross_entropy(a[0].t(), t.tensor([0, 4, 1, 2, 3, 3, 0, 1, 2, 4, 0, 1])[::2], label_smoothing=0.1), logits)
    spatial = RNG.standard_normal((2, 3, 4, 5))
    _both(lambda t, a: t.nn.functional.cross_entropy(a[0].permute(0, 3, 1, 2), t.zeros(2, 3, 4, dtype=t.int64) + 1), spatial)
    _both(lambda t, a: t.nn.functional.mse_loss(a[0].t(), a[1][:, ::2]), RNG.standard_normal((4, 3)), RNG.standard_normal((3, 8)), grad=(0, 1))


def test_losses_importable_from_modules_loss() -> None:
    # Programs import from torch.nn.modules.loss, and subclass its _Loss / _WeightedLoss.
    from ferrotorch.nn.modules import loss as ours

    theirs = [n for n in dir(pt.nn.modules.loss) if n.endswith("Loss")]
    assert [n for n in theirs if not hasattr(ours, n)] == []

    class Scaled(ours._WeightedLoss):
        def forward(self, input: Any, target: Any) -> Any:
            return torch.nn.functional.mse_loss(input * self.weight, target, reduction=self.reduction)

    with pytest.warns(UserWarning, match="reduction='sum'"):
        loss = Scaled(torch.tensor([2.0]), size_average=False)
    assert loss.reduction == "sum" and list(loss.state_dict()) == ["weight"]
    assert loss(torch.ones(3), torch.zeros(3)).item() == 12.0


@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_log_softmax_log_prob_and_predict(batched: bool) -> None:
    pt.manual_seed(0)
    theirs = pt.nn.AdaptiveLogSoftmaxWithLoss(6, 12, [3, 7], div_value=2.0, head_bias=True, dtype=pt.float64)
    ours = torch.nn.AdaptiveLogSoftmaxWithLoss(6, 12, [3, 7], div_value=2.0, head_bias=True, dtype=torch.float64)
    ours.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()})
    x = RNG.standard_normal((5, 6) if batched else (6,))
    if batched:  # PyTorch's log_prob/predict take batches only (ours also accept one sample)
        assert_close(ours.log_prob(torch.from_numpy(x)), theirs.log_prob(pt.from_numpy(x)), 1e-10, 1e-12, what="log_prob")
        assert ours.predict(torch.from_numpy(x)).tolist() == theirs.predict(pt.from_numpy(x)).tolist()
    target = [0, 4, 11, 7, 2] if batched else 9
    out, want = ours(torch.from_numpy(x), torch.tensor(target)), theirs(pt.from_numpy(x), pt.tensor(target))
    assert out._fields == want._fields
    assert_close(out.output, want.output, 1e-10, 1e-12, what="output")
    assert_close(out.loss, want.loss, 1e-10, 1e-12, what="loss")


@pytest.mark.parametrize("size_average", [None, True, False])
@pytest.mark.parametrize("reduce", [None, True, False])
def test_reduction_helpers_as_torch(size_average: Any, reduce: Any) -> None:
    from ferrotorch.nn import _reduction as ours

    theirs = pt.nn._reduction
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ours.legacy_get_string(size_average, reduce) == theirs.legacy_get_string(size_average, reduce)
        assert ours.legacy_get_enum(size_average, reduce, False) == theirs.legacy_get_enum(size_average, reduce, False)
    assert [ours.get_enum(r) for r in ("none", "mean", "sum")] == [theirs.get_enum(r) for r in ("none", "mean", "sum")]
    with pytest.warns(UserWarning, match="elementwise_mean"):
        assert ours.get_enum("elementwise_mean") == 1
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        ours.get_enum("avg")

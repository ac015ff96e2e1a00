"""``optim.swa_utils`` side by side with PyTorch: AveragedModel under each averaging function,
update_bn, and the errors. (SWALR runs in tests/test_lr_scheduler_table.py.)"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from tests.torch_oracle import assert_close, needs_torch, pt, to_pt

UPDATES = 5


def make_models(seed: int) -> Tuple[Any, Any]:
    """The same small network with BatchNorm in both libraries (ferrotorch's weights copied)."""
    torch.manual_seed(seed)
    ours = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    theirs = pt.nn.Sequential(pt.nn.Linear(3, 4), pt.nn.BatchNorm1d(4), pt.nn.ReLU(), pt.nn.Linear(4, 2))
    theirs.load_state_dict({k: to_pt(v) for k, v in ours.state_dict().items()})
    return ours, theirs


def perturb(ours: Any, theirs: Any, step: int) -> None:
    """New weights (and BatchNorm statistics, via one training batch) for the next update."""
    rng = np.random.default_rng(step)
    with torch.no_grad(), pt.no_grad():
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            values = rng.standard_normal(tuple(p.shape)).astype(np.float32)
            p.copy_(torch.from_numpy(values))
            q.copy_(pt.from_numpy(values.copy()))
    batch = rng.standard_normal((6, 3)).astype(np.float32)
    ours.train()
    theirs.train()
    ours(torch.from_numpy(batch))
    theirs(pt.from_numpy(batch.copy()))


def compare_states(ours: Dict[str, Any], theirs: Dict[str, Any], what: str) -> None:
    assert list(ours) == list(theirs), what
    for k in ours:
        assert_close(ours[k], theirs[k], rtol=1e-5, atol=1e-6, what=f"{what} {k}")


AvgCase = Callable[[Any], Dict[str, Any]]
AVERAGING_CASES: List[Tuple[str, AvgCase]] = [
    ("swa", lambda S: {}),
    ("swa-with-buffers", lambda S: {"use_buffers": True}),
    ("ema-avg-fn", lambda S: {"avg_fn": S.get_ema_avg_fn(0.9)}),
    ("swa-avg-fn", lambda S: {"avg_fn": S.get_swa_avg_fn()}),
    ("ema-multi-avg-fn", lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8)}),
    ("swa-multi-avg-fn", lambda S: {"multi_avg_fn": S.get_swa_multi_avg_fn()}),
    ("ema-multi-default-decay", lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(), "use_buffers": True}),
]


@needs_torch
@pytest.mark.parametrize("name,kwargs", AVERAGING_CASES, ids=[c[0] for c in AVERAGING_CASES])
def test_averaged_model_matches_pytorch(name: str, kwargs: AvgCase) -> None:
    ours, theirs = make_models(0)
    avg_ours = torch.optim.swa_utils.AveragedModel(ours, **kwargs(torch.optim.swa_utils))
    avg_theirs = pt.optim.swa_utils.AveragedModel(theirs, **kwargs(pt.optim.swa_utils))
    compare_states(avg_ours.state_dict(), avg_theirs.state_dict(), "before any update")
    for step in range(UPDATES):
        perturb(ours, theirs, step)
        avg_ours.update_parameters(ours)
        avg_theirs.update_parameters(theirs)
        compare_states(avg_ours.state_dict(), avg_theirs.state_dict(), f"after update {step}")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    avg_ours.eval()
    avg_theirs.eval()
    assert_close(avg_ours(torch.from_numpy(x)), avg_theirs(pt.from_numpy(x.copy())), what="forward")


@needs_torch
@pytest.mark.parametrize("as_pairs", [False, True], ids=["tensors", "pairs"])
def test_update_bn_matches_pytorch(as_pairs: bool) -> None:
    ours, theirs = make_models(1)
    ours[1].momentum, theirs[1].momentum = 0.3, 0.3
    rng = np.random.default_rng(7)
    batches = [rng.standard_normal((5, 3)).astype(np.float32) * (i + 1) for i in range(4)]
    if as_pairs:
        loader_ours: List[Any] = [(torch.from_numpy(b), torch.zeros(5)) for b in batches]
        loader_theirs: List[Any] = [(pt.from_numpy(b.copy()), pt.zeros(5)) for b in batches]
    else:
        loader_ours = [torch.from_numpy(b) for b in batches]
        loader_theirs = [pt.from_numpy(b.copy()) for b in batches]
    ours.eval()
    theirs.eval()
    torch.optim.swa_utils.update_bn(loader_ours, ours)
    pt.optim.swa_utils.update_bn(loader_theirs, theirs)
    compare_states(ours.state_dict(), theirs.state_dict(), "after update_bn")
    # The momentum and the train/eval mode are given back.
    assert ours[1].momentum == 0.3 and not ours.training


@needs_torch
def test_update_bn_without_batchnorm_leaves_model_alone() -> None:
    model = torch.nn.Linear(3, 2)
    model.eval()
    torch.optim.swa_utils.update_bn([torch.ones(2, 3)], model)
    assert not model.training


ERROR_CASES: List[Tuple[str, Callable[[Any, Any], Any]]] = [
    ("both-averaging-functions", lambda S, m: S.AveragedModel(m, avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn())),
    ("ema-decay-above-one", lambda S, m: S.get_ema_avg_fn(1.5)),
    ("ema-multi-decay-negative", lambda S, m: S.get_ema_multi_avg_fn(-0.1)),
    ("swa-list-average-of-integers", lambda S, m: S.get_swa_multi_avg_fn()([m[1].num_batches_tracked], [m[1].num_batches_tracked + 2], 1)),
]


def _swa_list_average_of_integer_buffers(S: Any, m: Any) -> None:
    avg = S.AveragedModel(m, multi_avg_fn=S.get_swa_multi_avg_fn(), use_buffers=True)
    avg.update_parameters(m)
    avg.update_parameters(m)


@needs_torch
@pytest.mark.parametrize("name,make", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_pytorch(name: str, make: Callable[[Any, Any], Any]) -> None:
    ours, theirs = make_models(2)
    with pytest.raises(Exception) as mine:
        make(torch.optim.swa_utils, ours)
    with pytest.raises(Exception) as reference:
        make(pt.optim.swa_utils, theirs)
    assert type(mine.value) is type(reference.value) and str(mine.value) == str(reference.value)


@needs_torch
def test_swa_list_average_refuses_integer_buffers_as_pytorch() -> None:
    ours, theirs = make_models(3)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        _swa_list_average_of_integer_buffers(torch.optim.swa_utils, ours)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        _swa_list_average_of_integer_buffers(pt.optim.swa_utils, theirs)

"""The functional forms of the normalization, embedding and distance layers against PyTorch:
arguments the modules do not reach (explicit running stats, repeated calls, in-place weight
renormalization, empty bags), values and float64 gradients."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def _pair(*shape: int, seed: int = 0, grad: bool = True):
    x = pt.from_numpy(np.random.default_rng(seed).standard_normal(shape)).requires_grad_(grad)
    return to_ft(x), x


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_running_stats(use_input_stats: bool) -> None:
    xo, xt = _pair(3, 2, 5)
    wo, wt = _pair(2, seed=1)
    rm_t, rv_t = pt.tensor([0.5, -1.0], dtype=pt.float64), pt.tensor([2.0, 0.5], dtype=pt.float64)
    rm_o, rv_o = to_ft(rm_t), to_ft(rv_t)
    yo = torch.nn.functional.instance_norm(xo, rm_o, rv_o, weight=wo, use_input_stats=use_input_stats, momentum=0.25, eps=1e-3)
    yt = pt.nn.functional.instance_norm(xt, rm_t, rv_t, weight=wt, use_input_stats=use_input_stats, momentum=0.25, eps=1e-3)
    assert_close(yo, yt, **TIGHT)
    assert_close(rm_o, rm_t, **TIGHT, what="running_mean")
    assert_close(rv_o, rv_t, **TIGHT, what="running_var")
    yo.sum().backward()
    yt.sum().backward()
    assert_close(xo.grad, xt.grad, **TIGHT)
    assert_close(wo.grad, wt.grad, **TIGHT)


def test_batchnorm_cumulative_average_over_batches() -> None:
    ours = torch.nn.BatchNorm1d(3, momentum=None, dtype=torch.float64)
    theirs = pt.nn.BatchNorm1d(3, momentum=None, dtype=pt.float64)
    for seed in range(4):
        xo, xt = _pair(5, 3, seed=seed, grad=False)
        ours(xo)
        theirs(xt)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_close(getattr(ours, name), getattr(theirs, name), **TIGHT, what=name)


def test_instance_norm_warns_when_channels_differ_without_affine() -> None:
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        torch.nn.InstanceNorm1d(4)(torch.randn(2, 3, 5))


@pytest.mark.parametrize("size", [1, 2, 5])
def test_local_response_norm(size: int) -> None:
    xo, xt = _pair(2, 4, 3, 3)
    yo = torch.nn.functional.local_response_norm(xo, size, alpha=0.3, beta=0.6, k=0.5)
    yt = pt.nn.functional.local_response_norm(xt, size, alpha=0.3, beta=0.6, k=0.5)
    assert_close(yo, yt, **TIGHT)
    yo.sum().backward()
    yt.sum().backward()
    assert_close(xo.grad, xt.grad, **TIGHT)


def test_embedding_max_norm_renormalizes_weight_in_place() -> None:
    wt = pt.from_numpy(np.random.default_rng(0).standard_normal((6, 3)) * 3)
    wo = to_ft(wt)
    idx = [[0, 2], [2, 5]]
    yo = torch.nn.functional.embedding(torch.tensor(idx), wo, max_norm=1.0, norm_type=2.0)
    yt = pt.nn.functional.embedding(pt.tensor(idx), wt, max_norm=1.0, norm_type=2.0)
    assert_close(yo, yt, **TIGHT)
    assert_close(wo, wt, **TIGHT, what="weight after forward")
    # Rows not looked up keep their norm.
    assert float(wo[1].norm()) > 1.0


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_empty_bags_and_last_offset(mode: str) -> None:
    wo, wt = _pair(7, 3)
    values, offsets = [3, 1, 1, 6, 0], [0, 0, 2, 2, 5]
    kw = {"mode": mode, "include_last_offset": True}
    yo = torch.nn.functional.embedding_bag(torch.tensor(values), wo, torch.tensor(offsets), **kw)
    yt = pt.nn.functional.embedding_bag(pt.tensor(values), wt, pt.tensor(offsets), **kw)
    assert_close(yo, yt, **TIGHT)
    g = np.random.default_rng(3).standard_normal(tuple(yt.shape))
    yo.backward(torch.from_numpy(g.copy()))
    yt.backward(pt.from_numpy(g.copy()))
    assert_close(wo.grad, wt.grad, **TIGHT)


def test_embedding_bag_per_sample_weights_gradient() -> None:
    wo, wt = _pair(5, 2)
    so, st = _pair(6, seed=2)
    kw = {"mode": "sum", "padding_idx": 4}
    yo = torch.nn.functional.embedding_bag(torch.tensor([4, 1, 2, 4, 0, 1]), wo, torch.tensor([0, 3]), per_sample_weights=so, **kw)
    yt = pt.nn.functional.embedding_bag(pt.tensor([4, 1, 2, 4, 0, 1]), wt, pt.tensor([0, 3]), per_sample_weights=st, **kw)
    assert_close(yo, yt, **TIGHT)
    yo.sum().backward()
    yt.sum().backward()
    assert_close(wo.grad, wt.grad, **TIGHT)
    assert_close(so.grad, st.grad, **TIGHT)


@pytest.mark.parametrize("p", [1.0, 2.0, 0.5, float("inf")])
def test_pdist(p: float) -> None:
    xo, xt = _pair(5, 3)
    yo, yt = torch.nn.functional.pdist(xo, p), pt.nn.functional.pdist(xt, p)
    assert_close(yo, yt, **TIGHT)
    yo.sum().backward()
    yt.sum().backward()
    assert_close(xo.grad, xt.grad, **TIGHT)


def test_cosine_similarity_tiny_vector_gradient() -> None:
    # Below eps the norm is clamped in value only: PyTorch's gradient still flows through it.
    xo, xt = _pair(2, 4)
    with pt.no_grad():
        xt[1] *= 1e-10
    xo = to_ft(xt)
    yo_, yt_ = _pair(2, 4, seed=5, grad=False)
    yo = torch.nn.functional.cosine_similarity(xo, yo_, dim=1, eps=1e-6)
    yt = pt.nn.functional.cosine_similarity(xt, yt_, dim=1, eps=1e-6)
    assert_close(yo, yt, **TIGHT)
    yo.sum().backward()
    yt.sum().backward()
    assert_close(xo.grad, xt.grad, rtol=1e-8, atol=1e-8)


def test_batchnorm_loads_checkpoint_without_num_batches_tracked() -> None:
    src = pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.BatchNorm1d(3), pt.nn.InstanceNorm1d(3, track_running_stats=True))
    sd = {k: v for k, v in src.state_dict().items() if not k.endswith("num_batches_tracked")}
    ours = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.InstanceNorm1d(3, track_running_stats=True))
    theirs = pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.BatchNorm1d(3), pt.nn.InstanceNorm1d(3, track_running_stats=True))
    ours[1].num_batches_tracked.fill_(5)
    theirs[1].num_batches_tracked.fill_(5)
    ours_sd = {k: to_ft(v) for k, v in sd.items()}
    report_o, report_t = ours.load_state_dict(ours_sd), theirs.load_state_dict(sd)
    assert report_o.missing_keys == report_t.missing_keys == []
    assert int(ours[1].num_batches_tracked) == int(theirs[1].num_batches_tracked) == 5
    # The caller's dict is left as it was.
    assert sorted(ours_sd) == sorted(sd)


def test_untracked_instance_norm_rejects_running_stats_like_pytorch() -> None:
    src = pt.nn.InstanceNorm1d(3, track_running_stats=True)
    sd = dict(src.state_dict())
    errors = []
    for lib, d in ((torch, {k: to_ft(v) for k, v in sd.items()}), (pt, sd)):
        m = lib.nn.Sequential(lib.nn.InstanceNorm1d(3))
        with pytest.raises(RuntimeError) as e:
            m.load_state_dict({"0." + k: v for k, v in d.items()}, strict=False)
        errors.append(str(e.value))
    assert errors[0] == errors[1]

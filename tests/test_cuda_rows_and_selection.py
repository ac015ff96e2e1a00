"""The CUDA forwards of the row ops (softmax, log_softmax, layer norm), the selections (where,
masked_fill, gather, index_select, index_add: embeddings forward and backward) and the fused
optimizer steps match the CPU on every layout, gradients included. Skipped without a GPU:
these have not run on hardware yet (see the README)."""

from typing import Any, Callable

import numpy as np
import pytest
from cuda_checks import both as _both
from cuda_checks import gpu

import ferrotorch as torch
import ferrotorch.nn.functional as F


@gpu
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_any_dim_and_layout(log: bool, dim: int) -> None:
    x = torch.randn(4, 6, 5, dtype=torch.float64)
    for view in (x, x.transpose(0, 2), x[:, ::2]):
        _both(lambda t: t.log_softmax(dim) if log else t.softmax(dim), view.contiguous())
        _both(lambda t: (t.transpose(0, 1).log_softmax(dim) if log else t.transpose(0, 1).softmax(dim)), view.contiguous())


@gpu
@pytest.mark.parametrize("shape,normalized", [((3, 8), (8,)), ((2, 3, 4, 5), (4, 5)), ((0, 4), (4,))])
def test_layer_norm_forward_backward(shape: Any, normalized: Any) -> None:
    x = torch.randn(*shape, dtype=torch.float64)
    w = torch.randn(*normalized, dtype=torch.float64)
    b = torch.randn(*normalized, dtype=torch.float64)
    _both(lambda t, ww, bb: F.layer_norm(t, normalized, ww, bb, eps=1e-3), x, w, b)


@gpu
def test_where_and_masked_fill() -> None:
    x = torch.randn(5, 4, dtype=torch.float64)
    y = torch.randn(4, dtype=torch.float64)
    m = torch.randn(5, 4) > 0
    _both(lambda a, b: torch.where(m.to(a.device), a, b), x, y)
    _both(lambda a: a.masked_fill(m.to(a.device), -1.5), x)
    _both(lambda a: torch.where(m.to(a.device), a, 0.0), x)


@gpu
def test_gather_index_select_index_add_and_embedding() -> None:
    x = torch.randn(6, 5, dtype=torch.float64)
    idx = torch.tensor([[0, 4, 2], [5, 5, 1]])
    _both(lambda t: t.gather(0, idx[:, :3].t().contiguous().to(t.device) % 5), x[:5])
    _both(lambda t: t.index_select(0, torch.tensor([3, 0, 3]).to(t.device)), x)
    _both(lambda t: t.t().index_select(1, torch.tensor([1, 2]).to(t.device)), x)
    src = torch.randn(3, 5, dtype=torch.float64)
    _both(lambda t, s: t.index_add(0, torch.tensor([1, 1, 4]).to(t.device), s, alpha=2.0), x, src)
    emb = torch.randn(10, 3, dtype=torch.float64)
    _both(lambda w: F.embedding(torch.tensor([[1, 2, 1], [9, 0, 1]]).to(w.device), w), emb)
    with pytest.raises(IndexError):
        x.cuda().index_select(0, torch.tensor([6]).cuda())


@gpu
def test_cross_entropy_on_the_device() -> None:
    logits = torch.randn(7, 4, dtype=torch.float64)
    target = torch.tensor([0, 3, 1, 1, 2, -100, 0])
    for reduction in ("mean", "sum", "none"):
        _both(lambda z: F.cross_entropy(z, target.to(z.device), reduction=reduction), logits)


@gpu
@pytest.mark.parametrize("make", [
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-2),
    lambda ps: torch.optim.Adam(ps, lr=1e-2, amsgrad=True),
    lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1),
])
def test_fused_optimizer_steps_match_the_cpu(make: Callable[[Any], Any]) -> None:
    w = torch.randn(17, 3, dtype=torch.float64)
    runs = []
    for device in ("cpu", "cuda"):
        p = torch.nn.Parameter(w.clone().to(device))
        opt = make([p])
        for step in range(3):
            opt.zero_grad()
            ((p * (step + 1.0)) ** 2).sum().backward()
            opt.step()
        runs.append(p.detach().cpu().numpy())
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-9, atol=1e-12)


@gpu
def test_dropout_keeps_the_device_and_scale() -> None:
    x = torch.ones(1000, device="cuda")
    y = F.dropout(x, p=0.25, training=True)
    assert y.device.type == "cuda"
    vals = set(np.unique(y.cpu().numpy()).astype(np.float64).round(6).tolist())
    assert vals <= {0.0, round(1 / 0.75, 6)}

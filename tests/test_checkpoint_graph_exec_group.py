"""torch.utils.checkpoint.GraphExecGroup against PyTorch: backward calls under one group share
one recomputation of each checkpointed block (counted), gradients are unchanged, outside a
group every call recomputes, and groups do not nest."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def run(lib, grouped_calls, blocks):
    """Checkpoints ``blocks`` chained blocks whose x and w gradients go through separate
    nodes, then takes the x and w gradients in separate calls, under a group or not."""
    ck = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    calls = [0]
    w = lib.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    x = lib.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)

    def block(a):
        calls[0] += 1
        return a.exp() * 0.5 + w.exp()

    h = x
    for _ in range(blocks):
        h = ck.checkpoint(block, h, use_reentrant=False)
    y = h.sum()
    grads = []
    if grouped_calls:
        with ck.GraphExecGroup() as group:
            assert ck.GraphExecGroup._get_current_group() is group
            grads += lib.autograd.grad(y, x, retain_graph=True)
            grads += lib.autograd.grad(y, w, retain_graph=True)
    else:
        grads += lib.autograd.grad(y, x, retain_graph=True)
        grads += lib.autograd.grad(y, w, retain_graph=True)
    assert ck.GraphExecGroup._get_current_group() is None
    return calls[0], [g.detach().numpy() for g in grads]


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("blocks", [1])
def test_recomputes_once_per_group(grouped, blocks):
    ours_calls, ours = run(torch, grouped, blocks)
    theirs_calls, theirs = run(pt, grouped, blocks)
    assert ours_calls == theirs_calls
    assert ours_calls == blocks * (2 if grouped else 3)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-12)


def test_groups_do_not_nest():
    from ferrotorch.utils.checkpoint import GraphExecGroup

    with GraphExecGroup():
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            with GraphExecGroup():
                pass
    with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
        with pt.utils.checkpoint.GraphExecGroup():
            with pt.utils.checkpoint.GraphExecGroup():
                pass


def test_a_group_is_a_no_op_without_checkpoints_and_for_the_reentrant_variant():
    from ferrotorch.utils.checkpoint import GraphExecGroup, checkpoint

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with GraphExecGroup():
        (x * x).sum().backward()
        y = checkpoint(lambda a: a.sin(), x, use_reentrant=True).sum()
        y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([1.0, 2.0]) + np.cos([1.0, 2.0]))

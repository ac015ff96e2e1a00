"""A custom autograd.Function with several outputs: backward runs once with the gradients of
all outputs (zeros for unused ones, None never), as PyTorch's does."""

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _split_function(lib, calls):
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * 2, (x * y).sin(), x.argmax(), y + 1

        @staticmethod
        def backward(ctx, ga, gb, gc, gd):
            calls.append((ga.tolist(), gb.tolist(), gd.tolist()))
            x, y = ctx.saved_tensors
            c = (x * y).cos()
            return ga * 2 + gb * c * y, gb * c * x + gd

    return Split


@pytest.mark.parametrize("uses", ["all", "first", "last", "middle_twice"])
def test_backward_runs_once_with_every_output_gradient(uses):
    results = []
    for lib in (pt, torch):
        calls = []
        split = _split_function(lib, calls)
        x = lib.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[1.5, 0.5], [-0.5, 3.0]], dtype=lib.float64, requires_grad=True)
        a, b, c, d = split.apply(x, y)
        loss = {"all": a.sum() * 3 + b.sum() + (d * d).sum(), "first": a.sum(), "last": d.mean(), "middle_twice": b.sum() + (b * b).sum()}[uses]
        loss.backward()
        assert not c.requires_grad and a.shape == (2, 2)
        results.append((x.grad.tolist(), y.grad.tolist(), calls))
    (xg_t, yg_t, calls_t), (xg_o, yg_o, calls_o) = results
    assert len(calls_o) == len(calls_t) == 1
    np.testing.assert_allclose(np.array(calls_o), np.array(calls_t), rtol=1e-12)
    np.testing.assert_allclose(np.array([xg_o, yg_o]), np.array([xg_t, yg_t]), rtol=1e-12)


def test_outputs_of_mixed_dtypes_still_differentiate():
    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, (x * 3).to(torch.float32)

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb.to(torch.float64) * 3

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a, b = Two.apply(x)
    (a.sum() + b.sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0]

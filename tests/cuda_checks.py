"""Shared by the CUDA test files: the GPU skip mark and the CPU-vs-device comparison."""

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch

gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def both(fn: Callable[..., Any], *inputs: Any, rtol: float = 1e-6, grads: bool = True) -> None:
    """fn on CPU float64 leaves and on their CUDA copies: equal outputs and input gradients."""
    cpu = [t.detach().clone().requires_grad_(grads and t.is_floating_point()) for t in inputs]
    dev = [t.detach().cuda().requires_grad_(grads and t.is_floating_point()) for t in inputs]
    out_c, out_d = fn(*cpu), fn(*dev)
    assert out_d.device.type == "cuda"
    np.testing.assert_allclose(out_d.detach().cpu().numpy(), out_c.detach().numpy(), rtol=rtol, atol=1e-9)
    if grads and out_c.requires_grad:
        g = torch.randn(tuple(out_c.shape), dtype=out_c.dtype)
        out_c.backward(g)
        out_d.backward(g.cuda())
        for c, d in zip(cpu, dev):
            if c.grad is not None:
                assert d.grad.device.type == "cuda"
                np.testing.assert_allclose(d.grad.cpu().numpy(), c.grad.numpy(), rtol=rtol, atol=1e-9)

"""Ops that reach the GPU through host memory (no device kernel yet: the work is done on a host
copy and the result comes back to the device, differentiable): sort/argsort/topk, nonzero and
boolean-mask indexing, cummax/cummin, logcumsumexp. Results and input gradients match the CPU;
results stay on the device. Skips cleanly where no CUDA device is available."""

import numpy as np
import pytest
from cuda_checks import both, gpu

import ferrotorch as torch


@gpu
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort_topk(descending: bool) -> None:
    x = torch.randn(4, 7, dtype=torch.float64)
    both(lambda t: t.sort(1, descending=descending).values, x)
    both(lambda t: t.sort(0, descending=descending)[0] * 2, x)
    both(lambda t: t.topk(3, dim=1, largest=not descending).values, x)
    idx = x.cuda().argsort(dim=1, descending=descending)
    assert idx.device.type == "cuda"
    np.testing.assert_array_equal(idx.cpu().numpy(), x.argsort(dim=1, descending=descending).numpy())


@gpu
def test_nonzero_and_mask_indexing() -> None:
    x = torch.randn(5, 6, dtype=torch.float64)
    d = x.cuda()
    nz = (d > 0).nonzero()
    assert nz.device.type == "cuda"
    np.testing.assert_array_equal(nz.cpu().numpy(), (x > 0).nonzero().numpy())
    both(lambda t: t[t > 0] * 3, x)
    both(lambda t: t.masked_select(t < 0.5), x)


@gpu
def test_cumulative_extremes_and_logcumsumexp() -> None:
    x = torch.randn(3, 8, dtype=torch.float64)
    both(lambda t: t.cummax(1).values, x)
    both(lambda t: t.cummin(0).values, x)
    both(lambda t: t.logcumsumexp(1), x)
    both(lambda t: t.cumsum(1) + t.cumprod(0), x)
    i = x.cuda().cummax(1).indices
    assert i.device.type == "cuda"
    np.testing.assert_array_equal(i.cpu().numpy(), x.cummax(1).indices.numpy())

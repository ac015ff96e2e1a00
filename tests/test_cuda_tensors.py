"""Tensors on the GPU: without a driver every CUDA request raises as PyTorch does; with one,
the ops that have CUDA forwards (copy/cast, unary, binary with broadcasting and host scalars,
sum/mean/amax/amin, matmul) match the CPU on every layout, and autograd runs on the device."""

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

no_gpu = not torch.cuda.is_available()
gpu = pytest.mark.skipif(no_gpu, reason="needs a CUDA device")


@pytest.mark.skipif(not no_gpu, reason="checks the no-driver behaviour")
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.ones(3).cuda(),
        lambda: torch.ones(3).to("cuda"),
        lambda: torch.ones(3).to(device="cuda:0"),
        lambda: torch.zeros(2, device="cuda"),
        lambda: torch.randn(2, device="cuda"),
        lambda: torch.tensor([1.0], device="cuda"),
        lambda: torch.arange(3, device="cuda"),
    ],
)
def test_cuda_requests_without_a_driver_raise_runtime_error(make) -> None:
    with pytest.raises(RuntimeError):
        make()


@needs_torch
@pytest.mark.skipif(not no_gpu or (pt is not None and pt.cuda.is_available()), reason="no-GPU parity")
def test_no_driver_error_is_pytorchs() -> None:
    with pytest.raises(RuntimeError) as ours:
        torch.ones(2).cuda()
    with pytest.raises(RuntimeError) as theirs:
        pt.ones(2).cuda()
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def test_cpu_and_to_cpu_return_self_on_the_host() -> None:
    x = torch.ones(3)
    assert x.cpu() is x
    assert x.to("cpu") is x
    assert torch.zeros_like(x).device == x.device
    assert torch.zeros(2, device="cpu").device.type == "cpu"


def _layouts(shape):
    """Contiguous, transposed, sliced and broadcast views of one random array."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal(shape).astype(np.float32)
    x = torch.tensor(base)
    yield "contiguous", x
    if x.dim() >= 2:
        yield "transposed", x.transpose(0, 1)
    if x.dim():
        yield "sliced", x[..., ::2]
    yield "broadcast", x[:1].expand(*x.shape) if x.dim() else x


@gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (4, 5), (3, 4, 6)])
def test_elementwise_and_reductions_match_the_cpu(dtype, shape) -> None:
    for _, x in _layouts(shape):
        x = x.to(dtype)
        d = x.cuda()
        assert d.device.type == "cuda" and d.dtype == dtype
        # The device sums in another order: float32 agrees to a few ulps, not bit for bit.
        tol = dict(rtol=1e-2, atol=1e-2) if dtype in (torch.float16, torch.bfloat16) else dict(rtol=1e-5, atol=1e-6)
        for f in [
            lambda t: t.exp(),
            lambda t: t.tanh(),
            lambda t: t.relu(),
            lambda t: t * 2.5 - 1,
            lambda t: t + t.abs(),
            lambda t: t.sum(),
            lambda t: t.sum(-1) if t.dim() else t.sum(),
            lambda t: t.amax(0) if t.dim() and t.shape[0] else t,
            lambda t: (t > 0).to(torch.float32),
        ]:
            np.testing.assert_allclose(f(d).cpu().float().numpy(), f(x).float().numpy(), **tol)


@gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_matmul_matches_the_cpu_with_transposes_and_batches(dtype) -> None:
    a = torch.randn(3, 5, 4, dtype=dtype)
    b = torch.randn(4, 6, dtype=dtype)
    for x, y in [(a, b), (a.transpose(1, 2).transpose(1, 2), b.t().t()), (a[0], b), (a, b.expand(3, 4, 6))]:
        np.testing.assert_allclose((x.cuda() @ y.cuda()).cpu().numpy(), (x @ y).numpy(), rtol=1e-4, atol=1e-4)


@gpu
def test_mixing_devices_raises_pytorchs_error() -> None:
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(3).cuda() + torch.ones(3)
    # A 0-d host tensor is a scalar to a CUDA op, as in PyTorch.
    assert (torch.ones(3).cuda() + torch.tensor(2.0)).cpu().tolist() == [3.0, 3.0, 3.0]


@gpu
def test_autograd_on_the_device_matches_the_cpu() -> None:
    w = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    x = torch.randn(5, 4, dtype=torch.float64)
    wd = w.detach().cuda().requires_grad_()
    (x @ w).tanh().sum().backward()
    (x.cuda() @ wd).tanh().sum().backward()
    assert wd.grad.device.type == "cuda"
    np.testing.assert_allclose(wd.grad.cpu().numpy(), w.grad.numpy(), rtol=1e-10)

"""Page-locked host memory: ``pin_memory()``/``is_pinned()``, ``non_blocking`` copies and
``DataLoader(pin_memory=True)``. Without a CUDA device (this machine) pinning is refused and the
loader warns and yields its batches unpinned, as PyTorch; the device half skips here."""

import warnings

import numpy as np
import pytest
from cuda_checks import gpu

import ferrotorch as torch
from ferrotorch.utils.data import DataLoader, TensorDataset
from torch_oracle import needs_torch, pt

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the behaviour without a CUDA device")


@needs_torch
def test_plain_tensors_are_not_pinned() -> None:
    for lib in (torch, pt):
        assert lib.arange(4.0).is_pinned() is False
        assert lib.arange(4.0)[1:].is_pinned() is False


@no_gpu
def test_pinning_needs_a_device() -> None:
    with pytest.raises(RuntimeError, match="pin"):
        torch.arange(4.0).pin_memory()
    x = torch.arange(4.0)
    assert x.to("cpu", non_blocking=True) is x


@needs_torch
@no_gpu
@pytest.mark.parametrize("workers", [0, 2])
def test_loader_warns_and_yields_unpinned_batches(workers: int) -> None:
    got = []
    for lib in (torch, pt):
        data = lib.utils.data.TensorDataset(lib.arange(10.0), lib.arange(10))
        loader = lib.utils.data.DataLoader(data, batch_size=4, pin_memory=True, num_workers=workers)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = list(loader)
        assert any("pin_memory" in str(w.message) for w in caught), lib.__name__
        assert not any(t.is_pinned() for b in batches for t in b)
        got.append([[t.numpy() for t in b] for b in batches])
    for ours, theirs in zip(*got):
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)


@gpu
def test_pin_memory_copies_into_page_locked_memory() -> None:
    x = torch.randn(5, 7)[:, 1:]
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    assert p.pin_memory() is p
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    g = torch.randn(3, requires_grad=True)
    g.pin_memory().sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), np.ones(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        torch.ones(2, device="cuda").pin_memory()


@gpu
def test_non_blocking_copies_both_ways() -> None:
    host = torch.randn(1 << 20).pin_memory()
    dev = host.to("cuda", non_blocking=True)
    back = (dev * 2).to("cpu", non_blocking=True)
    assert back.is_pinned()
    torch.cuda.synchronize()
    np.testing.assert_array_equal(back.numpy(), host.numpy() * 2)
    # Blocking copies from pinned memory wait: the source may change right after.
    dev2 = host.to("cuda")
    host.fill_(0.0)
    np.testing.assert_array_equal(dev2.cpu().numpy(), back.numpy() / 2)


@gpu
@pytest.mark.parametrize("workers", [0, 2])
def test_loader_pins_batches(workers: int) -> None:
    data = TensorDataset(torch.arange(10.0), torch.arange(10))
    batches = list(DataLoader(data, batch_size=4, pin_memory=True, num_workers=workers))
    assert all(t.is_pinned() for b in batches for t in b)
    np.testing.assert_array_equal(torch.cat([b[0] for b in batches]).numpy(), np.arange(10.0, dtype=np.float32))

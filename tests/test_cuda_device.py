"""The ``torch.cuda`` API on a GPU: streams and events, allocator statistics, OOM, seeding.

Written as a PyTorch user would; skips cleanly where CUDA is not available. To run the same
tests against PyTorch on a GPU machine: ``FERROTORCH_TEST_TORCH=torch pytest tests/test_cuda_device.py``.
"""

from __future__ import annotations

import gc
import importlib
import os

import pytest

torch = importlib.import_module(os.environ.get("FERROTORCH_TEST_TORCH", "ferrotorch"))

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")

MB = 1024 * 1024


def _rounded(nbytes: int) -> int:
    """The caching allocator's block size for a request: a multiple of 512 bytes."""
    return max(512, (nbytes + 511) // 512 * 512)


def test_device_queries() -> None:
    assert torch.cuda.is_initialized() or torch.cuda.device_count() >= 1
    assert torch.cuda.device_count() >= 1
    dev = torch.cuda.current_device()
    assert 0 <= dev < torch.cuda.device_count()
    assert torch.cuda.is_initialized()
    props = torch.cuda.get_device_properties(dev)
    assert isinstance(props.name, str) and props.name
    assert props.major >= 3 and props.total_memory > 0 and props.multi_processor_count > 0
    assert repr(props).startswith(f"_CudaDeviceProperties(name='{props.name}', major={props.major}")
    assert torch.cuda.get_device_name() == props.name == torch.cuda.get_device_name("cuda:0")
    assert torch.cuda.get_device_capability(0) == (props.major, props.minor)
    free, total = torch.cuda.mem_get_info()
    assert 0 < free <= total
    assert abs(total - props.total_memory) <= 64 * MB
    with pytest.raises(AssertionError):
        torch.cuda.get_device_properties(torch.cuda.device_count())


def test_set_device_and_device_context() -> None:
    torch.cuda.set_device(0)
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(0):
        assert torch.cuda.current_device() == 0
    with torch.cuda.device(-1):
        assert torch.cuda.current_device() == 0
    x = torch.ones(3, device="cuda")
    assert x.is_cuda and x.get_device() == 0
    with torch.cuda.device_of(x):
        assert torch.cuda.current_device() == 0
    torch.cuda.synchronize()
    torch.cuda.synchronize(0)
    torch.cuda.synchronize("cuda:0")
    torch.cuda.synchronize(torch.device("cuda", 0))


def test_streams() -> None:
    default = torch.cuda.default_stream()
    assert torch.cuda.current_stream() == default
    assert default.cuda_stream == 0
    s = torch.cuda.Stream()
    assert isinstance(s.cuda_stream, int)
    assert s.device == torch.device("cuda", torch.cuda.current_device())
    assert s != default and s == s and hash(s) == hash(s)
    assert len({s, default, s}) == 2
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        a = torch.randn(512, 512, device="cuda")
        b = a @ a
    assert torch.cuda.current_stream() == default
    with torch.cuda.stream(None):
        assert torch.cuda.current_stream() == default
    with s:
        assert torch.cuda.current_stream() == s
    assert torch.cuda.current_stream() == default
    torch.cuda.set_stream(s)
    assert torch.cuda.current_stream() == s
    torch.cuda.set_stream(default)
    default.wait_stream(s)
    s.synchronize()
    assert s.query()
    assert b.shape == (512, 512)
    high = torch.cuda.Stream(priority=-1)
    high.synchronize()


def test_events() -> None:
    s = torch.cuda.Stream()
    e = torch.cuda.Event()
    assert e.query()  # never recorded
    with torch.cuda.stream(s):
        x = torch.randn(256, 256, device="cuda")
        y = x @ x
    got = s.record_event()
    assert isinstance(got, torch.cuda.Event)
    e.record(s)
    torch.cuda.current_stream().wait_event(e)
    e.wait()
    e.synchronize()
    assert e.query() and got.query()
    assert torch.cuda.default_stream().query() in (True, False)
    assert y.sum().item() == pytest.approx((x @ x).sum().item(), rel=1e-3, abs=1e-2)


def test_event_timing_around_matmul() -> None:
    a = torch.randn(2048, 2048, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        b = a @ a
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms > 0
    assert b.shape == (2048, 2048)
    with pytest.raises(ValueError):
        start.elapsed_time(torch.cuda.Event())


def test_memory_allocated_tracks_tensors() -> None:
    gc.collect()
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    n = 1000
    x = torch.empty(n, dtype=torch.float32, device="cuda")
    assert torch.cuda.memory_allocated() - before == _rounded(4 * n)
    assert torch.cuda.memory_allocated(0) == torch.cuda.memory_allocated("cuda:0") == torch.cuda.memory_allocated()
    stats = torch.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
    assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    del x
    gc.collect()
    assert torch.cuda.memory_allocated() == before


def test_peak_memory_and_reset() -> None:
    gc.collect()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    assert torch.cuda.max_memory_allocated() == base
    x = torch.empty(4 * MB, dtype=torch.uint8, device="cuda")
    peak = torch.cuda.max_memory_allocated()
    assert peak >= base + 4 * MB
    del x
    gc.collect()
    assert torch.cuda.max_memory_allocated() == peak
    assert torch.cuda.max_memory_reserved() >= torch.cuda.memory_reserved()
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated() == base


def test_empty_cache_lowers_reserved() -> None:
    x = torch.empty(64 * MB, dtype=torch.uint8, device="cuda")
    del x
    gc.collect()
    reserved = torch.cuda.memory_reserved()
    assert reserved >= 64 * MB
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() < reserved
    assert torch.cuda.memory_reserved() <= reserved - 64 * MB


def test_memory_summary_and_nested_stats() -> None:
    x = torch.ones(10, device="cuda")
    text = torch.cuda.memory_summary()
    assert "CUDA memory summary" in text and "Allocated memory" in text
    assert "GPU reserved memory" in torch.cuda.memory_summary(abbreviated=True)
    nested = torch.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == torch.cuda.memory_allocated()
    del x


def test_out_of_memory() -> None:
    with pytest.raises(torch.cuda.OutOfMemoryError, match="CUDA out of memory"):
        torch.empty(1 << 50, dtype=torch.uint8, device="cuda")  # a petabyte
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    y = torch.ones(1000, device="cuda")
    assert y.sum().item() == 1000.0
    z = torch.empty(16 * MB, dtype=torch.uint8, device="cuda")
    assert z.numel() == 16 * MB


def test_manual_seed_repeats() -> None:
    torch.cuda.manual_seed(123)
    a = torch.rand(5, device="cuda")
    torch.cuda.manual_seed(123)
    b = torch.rand(5, device="cuda")
    assert torch.equal(a, b)
    assert torch.cuda.initial_seed() == 123
    torch.cuda.manual_seed_all(7)
    c = torch.rand(5, device="cuda")
    torch.manual_seed(7)  # seeds CUDA too
    d = torch.rand(5, device="cuda")
    assert torch.equal(c, d)
    assert not torch.equal(a, c)
    torch.cuda.seed()
    torch.cuda.seed_all()


def test_record_stream() -> None:
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.ones(1024, device="cuda")
    x.record_stream(s)
    del x
    s.synchronize()


def test_bf16_and_arch_list() -> None:
    major, minor = torch.cuda.get_device_capability()
    assert torch.cuda.is_bf16_supported() in (True, False)
    if major >= 8:
        assert torch.cuda.is_bf16_supported()
    assert isinstance(torch.cuda.get_arch_list(), list)

"""Buffers of every size class (tiny ones from plain malloc, large ones with huge-page advice)
hold their values, are aligned for their element type, and free cleanly."""

import numpy as np
import pytest

import ferrotorch as torch

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 3, 16, 63, 64, 65, 257, 5000])
def test_every_size_class_keeps_its_values(dtype, n):
    x = torch.arange(n).to(dtype)
    y = x.clone()
    assert y.tolist() == x.tolist()
    if n:
        assert y.data_ptr() % y.element_size() == 0
        # Small buffers are 16-byte aligned, larger ones 64-byte (cache line, vector loads).
        assert y.data_ptr() % (16 if n * y.element_size() <= 256 else 64) == 0


def test_large_buffers_compute_and_free_correctly():
    # Above the huge-page size: the advised buffers must behave like any other memory.
    n = 3_000_001
    a = torch.arange(n, dtype=torch.float32)
    for _ in range(3):
        b = a + 1.0
        assert b[0].item() == 1.0 and b[-1].item() == float(n)
        np.testing.assert_array_equal(b.numpy()[::100_000], np.arange(n, dtype=np.float32)[::100_000] + 1)
        del b


def test_reused_large_buffers_are_zeroed_for_zeros_and_fully_written():
    n = 9_000_001  # 36 MB of float32: large enough for freed buffers to be kept for reuse
    for _ in range(3):
        a = torch.full((n,), 7.0)
        del a
        z = torch.zeros(n)
        assert z.abs().max().item() == 0.0
        del z
        b = torch.arange(n, dtype=torch.float32) * 2.0
        assert b[0].item() == 0.0 and b[-1].item() == 2.0 * (n - 1)
        assert b[::1_000_000].tolist() == [2.0 * i for i in range(0, n, 1_000_000)]
        del b

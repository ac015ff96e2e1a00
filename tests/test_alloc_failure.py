"""Impossible allocations raise torch.OutOfMemoryError (a RuntimeError) before anything is
allocated, naming the bytes, and the process goes on; PyTorch is asked the same and must raise RuntimeError too."""

from __future__ import annotations

import os
from typing import Any, Callable

import pytest

import ferrotorch as torch
from tests.torch_oracle import needs_torch, pt

# 2**50 elements: petabytes, beyond any machine and beyond the 47-bit user address space, so
# even a kernel that overcommits everything refuses them (PyTorch then fails in malloc too).
HUGE = 2**50


def _cases(lib: Any) -> dict[str, tuple[Callable[[], Any], int]]:
    """Each case: the call, and the bytes it asks for."""
    return {
        "empty": (lambda: lib.empty(HUGE), 4 * HUGE),
        "empty_float64": (lambda: lib.empty(2, HUGE // 2, dtype=lib.float64), 8 * HUGE),
        "zeros": (lambda: lib.zeros(HUGE), 4 * HUGE),
        "ones": (lambda: lib.ones(HUGE, dtype=lib.int32), 4 * HUGE),
        "full": (lambda: lib.full((HUGE,), 2.5), 4 * HUGE),
        "randn": (lambda: lib.randn(HUGE), 4 * HUGE),
        "randint": (lambda: lib.randint(0, 10, (HUGE,)), 8 * HUGE),
        "randperm": (lambda: lib.randperm(HUGE), 8 * HUGE),
        "arange": (lambda: lib.arange(HUGE), 8 * HUGE),
        "cat": (lambda: lib.cat([lib.ones(1).expand(HUGE), lib.ones(1).expand(HUGE)]), 8 * HUGE),
        "expand_contiguous": (lambda: lib.ones(1, 1).expand(HUGE, 1).contiguous(), 4 * HUGE),
        "matmul": (lambda: lib.ones(2**24, 1) @ lib.ones(1, 2**26), 4 * HUGE),
        "new_empty": (lambda: lib.ones(1, dtype=lib.float64).new_empty(HUGE), 8 * HUGE),
        "repeat": (lambda: lib.ones(2).repeat(HUGE // 2), 4 * HUGE),
    }


NAMES = sorted(_cases(torch))


@pytest.mark.parametrize("name", NAMES)
def test_impossible_allocation_is_out_of_memory(name: str) -> None:
    call, nbytes = _cases(torch)[name]
    with pytest.raises(torch.OutOfMemoryError, match=f"you tried to allocate {nbytes} bytes") as info:
        call()
    assert isinstance(info.value, RuntimeError)
    assert "DefaultCPUAllocator" in str(info.value)
    # The process goes on: an ordinary op still works.
    assert (torch.ones(3) + 1).tolist() == [2.0, 2.0, 2.0]


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_pytorch_raises_runtime_error_too(name: str) -> None:
    call, nbytes = _cases(pt)[name]
    # PyTorch's CPU allocator raises a plain RuntimeError; ours is its subclass OutOfMemoryError.
    with pytest.raises(RuntimeError, match=f"you tried to allocate {nbytes} bytes"):
        call()


@pytest.mark.parametrize(
    "op, call",
    [
        ("empty", lambda: torch.empty(HUGE)),
        ("randint", lambda: torch.randint(3, (HUGE,))),
        ("randperm", lambda: torch.randperm(HUGE)),
        ("cat", lambda: torch.cat([torch.zeros(1).expand(HUGE), torch.zeros(2)])),
        ("matmul", lambda: torch.ones(2**25, 1) @ torch.ones(1, 2**25)),
        ("arange", lambda: torch.arange(0, HUGE, 1)),
    ],
)
def test_message_names_the_op(op: str, call: Callable[[], Any]) -> None:
    with pytest.raises(torch.OutOfMemoryError, match=f"^{op}: DefaultCPUAllocator"):
        call()


def test_exception_classes_match_pytorch_names() -> None:
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert torch.OutOfMemoryError.__name__ == "OutOfMemoryError"
    if pt is not None:
        assert issubclass(pt.OutOfMemoryError, RuntimeError)
        assert pt.cuda.OutOfMemoryError is pt.OutOfMemoryError


def test_larger_than_machine_is_refused_up_front() -> None:
    # 4 TB: inside the address space, so an overcommitting kernel would hand it out and kill
    # the process once touched; ferrotorch refuses it before allocating.
    with pytest.raises(torch.OutOfMemoryError, match="you tried to allocate 4000000000000 bytes"):
        torch.zeros(10**12)
    with pytest.raises(torch.OutOfMemoryError, match="you tried to allocate 8000000000000 bytes"):
        torch.empty(10**12, dtype=torch.float64)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.empty(2**40, 2**40),
        lambda lib: lib.zeros(2**33, 2**33, 2**33),
        lambda lib: lib.ones(1, 1).expand(2**40, 2**40).contiguous(),
    ],
)
def test_size_overflow_is_runtime_error(call: Callable[[Any], Any]) -> None:
    with pytest.raises(RuntimeError):
        call(torch)
    if pt is not None:
        with pytest.raises(RuntimeError):
            call(pt)
    assert torch.zeros(2).sum().item() == 0.0


def test_conv_scratch_beyond_the_machine_is_out_of_memory() -> None:
    # Inputs of tens of MB whose unfolded columns would take 70 TB: refused before any
    # worker thread tries to allocate its share (which could only abort there).
    x = torch.ones(1, 1, 4096, 4096)
    w = torch.ones(1, 1, 2048, 2048)
    with pytest.raises(torch.OutOfMemoryError, match="^conv2d: DefaultCPUAllocator"):
        torch.nn.functional.conv2d(x, w)
    small = torch.nn.functional.conv2d(torch.ones(1, 2, 5, 5), torch.ones(3, 2, 3, 3), padding=1)
    assert small.shape == (1, 3, 5, 5) and small[0, 0, 2, 2].item() == 18.0


def test_failed_in_place_source_leaves_target_unchanged() -> None:
    x = torch.arange(4.0)
    with pytest.raises(torch.OutOfMemoryError):
        x.add(torch.ones(1).expand(HUGE, 1))
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_small_and_empty_allocations_still_work() -> None:
    assert torch.empty(0).shape == (0,)
    assert torch.zeros(0, HUGE).shape == (0, HUGE)
    assert torch.ones(2, 3, dtype=torch.int64).sum().item() == 6
    assert torch.randperm(5).sort().values.tolist() == [0, 1, 2, 3, 4]


def test_a_rust_panic_reaches_python_as_runtime_error() -> None:
    # The last guard: whatever panic a binding lets through is caught by `except RuntimeError`
    # (and `except Exception`), and the process goes on.
    with pytest.raises(RuntimeError, match="a deliberate panic"):
        torch._core._panic_for_tests("a deliberate panic")
    assert torch.ones(2).add(1).tolist() == [2.0, 2.0]


def _resident_mib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 // 2**20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
def test_large_empty_and_zeros_commit_no_memory_until_written() -> None:
    # 1 GiB each: fresh pages the kernel zeroes on first touch, not a buffer written up front
    # (which would commit it all, and on a nearly full machine summon the OOM killer).
    before = _resident_mib()
    e = torch.empty(2**30, dtype=torch.uint8)
    z = torch.zeros(2**28)
    assert _resident_mib() - before < 200
    assert e[-1].item() == 0 and z.sum().item() == 0.0
    z[-1] = 2.0
    assert z[-1].item() == 2.0 and z[0].item() == 0.0

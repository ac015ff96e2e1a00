"""Samplers draw lazily, as PyTorch's do: an "infinite" RandomSampler yields its first index
at once and holds no list of indices; index order is compared with PyTorch wherever it does
not depend on the random stream (the generators differ), and validation errors match."""

from __future__ import annotations

import itertools
import tracemalloc
from typing import Any, Callable, List

import pytest

import ferrotorch as torch
from ferrotorch.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from ferrotorch.utils.data import sampler as sampler_module
from tests.torch_oracle import needs_torch, pt

INFINITE = int(1e10)


class _CountingCore:
    """Stands in for the sampler module's `_core`, recording the size of each random draw."""

    def __init__(self) -> None:
        self.sizes: List[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(torch._core, name)

    def randint(self, low: int, high: int, size: Any, **kw: Any) -> Any:
        self.sizes.append(size[0])
        return torch._core.randint(low, high, size, **kw)

    def multinomial(self, weights: Any, n: int, replacement: bool, **kw: Any) -> Any:
        self.sizes.append(n)
        return torch._core.multinomial(weights, n, replacement, **kw)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _CountingCore:
    core = _CountingCore()
    monkeypatch.setattr(sampler_module, "_core", core)
    return core


def _peak_bytes(consume: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        consume()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_infinite_random_sampler_draws_32_at_a_time(counting: _CountingCore) -> None:
    s = RandomSampler(range(10), replacement=True, num_samples=INFINITE, generator=torch.Generator().manual_seed(1))
    assert len(s) == INFINITE
    first = list(itertools.islice(iter(s), 100))
    assert all(0 <= i < 10 for i in first) and len(set(first)) > 1
    assert counting.sizes == [32, 32, 32, 32], "only the chunks needed for 100 indices"


def test_infinite_sampler_memory_stays_flat() -> None:
    s = RandomSampler(range(7), replacement=True, num_samples=INFINITE)
    it = iter(s)
    next(it)
    # Thousands of indices later nothing has grown: no list of 1e10 indices exists.
    assert _peak_bytes(lambda: sum(itertools.islice(it, 20_000))) < 200_000
    batches = iter(BatchSampler(RandomSampler(range(5), True, INFINITE), 64, drop_last=True))
    assert _peak_bytes(lambda: [len(b) for b in itertools.islice(batches, 200)]) < 200_000


def test_replacement_stream_is_chunks_of_randint() -> None:
    n, total = 13, 100  # three full chunks and a tail of 4
    got = list(RandomSampler(range(n), replacement=True, num_samples=total, generator=torch.Generator().manual_seed(7)))
    g = torch.Generator().manual_seed(7)
    want: List[int] = []
    for size in (32, 32, 32, 4):
        want += torch.randint(0, n, (size,), generator=g).tolist()
    assert got == want


def test_without_replacement_each_epoch_is_a_permutation() -> None:
    s = RandomSampler(range(6), num_samples=15, generator=torch.Generator().manual_seed(3))
    got = list(s)
    assert len(got) == len(s) == 15
    assert sorted(got[:6]) == sorted(got[6:12]) == list(range(6))
    assert len(set(got[12:])) == 3
    # Seeded alike, drawn alike; the plain default sampler covers the data once.
    again = list(RandomSampler(range(6), num_samples=15, generator=torch.Generator().manual_seed(3)))
    assert got == again
    assert sorted(RandomSampler(range(9))) == list(range(9))


def test_unseeded_samplers_differ_between_epochs() -> None:
    s = RandomSampler(range(50))
    assert list(s) != list(s)


def _error(make: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        make()
    return type(info.value), str(info.value)


@needs_torch
@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.RandomSampler(range(3), replacement=1),
        lambda m: m.RandomSampler(range(3), num_samples=0),
        lambda m: m.RandomSampler(range(3), replacement=True, num_samples=-5),
        lambda m: m.RandomSampler(range(3), num_samples=2.5),
        lambda m: m.RandomSampler([]),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], num_samples=0),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], num_samples=True),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], num_samples=3, replacement="no"),
        lambda m: m.WeightedRandomSampler([[1.0, 2.0]], num_samples=3),
        lambda m: m.BatchSampler(range(4), batch_size=0, drop_last=False),
        lambda m: m.BatchSampler(range(4), batch_size=True, drop_last=False),
        lambda m: m.BatchSampler(range(4), batch_size=2, drop_last=1),
        lambda m: m.DistributedSampler(range(4), num_replicas=2, rank=2),
        lambda m: m.DistributedSampler(range(4), num_replicas=2, rank=-1),
    ],
)
def test_validation_errors_match_pytorch(build: Callable[[Any], Any]) -> None:
    assert _error(lambda: build(torch.utils.data)) == _error(lambda: build(pt.utils.data))


def test_a_bool_num_samples_counts_as_one_for_random_sampler() -> None:
    # PyTorch's check lets True through (an int); WeightedRandomSampler refuses it.
    assert len(list(RandomSampler(range(4), num_samples=True))) == 1


def test_weighted_with_replacement_is_lazy(counting: _CountingCore) -> None:
    s = WeightedRandomSampler([0.0, 1.0, 3.0], num_samples=INFINITE, generator=torch.Generator().manual_seed(2))
    got = list(itertools.islice(iter(s), 3000))
    assert set(got) == {1, 2}, "a zero weight is never drawn"
    assert got.count(2) > got.count(1)
    assert len(counting.sizes) == 3 and max(counting.sizes) <= 1024
    assert len(s) == INFINITE


def test_weighted_without_replacement_draws_distinct_indices() -> None:
    s = WeightedRandomSampler([1.0, 1.0, 5.0, 0.5, 2.0], num_samples=4, replacement=False)
    got = list(s)
    assert len(got) == len(s) == 4 and len(set(got)) == 4
    tail = list(WeightedRandomSampler(torch.tensor([1.0, 2.0]), 5, generator=torch.Generator().manual_seed(0)))
    assert len(tail) == 5 and set(tail) <= {0, 1}


def test_subset_random_sampler_permutes_the_given_indices() -> None:
    idx = [10, 20, 30, 40, 50]
    g1, g2 = torch.Generator().manual_seed(4), torch.Generator().manual_seed(4)
    a, b = list(SubsetRandomSampler(idx, generator=g1)), list(SubsetRandomSampler(idx, generator=g2))
    assert a == b and sorted(a) == idx and len(SubsetRandomSampler(idx)) == 5


@needs_torch
@pytest.mark.parametrize("n, batch, drop_last", [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (0, 2, False)])
def test_sequential_and_batch_order_match_pytorch(n: int, batch: int, drop_last: bool) -> None:
    ours = BatchSampler(SequentialSampler(range(n)), batch, drop_last)
    theirs = pt.utils.data.BatchSampler(pt.utils.data.SequentialSampler(range(n)), batch, drop_last)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)
    assert list(SequentialSampler(range(n))) == list(pt.utils.data.SequentialSampler(range(n)))


@needs_torch
@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False), (11, 4, True)])
def test_distributed_order_matches_pytorch_without_shuffle(n: int, replicas: int, drop_last: bool) -> None:
    for rank in range(replicas):
        ours = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = pt.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)


def test_distributed_shuffle_splits_one_permutation_per_epoch() -> None:
    def shards(epoch: int, seed: int = 0) -> List[List[int]]:
        out = []
        for rank in range(3):
            s = DistributedSampler(range(12), num_replicas=3, rank=rank, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    first = shards(0)
    assert sorted(sum(first, [])) == list(range(12))
    assert shards(0) == first, "the same seed and epoch give the same split"
    assert shards(1) != first and shards(0, seed=5) != first


@needs_torch
def test_distributed_sampler_imports_from_pytorchs_module() -> None:
    """``from torch.utils.data.distributed import DistributedSampler`` works, with the same class
    as ``utils.data.DistributedSampler`` and the same module path as PyTorch's, and splits the
    indices as PyTorch's does."""
    import importlib

    ours = importlib.import_module("ferrotorch.utils.data.distributed").DistributedSampler
    theirs = importlib.import_module("torch.utils.data.distributed").DistributedSampler
    assert ours is DistributedSampler
    assert ours.__module__.replace("ferrotorch", "torch", 1) == theirs.__module__
    for n, replicas, rank, drop_last in [(10, 3, 1, False), (10, 3, 2, True), (2, 4, 3, False), (7, 2, 1, True)]:
        mine = ours(list(range(n)), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        ref = theirs(list(range(n)), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert (list(mine), len(mine)) == (list(ref), len(ref))

"""utils.data: datasets, samplers, collation, and DataLoader with and without workers."""

import collections
import os
import pickle
import signal
import time

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    get_worker_info,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)]), i


class Failing(Squares):
    def __getitem__(self, i):
        if i == 7:
            raise ValueError("bad sample 7")
        return super().__getitem__(i)


class Killer(Squares):
    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


def batches(loader):
    return [(x.tolist(), y.tolist()) for x, y in loader]


@pytest.mark.parametrize("shuffle", [False, True])
def test_same_batches_for_any_number_of_workers(shuffle):
    ref = None
    for workers in (0, 1, 2):
        torch.manual_seed(3)
        got = batches(DataLoader(Squares(), batch_size=4, shuffle=shuffle, num_workers=workers))
        ref = ref or got
        assert got == ref
    assert len(ref) == 6 and sorted(i for _, ys in ref for i in ys) == list(range(23))


def test_drop_last_batch_sampler_and_len():
    dl = DataLoader(Squares(), batch_size=5, drop_last=True)
    assert len(dl) == 4 and all(len(y) == 5 for _, y in batches(dl))
    bs = BatchSampler(SequentialSampler(range(7)), 3, False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]]
    dl2 = DataLoader(Squares(7), batch_sampler=bs)
    assert [y for _, y in batches(dl2)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [y for _, y in DataLoader(Squares(3), batch_size=None)] == [0, 1, 2]


def test_collate_types():
    Point = collections.namedtuple("Point", ["x", "y"])
    b = default_collate([{"a": 1, "b": np.ones(2), "s": "u", "p": Point(1.0, torch.zeros(2))}, {"a": 2, "b": np.zeros(2), "s": "v", "p": Point(2.0, torch.ones(2))}])
    assert b["a"].tolist() == [1, 2] and b["a"].dtype == torch.int64
    assert b["b"].shape == (2, 2) and b["b"].dtype == torch.float64
    assert b["s"] == ["u", "v"]
    assert isinstance(b["p"], Point) and b["p"].x.dtype == torch.float64 and b["p"].y.shape == (2, 2)
    assert default_collate([(1, True), (2, False)])[1].dtype == torch.bool
    assert default_collate([[1, 2], [3, 4]])[0].tolist() == [1, 3]


def test_datasets_and_samplers():
    td = TensorDataset(torch.arange(10), torch.arange(10) * 2)
    assert td[3][1].item() == 6 and len(td) == 10
    assert len(ConcatDataset([td, td])) == 20 and ConcatDataset([td, td])[12][0].item() == 2
    assert Subset(td, [4, 2])[1][0].item() == 2
    a, b = random_split(td, [7, 3], generator=torch.Generator().manual_seed(0))
    assert len(a) == 7 and sorted(list(a.indices) + list(b.indices)) == list(range(10))
    g = torch.Generator().manual_seed(1)
    assert sorted(RandomSampler(range(10), generator=g)) == list(range(10))
    assert len(list(RandomSampler(range(10), replacement=True, num_samples=25))) == 25
    w = list(WeightedRandomSampler([0.0, 0.0, 1.0], 5))
    assert w == [2] * 5
    shards = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]


def test_iterable_dataset_sharded_over_workers():
    got = sorted(x for b in DataLoader(Stream(10), batch_size=3, num_workers=2) for x in b.tolist())
    assert got == list(range(10))
    assert [b.tolist() for b in DataLoader(Stream(5), batch_size=2)] == [[0, 1], [2, 3], [4]]


def test_worker_exception_reaches_main_process_with_traceback():
    with pytest.raises(ValueError, match=r"(?s)Caught ValueError in DataLoader worker process \d.*bad sample 7"):
        for _ in DataLoader(Failing(), batch_size=2, num_workers=2):
            pass


def test_killed_worker_is_reported_quickly():
    t0 = time.time()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) is killed by signal: SIGKILL"):
        for _ in DataLoader(Killer(), batch_size=2, num_workers=2):
            pass
    assert time.time() - t0 < 30  # a hang detector, not a speed check


def test_early_break_leaves_no_worker_processes():
    import multiprocessing

    it = iter(DataLoader(Squares(), batch_size=2, num_workers=2))
    next(it)
    it._shutdown()
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]


def test_worker_init_fn_and_worker_info():
    def init(wid):
        info = get_worker_info()
        assert info.id == wid and info.num_workers == 2

    assert len(list(DataLoader(Squares(8), batch_size=2, num_workers=2, worker_init_fn=init))) == 4
    assert get_worker_info() is None


def test_tensor_pickle_round_trip():
    for t in [torch.arange(6).reshape(2, 3).t(), torch.ones(2, dtype=torch.bfloat16), torch.tensor(3.5, requires_grad=True)]:
        u = pickle.loads(pickle.dumps(t))
        assert u.tolist() == t.tolist() and u.dtype == t.dtype and u.requires_grad == t.requires_grad
    p = torch.nn.Parameter(torch.ones(2))
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, torch.nn.Parameter) and q.requires_grad


def test_argument_errors():
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(Squares(), num_workers=-1)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(Squares(), sampler=SequentialSampler(range(3)), shuffle=True)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(3), 0, False)

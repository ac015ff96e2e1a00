"""ferrotorch.multiprocessing: tensors shared between processes through shared memory."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.multiprocessing as mp
from ferrotorch.utils.data import DataLoader, Dataset

METHODS = [m for m in ("fork", "spawn", "forkserver") if m in mp.get_all_start_methods()]


def shm_entries():
    # Ours and multiprocessing's (queue semaphores); other programs on the machine come and go.
    if not os.path.isdir("/dev/shm"):
        return []
    return sorted(e for e in os.listdir("/dev/shm") if e.startswith(("ferrotorch_", "sem.mp-")))


@pytest.fixture(autouse=True)
def no_segment_left_behind():
    before = shm_entries()
    yield
    # Queues unlink their semaphores once collected and their feeder threads have ended.
    deadline = time.monotonic() + 5
    while shm_entries() != before and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert shm_entries() == before


# ---- functions run in child processes (top level, so spawn can pickle them) ----


def add_one_in_place(t):
    t.add_(1)


def send_tensors(q):
    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    q.put({"base": base, "view": base.t()[1:], "int": torch.tensor([7, 8], dtype=torch.int32), "grad": torch.ones(2, requires_grad=True), "param": torch.nn.Parameter(torch.zeros(3))})


def send_and_linger(q):
    # Lingers until the queue's feeder thread has pickled the tensor, then exits.
    q.put(torch.arange(12.0))
    time.sleep(0.3)


def echo_back(inq, outq):
    t = inq.get()
    t.mul_(2)
    outq.put(t)


def fail(i, msg):
    raise ValueError(f"{msg} {i}")


def write_rank(i, t):
    t[i] = i + 1


def big_op_after_fork(q):
    q.put(float(torch.ones(1 << 20).add(1).sum()))


# ---- share_memory_ ----


def test_share_memory_moves_storage_in_place_and_views_follow():
    t = torch.arange(10.0)
    v = t[2:5]
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and v.is_shared()
    v.fill_(-1)
    assert t.tolist() == [0, 1, -1, -1, -1, 5, 6, 7, 8, 9]
    t.share_memory_()  # a no-op the second time
    assert t.is_shared()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool, torch.float16])
def test_share_memory_keeps_values_of_every_dtype(dtype):
    t = (torch.arange(6) % 2 if dtype == torch.bool else torch.arange(6)).to(dtype)
    ref = t.clone()
    t.share_memory_()
    assert torch.equal(t, ref)


def test_share_memory_keeps_numpy_views_valid():
    t = torch.arange(4.0)
    a = t.numpy()
    t.share_memory_()
    assert a.tolist() == [0, 1, 2, 3]  # the old buffer is kept alive for the array


def test_zero_size_and_0d_tensors_travel():
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    q.put((torch.zeros(0, 3), torch.tensor(5.0)))
    a, b = q.get(timeout=30)
    assert a.shape == (0, 3) and b.item() == 5.0 and b.dim() == 0


@pytest.mark.parametrize("method", METHODS)
def test_child_writes_are_seen_by_the_parent(method):
    ctx = mp.get_context(method)
    t = torch.zeros(5).share_memory_()
    p = ctx.Process(target=add_one_in_place, args=(t,))
    p.start()
    p.join(60)
    assert p.exitcode == 0
    assert t.tolist() == [1.0] * 5


@pytest.mark.parametrize("method", METHODS)
def test_a_tensor_from_a_child_stays_valid_after_it_exits(method):
    ctx = mp.get_context(method)
    q = ctx.Queue()
    p = ctx.Process(target=send_tensors, args=(q,))
    p.start()
    got = q.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0
    base, view = got["base"], got["view"]
    assert base.is_shared() and view.is_shared()
    np.testing.assert_array_equal(view.numpy(), np.arange(12.0).reshape(3, 4).T[1:])
    base[1, 1] = 100.0  # the two arrived as views of one storage
    assert view[0, 1].item() == 100.0
    assert got["int"].dtype == torch.int32 and got["int"].tolist() == [7, 8]
    assert got["grad"].requires_grad and got["grad"].is_leaf
    assert isinstance(got["param"], torch.nn.Parameter) and got["param"].requires_grad


@pytest.mark.parametrize("method", METHODS)
def test_a_late_receiver_still_gets_the_tensor_of_an_exiting_sender(method):
    # The sender returns right after put(); its exit must wait for the handoff instead of
    # removing the socket the receiver will connect to.
    ctx = mp.get_context(method)
    q = ctx.Queue()
    p = ctx.Process(target=send_and_linger, args=(q,))
    p.start()
    time.sleep(1.5)
    got = q.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0
    assert got.sum().item() == 66.0


def test_tensors_pickled_while_the_sender_exits_are_not_lost():
    # The child returns right after put(), so its queue pickles the tensor while the exit
    # handlers run; a busy parent makes that window wide. Every round trip must arrive.
    import threading

    stop = threading.Event()

    def busy():
        x = torch.randn(512, 512)
        while not stop.is_set():
            (x @ x).sum()

    worker = threading.Thread(target=busy, daemon=True)
    worker.start()
    try:
        ctx = mp.get_context("fork")
        for _ in range(20):
            q = ctx.Queue()
            p = ctx.Process(target=send_tensors, args=(q,))
            p.start()
            assert q.get(timeout=20)["base"].sum().item() == 66.0
            p.join(30)
            inq, outq = ctx.Queue(), ctx.Queue()
            p = ctx.Process(target=echo_back, args=(inq, outq))
            p.start()
            inq.put(torch.arange(4.0))
            assert outq.get(timeout=20).tolist() == [0.0, 2.0, 4.0, 6.0]
            p.join(30)
            assert p.exitcode == 0
    finally:
        stop.set()
        worker.join()


@pytest.mark.parametrize("method", METHODS)
def test_round_trip_comes_back_as_the_same_memory(method):
    ctx = mp.get_context(method)
    inq, outq = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=echo_back, args=(inq, outq))
    p.start()
    t = torch.arange(4.0)
    inq.put(t)
    back = outq.get(timeout=60)
    p.join(60)
    assert t.is_shared()  # sending moved it into shared memory, as in PyTorch
    assert t.tolist() == [0.0, 2.0, 4.0, 6.0]
    back.add_(1)
    assert t.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_non_leaf_requiring_grad_is_refused_by_the_pickler():
    from multiprocessing.reduction import ForkingPickler

    x = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="call detach"):
        ForkingPickler.dumps(x)


def test_fork_after_parallel_kernels_does_not_hang():
    torch.ones(1 << 20).add(1).sum()  # starts the kernel thread pool in the parent
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=big_op_after_fork, args=(q,))
    p.start()
    assert q.get(timeout=30) == 2.0 * (1 << 20)
    p.join(30)


def test_spawn_runs_every_rank_on_shared_memory():
    t = torch.zeros(3).share_memory_()
    mp.spawn(write_rank, args=(t,), nprocs=3)
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_spawn_reports_the_child_traceback():
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: boom [01]"):
        mp.spawn(fail, args=("boom",), nprocs=2)


def test_shared_memory_capacity_check_says_how_to_fix():
    with pytest.raises(RuntimeError, match=r"/dev/shm.*--shm-size"):
        mp.check_shared_memory(1 << 62)
    mp.check_shared_memory(1024)


def test_multiprocessing_names_and_strategies():
    for name in ("Process", "Queue", "Pool", "get_context", "set_start_method", "SimpleQueue", "Event", "spawn", "cpu_count"):
        assert hasattr(mp, name), name
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    with pytest.raises(ValueError):
        mp.set_sharing_strategy("carrier_pigeon")


def test_killed_process_leaves_nothing_in_dev_shm():
    # A child that shares memory and is killed with SIGKILL: no segment may outlive it.
    code = textwrap.dedent(
        """
        import os, signal, ferrotorch as torch
        ts = [torch.ones(1000).share_memory_() for _ in range(5)]
        print("ready", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == -signal.SIGKILL and "ready" in r.stdout


# ---- DataLoader over shared memory ----


class Work(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        return torch.full((3, 4), float(i)), i


def test_worker_batches_arrive_in_shared_memory():
    for x, y in DataLoader(Work(), batch_size=4, num_workers=2):
        assert x.is_shared() and y.is_shared()
        assert x.shape == (4, 3, 4)


def _epoch_orders(lib, persistent, epochs=3):
    loader = lib.utils.data.DataLoader(list(range(20)), batch_size=6, num_workers=2, persistent_workers=persistent, shuffle=True, generator=lib.Generator().manual_seed(3))
    return loader, [[i for b in loader for i in b.tolist()] for _ in range(epochs)]


def _sampler_replay(lib, epochs=3):
    """One pass of a loader (a base seed and a permutation), then its sampler alone: no more seeds."""
    loader = lib.utils.data.DataLoader(list(range(20)), batch_size=6, shuffle=True, generator=lib.Generator().manual_seed(3))
    return [[i for b in loader for i in b.tolist()]] + [list(loader.sampler) for _ in range(epochs - 1)]


def test_persistent_workers_draw_one_base_seed_like_pytorch():
    # PyTorch seeds kept workers once: later passes take only the sampler's draws from the
    # generator, so from the second epoch the order differs from non-persistent workers'.
    pt = pytest.importorskip("torch")
    for lib in (torch, pt):
        _, kept = _epoch_orders(lib, True)
        _, fresh = _epoch_orders(lib, False)
        assert kept == _sampler_replay(lib), lib.__name__
        assert kept[0] == fresh[0] and kept[1:] != fresh[1:], lib.__name__


def test_persistent_workers_serve_every_epoch():
    loader = DataLoader(Work(), batch_size=6, num_workers=2, persistent_workers=True, shuffle=False)
    ref = DataLoader(Work(), batch_size=6, num_workers=2, shuffle=False)
    for _ in range(2):
        got = [y.tolist() for _, y in loader]
        want = [y.tolist() for _, y in ref]
        assert got == want
    workers = loader._workers_iter.workers
    assert all(p.is_alive() for p in workers)
    for source in (loader, ref):  # an abandoned pass, then a full one
        for i, _ in enumerate(source):
            if i == 1:
                break
    assert [y.tolist() for _, y in loader] == [y.tolist() for _, y in ref]
    loader._workers_iter._shutdown()
    assert not any(p.is_alive() for p in workers)


def test_loader_refuses_to_start_when_dev_shm_is_too_small(monkeypatch):
    import ferrotorch.utils.data.dataloader as dl

    monkeypatch.setattr(dl, "_MIN_SHM_PER_BATCH", 1 << 60)
    with pytest.raises(RuntimeError, match="/dev/shm"):
        iter(DataLoader(Work(), batch_size=4, num_workers=2))


def test_set_num_threads_resizes_the_pool():
    n = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert torch.get_num_threads() == 1
        assert torch.ones(1 << 20).sum().item() == 1 << 20
    finally:
        torch.set_num_threads(n)


def test_dtypes_pickle_to_the_same_singleton():
    import pickle

    for d in (torch.float32, torch.int64, torch.bool, torch.bfloat16):
        assert pickle.loads(pickle.dumps(d)) is d


class KillsWorker(Work):
    def __getitem__(self, i):
        if i == 9:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


@pytest.mark.parametrize("method", METHODS)
def test_loaders_leave_dev_shm_as_they_found_it(method):
    # The autouse fixture compares /dev/shm before and after: a full pass, an early break
    # with batches still in flight, and a killed worker.
    for _ in DataLoader(Work(), batch_size=2, num_workers=2, multiprocessing_context=method):
        pass
    for i, _ in enumerate(DataLoader(Work(), batch_size=2, num_workers=2, multiprocessing_context=method)):
        if i == 1:
            break
    with pytest.raises(RuntimeError, match="killed by signal: SIGKILL"):
        for _ in DataLoader(KillsWorker(), batch_size=2, num_workers=2, multiprocessing_context=method):
            pass

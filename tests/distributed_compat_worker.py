"""Run under mpirun by tests/test_distributed_compat.py, once with ``torch`` (PyTorch on its
gloo backend: the oracle) and once with ``ferrotorch`` (MPI): the same program, written
against the API both share. Each rank saves what it holds after every case, or the class of
the error the case raised, to OUT_DIR/rank<r>.pkl; the test compares the two runs.

usage: distributed_compat_worker.py LIB OUT_DIR STORE_FILE
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from datetime import timedelta
from typing import Any, Callable, Dict, List

import numpy as np

LIB = sys.argv[1] if __name__ == "__main__" else os.environ.get("COMPAT_LIB", "ferrotorch")
torch: Any = importlib.import_module(LIB)
dist: Any = importlib.import_module(LIB + ".distributed")
nn: Any = importlib.import_module(LIB + ".nn")
F: Any = importlib.import_module(LIB + ".nn.functional")
DDP = importlib.import_module(LIB + ".nn.parallel").DistributedDataParallel
Join = importlib.import_module(LIB + ".distributed.algorithms").Join

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]
REDUCTIONS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]


def numpy_of(x: Any) -> Any:
    """Tensors (also inside lists) as NumPy arrays; other values unchanged."""
    if isinstance(x, (list, tuple)):
        return [numpy_of(v) for v in x]
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return np.array(np.asarray(t.contiguous()))
    return x


def values(shape: tuple, dtype: str, seed: int) -> Any:
    """Small exact values, so sums and products agree in every dtype."""
    return torch.from_numpy(np_values(shape, dtype, seed)).to(getattr(torch, dtype))


def np_values(shape: tuple, dtype: str, seed: int) -> np.ndarray:
    """The NumPy array behind ``values`` (the test rebuilds expectations from it)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        arr = rng.random(shape) < 0.5
    elif dtype == "uint8":
        arr = rng.integers(0, 4, shape).astype(np.uint8)
    elif dtype.startswith("int"):
        arr = rng.integers(-3, 4, shape).astype(dtype)
    else:
        arr = (rng.integers(-8, 9, shape) / 8).astype(np.float64)
    return np.ascontiguousarray(arr)


class Recorder:
    def __init__(self) -> None:
        self.out: Dict[str, Any] = {}

    def run(self, key: str, fn: Callable[[], Any]) -> None:
        """Records fn()'s value, or ``error: <class>`` (the message under ``<key>/message``)."""
        if os.environ.get("COMPAT_TRACE"):
            print(f"[{LIB}] {key}", file=sys.stderr, flush=True)
        try:
            self.out[key] = numpy_of(fn())
        except Exception as e:  # noqa: BLE001 - the error class is the result
            self.out[key] = f"error: {type(e).__name__}"
            self.out[key + "/message"] = str(e)
            if os.environ.get("COMPAT_TRACE"):
                print(f"[{LIB}] {key}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)


def collectives(rec: Recorder, rank: int, world: int) -> None:
    for dtype in DTYPES:
        # all_to_all: even pieces; uneven ones (rank i sends rank j an (i + j, 3) piece, zero-size
        # from rank 0 to itself), which gloo refuses (the test checks those against NumPy).
        def a2a(dtype: str = dtype, uneven: bool = False) -> Any:
            rows = (lambda i, j: i + j) if uneven else (lambda i, j: 2)
            ins = [values((rows(rank, j), 3), dtype, 100 * rank + j) for j in range(world)]
            outs = [torch.zeros((rows(i, rank), 3), dtype=getattr(torch, dtype)) for i in range(world)]
            dist.all_to_all(outs, ins)
            return outs

        rec.run(f"all_to_all/even/{dtype}", a2a)
        rec.run(f"all_to_all/uneven/{dtype}", lambda dtype=dtype: a2a(dtype, True))

        def a2a_single(dtype: str = dtype, splits: bool = True) -> Any:
            if splits:
                ins, outs = [rank + j for j in range(world)], [i + rank for i in range(world)]
            else:
                ins = outs = [2] * world
            x = values((sum(ins), 2), dtype, 7 + rank)
            out = torch.zeros((sum(outs), 2), dtype=getattr(torch, dtype))
            dist.all_to_all_single(out, x, outs if splits else None, ins if splits else None)
            return out

        def a2a_transposed(dtype: str = dtype) -> Any:
            # Into a non-contiguous output view: gloo writes its storage as if contiguous, so the
            # test compares ours with gloo's contiguous result for the same input instead.
            x = values((2 * world, 2), dtype, 7 + rank)
            out = torch.zeros((2, 2 * world), dtype=getattr(torch, dtype)).t()
            dist.all_to_all_single(out, x)
            return out

        def a2a_1d(dtype: str = dtype) -> Any:
            x = values((world,), dtype, 3 + rank)
            out = torch.zeros(world, dtype=getattr(torch, dtype))
            dist.all_to_all_single(out, x)
            return out

        rec.run(f"all_to_all_single/splits/{dtype}", a2a_single)
        rec.run(f"all_to_all_single/transposed/{dtype}", a2a_transposed)
        rec.run(f"all_to_all_single/1d/{dtype}", a2a_1d)
        rec.run(f"all_to_all_single/even/{dtype}", lambda dtype=dtype: a2a_single(dtype, False))

        def gather_into(dtype: str = dtype, stacked: bool = False, rows: int = 2) -> Any:
            x = values((rows, 3), dtype, 11 + rank)
            out = torch.zeros((world, rows, 3) if stacked else (world * rows, 3), dtype=getattr(torch, dtype))
            dist.all_gather_into_tensor(out, x)
            return out

        rec.run(f"all_gather_into_tensor/cat/{dtype}", gather_into)
        rec.run(f"all_gather_into_tensor/stack/{dtype}", lambda dtype=dtype: gather_into(dtype, True))
        rec.run(f"all_gather_into_tensor/empty/{dtype}", lambda dtype=dtype: gather_into(dtype, False, 0))

        for red in REDUCTIONS:
            if dtype == "bool" or (red == "AVG" and not dtype.startswith(("float", "bfloat"))):
                continue

            def rs_tensor(dtype: str = dtype, red: str = red, rows: int = 2) -> Any:
                x = values((world * rows, 3), dtype, 13 + rank)
                out = torch.zeros((rows, 3), dtype=getattr(torch, dtype))
                dist.reduce_scatter_tensor(out, x, getattr(dist.ReduceOp, red))
                return out

            def rs_list(dtype: str = dtype, red: str = red) -> Any:
                ins = [values((2, 2), dtype, 17 + 10 * rank + j) for j in range(world)]
                out = torch.zeros((2, 2), dtype=getattr(torch, dtype))
                dist.reduce_scatter(out, ins, getattr(dist.ReduceOp, red))
                return out

            def rs_transposed(dtype: str = dtype, red: str = red) -> Any:
                x = values((3, world * 2), dtype, 19 + rank).t()
                out = torch.zeros((2, 3), dtype=getattr(torch, dtype))
                dist.reduce_scatter_tensor(out, x, getattr(dist.ReduceOp, red))
                return out

            rec.run(f"reduce_scatter_tensor/{red}/{dtype}", rs_tensor)
            rec.run(f"reduce_scatter_tensor/{red}/{dtype}/transposed", rs_transposed)
            rec.run(f"reduce_scatter_tensor/{red}/{dtype}/empty", lambda dtype=dtype, red=red: rs_tensor(dtype, red, 0))
            rec.run(f"reduce_scatter/{red}/{dtype}", rs_list)

    # batch_isend_irecv: a ring both ways, two tags, float and int tensors.
    def ring() -> Any:
        nxt, prev = (rank + 1) % world, (rank - 1) % world
        got = [torch.zeros(3), torch.zeros((2, 2), dtype=torch.int64)]
        ops = [
            dist.P2POp(dist.isend, torch.arange(3.0) + rank, nxt, tag=1),
            dist.P2POp(dist.irecv, got[0], prev, tag=1),
            dist.P2POp(dist.isend, torch.full((2, 2), rank, dtype=torch.int64), prev, tag=2),
            dist.P2POp(dist.irecv, got[1], nxt, tag=2),
        ]
        for w in dist.batch_isend_irecv(ops):
            w.wait()
        return got

    rec.run("batch_isend_irecv/ring", ring)

    # async_op=True everywhere, and Work.get_future().
    def async_ops() -> Any:
        t = torch.arange(4.0) + rank
        works = [dist.all_reduce(t, async_op=True)]
        b = torch.full((2,), float(rank))
        works.append(dist.broadcast(b, src=world - 1, async_op=True))
        outs = [torch.zeros(2) for _ in range(world)]
        works.append(dist.all_gather(outs, torch.ones(2) * rank, async_op=True))
        r = torch.ones(3) * (rank + 1)
        works.append(dist.reduce(r, dst=0, async_op=True))
        into = torch.zeros(world * 2)
        works.append(dist.all_gather_into_tensor(into, torch.ones(2) * rank, async_op=True))
        a2a = torch.zeros(world)
        works.append(dist.all_to_all_single(a2a, torch.arange(float(world)) + 10 * rank, async_op=True))
        works.append(dist.barrier(async_op=True))
        g_out = [torch.zeros(2) for _ in range(world)] if rank == 0 else None
        works.append(dist.gather(torch.ones(2) * rank, g_out, dst=0, async_op=True))
        s_out = torch.zeros(2)
        works.append(dist.scatter(s_out, [torch.ones(2) * i for i in range(world)] if rank == 1 else None, src=1, async_op=True))
        rs_out = torch.zeros(2)
        works.append(dist.reduce_scatter_tensor(rs_out, torch.arange(2.0 * world) * (rank + 1), async_op=True))
        rsl_out = torch.zeros(1)
        works.append(dist.reduce_scatter(rsl_out, [torch.ones(1) * (i + rank) for i in range(world)], async_op=True))
        a2a_list = [torch.zeros(1) for _ in range(world)]
        works.append(dist.all_to_all(a2a_list, [torch.ones(1) * (10 * rank + j) for j in range(world)], async_op=True))
        for w in reversed(works):  # waiting out of order must not matter
            w.wait()
        got = [t, b, *outs, r if rank == 0 else torch.zeros(0), into, a2a, *(g_out or []), s_out, rs_out, rsl_out, *a2a_list]
        # (gloo's reduce_scatter Works report is_completed() False even after wait(): not compared)
        return got + [torch.tensor(w.is_completed()) for w in works[:9]]

    rec.run("async/all", async_ops)

    def futures() -> Any:
        t = torch.ones(3) * (rank + 1)
        fut = dist.all_reduce(t, async_op=True).get_future()
        doubled = fut.then(lambda f: f.value()[0] * 2)
        value = fut.wait()
        return [value[0], doubled.wait(), torch.tensor(fut.done())]

    rec.run("async/future", futures)

    # Subgroups: the first and last rank; all ranks but 0.
    for name, ranks in (("ends", [0, world - 1]), ("tail", list(range(1, world)))):
        def sub(ranks: List[int] = ranks) -> Any:
            g = dist.new_group(ranks)
            me = torch.tensor([float(rank + 1)])
            dist.all_reduce(me, group=g)
            b = torch.tensor([float(rank)])
            dist.broadcast(b, src=ranks[-1], group=g)
            info = torch.tensor([dist.get_rank(g), dist.get_world_size(g)])
            return [me, b, info]

        rec.run(f"new_group/{name}", sub)

    def subgroups() -> Any:
        mine, every = dist.new_subgroups(group_size=2)
        t = torch.tensor([float(rank + 1)])
        dist.all_reduce(t, group=mine)
        _, listed = dist.new_subgroups_by_enumeration([[0], list(range(1, world))])
        return [t, torch.tensor([dist.get_rank(mine), dist.get_world_size(mine), len(every), len(listed), dist.get_rank(listed[-1])])]

    rec.run("new_subgroups/pairs", subgroups)
    for size in (None, 0, world + 1, 3):
        rec.run(f"new_subgroups/error/group_size={size}", lambda size=size: dist.new_subgroups(group_size=size))
    rec.run("new_subgroups/error/overlap", lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]))
    rec.run("new_subgroups/error/empty", lambda: dist.new_subgroups_by_enumeration([]))
    rec.out["backend_queries"] = [dist.is_backend_available("gloo"), dist.get_default_backend_for_device("cpu")]

    # Object collectives.
    def objects() -> Any:
        gathered: List[Any] = [None] * world
        dist.all_gather_object(gathered, {"rank": rank, "tag": "r" * rank})
        to_dst: Any = [None] * world if rank == world - 1 else None
        dist.gather_object(("g", rank), to_dst, dst=world - 1)
        bcast: List[Any] = [rank, None, "x"]
        dist.broadcast_object_list(bcast, src=1)
        scattered: List[Any] = [None]
        dist.scatter_object_list(scattered, [{"to": i, "pad": "p" * i} for i in range(world)] if rank == 0 else None, src=0)
        ring: List[Any] = [None, None]
        if rank % 2 == 0:
            dist.send_object_list([rank, "hello" * rank], dst=(rank + 1) % world)
            sender = dist.recv_object_list(ring, src=(rank - 1) % world)
        else:
            sender = dist.recv_object_list(ring, src=(rank - 1) % world)
            dist.send_object_list([rank, "hello" * rank], dst=(rank + 1) % world)
        return repr([gathered, to_dst, bcast, scattered, ring, sender])

    rec.run("objects", objects)
    rec.run("monitored_barrier", lambda: dist.monitored_barrier(timeout=timedelta(seconds=30)))
    rec.run("monitored_barrier/wait_all", lambda: dist.monitored_barrier(timeout=timedelta(seconds=30), wait_all_ranks=True))


def argument_errors(rec: Recorder, rank: int, world: int) -> None:
    """Errors found locally, before any rank communicates (every rank raises the same)."""
    z = torch.zeros
    rec.run("error/all_to_all/list_size", lambda: dist.all_to_all([z(2)], [z(2)] * world))
    rec.run("error/all_to_all/dtype", lambda: dist.all_to_all([z(2)] * world, [z(2, dtype=torch.float64)] * world))
    rec.run("error/all_to_all_single/split_sum", lambda: dist.all_to_all_single(z(world * 2), z(world * 2), [1] * world, [3] * world))
    rec.run("error/all_to_all_single/indivisible", lambda: dist.all_to_all_single(z(world + 1), z(world + 1)))
    rec.run("error/all_to_all_single/non_contiguous_input", lambda: dist.all_to_all_single(z(2 * world, 3), z(3, 2 * world).t()))
    rec.run("error/all_to_all_single/dtype", lambda: dist.all_to_all_single(z(world), z(world, dtype=torch.int64)))
    rec.run("error/reduce_scatter/list_size", lambda: dist.reduce_scatter(z(2), [z(2)]))
    rec.run("error/all_gather/list_size", lambda: dist.all_gather([z(2)], z(2)))
    rec.run("error/all_gather/shape", lambda: dist.all_gather([z(3)] * world, z(2)))
    rec.run("error/all_gather_into_tensor/size", lambda: dist.all_gather_into_tensor(z(world * 2 + 1), z(2)))
    rec.run("error/all_gather_into_tensor/dtype", lambda: dist.all_gather_into_tensor(z(world * 2, dtype=torch.float64), z(2)))
    rec.run("error/reduce_scatter_tensor/dtype", lambda: dist.reduce_scatter_tensor(z(2), z(world * 2, dtype=torch.float64)))
    rec.run("error/p2pop/op", lambda: dist.P2POp(dist.send, z(2), 0))
    rec.run("error/batch_isend_irecv/not_p2pop", lambda: dist.batch_isend_irecv([1]))
    rec.run("error/batch_isend_irecv/empty", lambda: dist.batch_isend_irecv([]))
    rec.run("error/scatter_object_list/empty_output", lambda: dist.scatter_object_list([], [1] * world if rank == 0 else None, src=0))
    rec.run("error/join/no_joinables", lambda: Join([]))


class Net(nn.Module):
    """Linear layers and a BatchNorm (its running stats are buffers DDP broadcasts)."""

    def __init__(self, with_unused: bool) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 2)
        self.unused = nn.Linear(6, 2) if with_unused else None

    def forward(self, x: Any, use_unused: bool = False) -> Any:
        h = F.relu(self.bn(self.fc1(x)))
        out = self.fc2(h)
        return out + self.unused(h) if use_unused else out


def model(with_unused: bool = False) -> Any:
    """The same float64 weights in both libraries (each seeds its RNG differently)."""
    m = Net(with_unused).double()
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.from_numpy(np.random.default_rng(i).normal(size=tuple(p.shape)) / 2))
    return m


def batches(rank: int, count: int) -> List[Any]:
    g = np.random.default_rng(1000 + rank)
    return [(torch.from_numpy(g.normal(size=(3, 4))), torch.from_numpy(g.normal(size=(3, 2)))) for _ in range(count)]


def join_training(rec: Recorder, rank: int, world: int) -> None:
    """Rank r trains on 2 + r batches (uneven) inside DDP's join; every rank ends with the model."""
    settings = {
        "initial_world_size": dict(divide_by_initial_world_size=True),
        "active_ranks": dict(divide_by_initial_world_size=False),
    }
    for name, kwargs in settings.items():
        for find_unused in (False, True):
            def train(kwargs: Dict[str, Any] = kwargs, find_unused: bool = find_unused) -> Any:
                ddp = DDP(model(find_unused), find_unused_parameters=find_unused)
                opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.5)
                with ddp.join(**kwargs):
                    for i, (x, y) in enumerate(batches(rank, 2 + rank)):
                        opt.zero_grad()
                        F.mse_loss(ddp(x, use_unused=find_unused and i % 2 == 0), y).backward()
                        opt.step()
                return [p for p in ddp.module.parameters()] + [b for b in ddp.module.buffers()]

            rec.run(f"join/{name}/unused={find_unused}", train)

    def no_sync() -> Any:
        ddp = DDP(model())
        x, y = batches(rank, 2)[0]
        with ddp.no_sync():
            F.mse_loss(ddp(x), y).backward()
        F.mse_loss(ddp(x * 2), y).backward()
        return [p.grad for p in ddp.module.parameters()]

    def static_graph() -> Any:
        ddp = DDP(model(), static_graph=True)
        for x, y in batches(rank, 2):
            F.mse_loss(ddp(x), y).backward()
        return [p.grad for p in ddp.module.parameters()]

    rec.run("ddp/no_sync", no_sync)
    rec.run("ddp/static_graph", static_graph)

    def early_termination() -> Any:
        ddp = DDP(model())
        with ddp.join(throw_on_early_termination=True):
            for x, y in batches(rank, 2 + rank):
                F.mse_loss(ddp(x), y).backward()
        return "finished"

    rec.run("join/throw_on_early_termination", early_termination)


def ferrotorch_only(rec: Recorder, rank: int, world: int) -> None:
    """Mismatches across ranks, which gloo answers with a hang or an abort: ours must raise
    on every rank, naming the op and the ranks, and leave the group usable."""
    splits = [1] * world
    if rank == 0:
        splits[1] = 2  # rank 0 sends rank 1 two elements; rank 1 expects one
    rec.run("ours/all_to_all_single/split_mismatch", lambda: dist.all_to_all_single(torch.zeros(world), torch.zeros(sum(splits)), [1] * world, splits))
    dtype = torch.float64 if rank == 1 else torch.float32
    rec.run("ours/all_to_all/dtype_mismatch", lambda: dist.all_to_all([torch.zeros(1, dtype=dtype)] * world, [torch.zeros(1, dtype=dtype)] * world))
    def future_of_mismatch() -> Any:
        fut = dist.all_reduce(torch.ones(2 + (rank == 1)), async_op=True).get_future()
        chained = fut.then(lambda f: f.value())
        try:
            fut.wait()
        except RuntimeError:
            pass
        return chained.wait()

    rec.run("ours/future_of_mismatch", future_of_mismatch)
    after = torch.ones(2)
    dist.all_reduce(after)
    rec.out["ours/after_mismatch"] = numpy_of(after)
    # The last rank never reaches the first monitored barrier; only rank 0 the second.
    first, every = dist.new_group(list(range(world))), dist.new_group(list(range(world)))
    if rank != world - 1:
        rec.run("ours/monitored_barrier/first_missing", lambda: dist.monitored_barrier(first, timedelta(seconds=1)))
    if rank == 0:
        rec.run("ours/monitored_barrier/all_missing", lambda: dist.monitored_barrier(every, timedelta(seconds=1), wait_all_ranks=True))


def main() -> None:
    out_dir, store = sys.argv[2], sys.argv[3]
    rank, world = int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"])
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world, timeout=timedelta(seconds=60))
    rec = Recorder()
    collectives(rec, rank, world)
    argument_errors(rec, rank, world)
    join_training(rec, rank, world)
    if LIB == "ferrotorch":
        ferrotorch_only(rec, rank, world)
    dist.barrier()
    with open(os.path.join(out_dir, f"rank{rank}.pkl"), "wb") as f:
        pickle.dump(rec.out, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

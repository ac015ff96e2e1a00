"""Run under mpirun by tests/test_distributed.py: every case of tests/distributed_cases.py,
then the error cases; each rank saves what it holds to OUT_DIR/rank<r>.npz."""

from __future__ import annotations

import os
import sys
from datetime import timedelta

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from distributed_cases import Case, cases, values  # noqa: E402
from distributed_ddp_checks import run_checks  # noqa: E402

import ferrotorch as torch  # noqa: E402
import ferrotorch.distributed as dist  # noqa: E402


def tensor(case: Case, arr: np.ndarray) -> torch.Tensor:
    """``arr`` as a tensor of the case's dtype and layout (transposed: a non-contiguous view)."""
    dt = getattr(torch, case.dtype)
    if case.layout == "transposed":
        return torch.from_numpy(np.array(arr.T, order="C")).to(dt).t()
    return torch.from_numpy(np.array(arr, order="C")).to(dt)


def record(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        t = t.float()
    return np.asarray(t.contiguous()).copy()


def run(case: Case, rank: int, world: int) -> dict:
    root = world - 1
    x = tensor(case, values(case, rank))
    res: dict = {}
    red = getattr(dist.ReduceOp, case.red)
    if case.op == "all_reduce":
        dist.all_reduce(x, red)
        res["tensor"] = x
    elif case.op == "broadcast":
        dist.broadcast(x, root)
        res["tensor"] = x
    elif case.op == "reduce":
        dist.reduce(x, 1 % world, red)
        res["tensor"] = x
    elif case.op == "all_gather":
        outs = [torch.zeros(case.shape, dtype=x.dtype) for _ in range(world)]
        work = dist.all_gather(outs, x, async_op=True)
        work.wait()
        res.update({f"list{i}": o for i, o in enumerate(outs)})
    elif case.op == "gather":
        outs = [torch.zeros(case.shape, dtype=x.dtype) for _ in range(world)] if rank == root else None
        dist.gather(x, outs, root)
        res.update({f"list{i}": o for i, o in enumerate(outs or [])})
    elif case.op == "scatter":
        ins = [tensor(case, values(case, root, salt=100 + i)) for i in range(world)] if rank == root else None
        out = tensor(case, np.zeros(case.shape, values(case, 0).dtype))
        dist.scatter(out, ins, root)
        res["tensor"] = out
    elif case.op in ("send_recv", "isend_irecv"):
        out = tensor(case, np.zeros(case.shape, values(case, 0).dtype))
        nxt, prev = (rank + 1) % world, (rank - 1) % world
        if case.op == "send_recv":  # even ranks send first, so blocking calls cannot deadlock
            if rank % 2 == 0:
                dist.send(x, nxt)
                src = dist.recv(out, None)
            else:
                src = dist.recv(out, prev)
                dist.send(x, nxt)
        else:
            w_recv = dist.irecv(out, prev, tag=3)
            w_send = dist.isend(x, nxt, tag=3)
            w_send.wait()
            w_recv.wait()
            src = w_recv.source_rank()
        res["tensor"], res["source"] = out, torch.tensor(src)
    elif case.op == "all_gather_into_tensor":
        out = torch.zeros((2 * world, 3), dtype=x.dtype)
        dist.all_gather_into_tensor(out, x)
        res["tensor"] = out
    elif case.op == "reduce_scatter_tensor":
        big = tensor(case, values(case, rank, (2 * world, 3)))
        out = torch.zeros((2, 3), dtype=x.dtype)
        dist.reduce_scatter_tensor(out, big, red)
        res["tensor"] = out
    elif case.op == "all_to_all_single":
        big = tensor(case, values(case, rank, (2 * world, 3)))
        out = torch.zeros((2 * world, 3), dtype=x.dtype)
        dist.all_to_all_single(out, big)
        res["tensor"] = out
    return {k: record(v) for k, v in res.items()}


def error_cases(rank: int, world: int) -> dict:
    """Errors every rank must report (and then carry on: a mismatch moves no data)."""
    msgs = {}
    checks = {
        "shape": lambda: dist.all_reduce(torch.ones(2 + (rank == 1))),
        "dtype": lambda: dist.broadcast(torch.ones(2, dtype=torch.float64 if rank == 1 else torch.float32), 0),
        "op": lambda: dist.all_reduce(torch.ones(2)) if rank != 1 else dist.broadcast(torch.ones(2), 0),
        "root": lambda: dist.broadcast(torch.ones(2), 1 if rank == 1 else 0),
    }
    for name, fn in checks.items():
        try:
            fn()
            msgs[name] = "no error"
        except RuntimeError as e:
            msgs[name] = str(e)
    t = torch.ones(3)
    dist.all_reduce(t)  # still usable after the mismatches
    msgs["after"] = str(t.tolist())
    return msgs


def main() -> None:
    out_dir = sys.argv[1]
    dist.init_process_group("mpi", timeout=timedelta(seconds=30))
    rank, world = dist.get_rank(), dist.get_world_size()
    saved = {}
    for case in cases():
        for k, v in run(case, rank, world).items():
            saved[f"{case.name}/{k}"] = v
    # A subgroup of the even ranks, and object collectives.
    evens = dist.new_group([r for r in range(world) if r % 2 == 0])
    t = torch.tensor([float(rank)])
    dist.all_reduce(t, group=evens)
    saved["subgroup/tensor"] = np.asarray(t).copy()
    saved["subgroup/rank"] = np.array(dist.get_rank(evens))
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    saved["objects/ranks"] = np.array([o["rank"] for o in objs])
    lst = [rank * 10, "x"]
    dist.broadcast_object_list(lst, src=world - 1)
    saved["objects/broadcast"] = np.array(lst[0])
    for k, v in error_cases(rank, world).items():
        saved[f"errors/{k}"] = np.array(v)
    for k, v in run_checks(rank, world).items():
        saved[f"ddp/{k}"] = np.array(v)
    dist.barrier()
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

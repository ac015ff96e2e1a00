"""DistributedDataParallel checks run inside tests/distributed_worker.py (under mpirun):
each rank trains its shard with DDP and compares with single-process training on the
concatenated batch, computed locally. Returns {name: max abs difference or message}."""

from __future__ import annotations

from typing import Dict, List

import numpy as np

import ferrotorch as torch
import ferrotorch.distributed as dist
import ferrotorch.nn as nn
import ferrotorch.nn.functional as F
from ferrotorch.nn.parallel import DistributedDataParallel as DDP
from ferrotorch.utils.data import DistributedSampler


class Net(nn.Module):
    def __init__(self, unused_branch: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, padding=1)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 12))  # DDP copies buffers from rank 0 too
        self.fc1 = nn.Linear(12, 8)
        self.fc2 = nn.Linear(8, 2)
        self.extra = nn.Linear(8, 2) if unused_branch else None

    def forward(self, x: torch.Tensor, use_extra: bool = False) -> torch.Tensor:
        h = F.relu(self.conv(x)).mean(1).flatten(1)  # (N, 12) from (N, 1, 3, 4)
        h = F.relu(self.fc1(h * self.scale))
        out = self.fc2(h)
        if use_extra:
            out = out + self.extra(h)
        return out


def data(n: int, seed: int = 0):
    g = np.random.default_rng(seed)
    return torch.tensor(g.normal(size=(n, 1, 3, 4)).tolist()), torch.tensor(g.normal(size=(n, 2)).tolist())


def fresh(seed: int, rank: int, unused: bool = False) -> Net:
    """The same model on every rank, except that ranks > 0 start perturbed (DDP must copy rank 0)."""
    torch.manual_seed(seed)
    m = Net(unused).double()
    if rank > 0:
        with torch.no_grad():
            for t in [*m.parameters(), *m.buffers()]:
                t.add_(1.0)
    return m


def maxdiff(a: List[torch.Tensor], b: List[torch.Tensor]) -> float:
    return max(float((x.detach() - y.detach()).abs().max().item()) if x.numel() else 0.0 for x, y in zip(a, b))


def grads(m: nn.Module) -> List[torch.Tensor]:
    return [p.grad if p.grad is not None else torch.zeros_like(p) for p in m.parameters()]


def run_checks(rank: int, world: int) -> Dict[str, object]:
    res: Dict[str, object] = {}
    B = 3
    x, y = data(world * B)
    x, y = x.double(), y.double()
    mine = slice(rank * B, (rank + 1) * B)

    # One step: the averaged gradients equal the gradients of the loss on the whole batch.
    ddp = DDP(fresh(0, rank), bucket_cap_mb=0.0002)  # tiny buckets: many all-reduces in flight
    ref = fresh(0, 0)
    res["broadcast_at_construction"] = maxdiff(list(ddp.module.parameters()), list(ref.parameters()))
    F.mse_loss(ddp(x[mine]), y[mine]).backward()
    F.mse_loss(ref(x), y).backward()
    res["one_step_grads"] = maxdiff(grads(ddp.module), grads(ref))
    res["buckets"] = len(ddp.reducer.buckets)
    res["state_dict_keys"] = list(ddp.state_dict()) == ["module." + k for k in ref.state_dict()]

    # Several SGD steps (default 25 MiB bucket), then parameters agree.
    ddp, ref = DDP(fresh(1, rank)), fresh(1, 0)
    opt_d = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    opt_r = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        xs, ys = data(world * B, seed=10 + step)
        xs, ys = xs.double(), ys.double()
        opt_d.zero_grad()
        opt_r.zero_grad()
        F.mse_loss(ddp(xs[mine]), ys[mine]).backward()
        F.mse_loss(ref(xs), ys).backward()
        opt_d.step()
        opt_r.step()
    res["several_steps_params"] = maxdiff(list(ddp.module.parameters()), list(ref.parameters()))

    # no_sync: two micro-batches accumulate locally, the second backward averages the sum.
    ddp, ref = DDP(fresh(2, rank)), fresh(2, 0)
    x2, y2 = data(world * B, seed=99)
    x2, y2 = x2.double(), y2.double()
    with ddp.no_sync():
        F.mse_loss(ddp(x[mine]), y[mine]).backward()
    res["no_sync_local_only"] = maxdiff([p.grad for p in ddp.module.parameters()], [p.grad for p in _local_grads(fresh(2, 0), x[mine], y[mine])])
    F.mse_loss(ddp(x2[mine]), y2[mine]).backward()
    (F.mse_loss(ref(x), y) + F.mse_loss(ref(x2), y2)).backward()
    res["no_sync_accumulated"] = maxdiff(grads(ddp.module), grads(ref))

    # An epoch with DistributedSampler and an uneven last batch (4, then 1 per rank).
    n = world * 5
    xd, yd = data(n, seed=5)
    xd, yd = xd.double(), yd.double()
    ddp, ref = DDP(fresh(3, rank)), fresh(3, 0)
    opt_d = torch.optim.SGD(ddp.parameters(), lr=0.05)
    opt_r = torch.optim.SGD(ref.parameters(), lr=0.05)
    shards = [list(DistributedSampler(range(n), num_replicas=world, rank=r, shuffle=True, seed=3)) for r in range(world)]
    mine_idx = list(DistributedSampler(range(n), shuffle=True, seed=3))  # world and rank from the group
    res["sampler_uses_group"] = mine_idx == shards[rank]
    for start in range(0, 5, 4):
        idx = torch.tensor(shards[rank][start : start + 4])
        every = torch.tensor(sum((s[start : start + 4] for s in shards), []))
        opt_d.zero_grad()
        opt_r.zero_grad()
        F.mse_loss(ddp(xd[idx]), yd[idx]).backward()
        F.mse_loss(ref(xd[every]), yd[every]).backward()
        opt_d.step()
        opt_r.step()
    res["uneven_last_batch_params"] = maxdiff(list(ddp.module.parameters()), list(ref.parameters()))

    # find_unused_parameters: a branch only rank 0 uses gets rank 0's gradient / world.
    ddp = DDP(fresh(4, rank, unused=True), find_unused_parameters=True)
    out = ddp(x[mine], use_extra=(rank == 0))
    F.mse_loss(out, y[mine]).backward()
    r0 = fresh(4, 0, unused=True)
    F.mse_loss(r0(x[0:B], use_extra=True), y[0:B]).backward()
    extra_grad = [p.grad for p in ddp.module.extra.parameters()]
    res["unused_branch_grads"] = maxdiff(extra_grad, [p.grad / world for p in r0.extra.parameters()])

    # Without find_unused_parameters the next forward names the problem.
    ddp = DDP(fresh(5, rank, unused=True))
    F.mse_loss(ddp(x[mine]), y[mine]).backward()
    try:
        ddp(x[mine])
        res["unused_without_flag"] = "no error"
    except RuntimeError as e:
        res["unused_without_flag"] = str(e)
    dist.barrier()
    return res


def _local_grads(m: Net, x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    F.mse_loss(m(x), y).backward()
    return list(m.parameters())

"""Trains the digits CNN of train_digits.py with DistributedDataParallel on N processes and
prints throughput and test accuracy beside the same training in one process.

Run: python examples/ddp_train.py --nproc 2 [--epochs 5]
  (trains in this process, then starts N ranks with python -m ferrotorch.distributed.run)
Or start the ranks yourself: mpirun -n 2 python examples/ddp_train.py
                         or: python -m ferrotorch.distributed.run --nproc-per-node 2 examples/ddp_train.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from train_digits import DigitsCNN, evaluate, load_data  # noqa: E402

import ferrotorch as torch  # noqa: E402
import ferrotorch.distributed as dist  # noqa: E402
import ferrotorch.nn.functional as F  # noqa: E402
from ferrotorch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from ferrotorch.utils.data import DistributedSampler  # noqa: E402


def train(args: argparse.Namespace) -> Dict[str, Any]:
    """Trains on this rank's shard (the whole set when alone); returns rank 0's summary."""
    distributed = dist.is_initialized() and dist.get_world_size() > 1
    world = dist.get_world_size() if distributed else 1
    rank = dist.get_rank() if distributed else 0
    torch.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = load_data(args.seed)
    model = DigitsCNN()
    net = DDP(model) if distributed else model
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    sampler = DistributedSampler(range(len(y_train)), num_replicas=world, rank=rank, seed=args.seed)
    step_times, samples = [], 0
    start = time.perf_counter()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        order = torch.tensor(list(sampler))
        for i in range(0, len(order), args.batch_size):
            t0 = time.perf_counter()
            idx = order[i : i + args.batch_size]
            loss = F.cross_entropy(net(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_times.append(time.perf_counter() - t0)
            samples += len(idx) * world
    elapsed = time.perf_counter() - start
    steady = sorted(step_times[1:] or step_times)
    return {
        "processes": world,
        "accuracy": evaluate(model, x_test, y_test),
        "samples_per_s": samples / elapsed,
        "step_ms": 1000 * steady[len(steady) // 2],  # median: robust to a busy machine
        "seconds": elapsed,
    }


def report(r: Dict[str, Any]) -> str:
    return (f"{r['processes']} process(es): test accuracy {r['accuracy']:.2%}  {r['samples_per_s']:.0f} samples/s  "
            f"median step {r['step_ms']:.2f} ms  ({r['seconds']:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nproc", type=int, default=2, help="processes to compare with one (when started alone)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=32, help="per process")
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print rank 0's summary as JSON")
    args = ap.parse_args()
    launched = "OMPI_COMM_WORLD_SIZE" in os.environ or "RANK" in os.environ
    if launched:
        dist.init_process_group("mpi")
        local = int(os.environ.get("LOCAL_WORLD_SIZE") or os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // local))  # ranks share the cores
        result = train(args)
        if dist.get_rank() == 0:
            print(json.dumps(result) if args.json else report(result), flush=True)
        dist.destroy_process_group()
        return
    single = train(args)
    print(report(single), flush=True)
    cmd = [sys.executable, "-m", "ferrotorch.distributed.run", "--nproc-per-node", str(args.nproc), os.path.abspath(__file__), "--json",
           "--epochs", str(args.epochs), "--batch-size", str(args.batch_size), "--lr", str(args.lr), "--seed", str(args.seed)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    multi = json.loads(out.stdout.strip().splitlines()[-1])
    print(report(multi))
    print(f"speed-up in samples/s: {multi['samples_per_s'] / single['samples_per_s']:.2f}x on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

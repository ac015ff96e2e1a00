"""Distributed benches, each in processes of its own: the DDP example's median step time at
1 and 2 ranks, and the all-reduce bandwidth of ferrotorch.distributed (MPI backend) against
mpi4py's Allreduce on NumPy buffers of the same size, 1 KiB to 64 MiB, at 2 ranks.

    python -m bench --only distributed
    python bench/distributed.py            # the same rows alone
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from typing import List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [1 << k for k in range(10, 27, 2)]  # 1 KiB .. 64 MiB


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")]))


def _mpirun(n: int, *args: str) -> List[str]:
    cmd = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return [*cmd, sys.executable, *args]


def _time(fn, nbytes: int) -> float:
    """Seconds per call: enough calls for ~0.2 s (at least 3), after one warm-up."""
    fn()
    reps = max(3, min(2000, int(2e8 // max(nbytes, 1) // 50)))
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def allreduce_worker() -> None:
    """Under mpirun: times both all-reduces per size; rank 0 prints JSON lines."""
    import numpy as np
    from mpi4py import MPI

    import ferrotorch as ft
    import ferrotorch.distributed as dist

    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    for nbytes in SIZES:
        t = ft.ones(nbytes // 4)
        a = np.ones(nbytes // 4, np.float32)
        comm.Barrier()
        ours = _time(lambda: dist.all_reduce(t), nbytes)
        comm.Barrier()
        theirs = _time(lambda: comm.Allreduce(MPI.IN_PLACE, a), nbytes)
        if comm.rank == 0:
            print(json.dumps({"bytes": nbytes, "ferrotorch_s": ours, "mpi4py_s": theirs}), flush=True)
    dist.destroy_process_group()


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def rows() -> List[dict]:
    """Runs the benches and prints a markdown table; returns the rows for the JSON record."""
    out: List[dict] = []
    if shutil.which("mpirun") is None:
        print("distributed: mpirun not found, skipped")
        return out
    print("\n| DDP example (digits CNN, batch 32/rank), median step | ms | samples/s |")
    print("|---|---|---|")
    for n in (1, 2):
        cmd = _mpirun(n, os.path.join(ROOT, "examples", "ddp_train.py"), "--epochs", "2", "--json")
        res = subprocess.run(cmd, env=_env(), capture_output=True, text=True, check=True)
        r = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"| {n} rank(s) | {r['step_ms']:.2f} | {r['samples_per_s']:.0f} |", flush=True)
        out.append({"case": f"DDP step, {n} rank(s)", "unit": "ms", "median_s": {"ferrotorch": r["step_ms"] / 1000}, "samples_per_s": r["samples_per_s"]})
    print("\n| all_reduce float32 SUM, 2 ranks | ferrotorch | mpi4py (NumPy) | ft/mpi4py | ferrotorch GB/s |")
    print("|---|---|---|---|---|")
    res = subprocess.run(_mpirun(2, os.path.abspath(__file__), "--worker"), env=_env(), capture_output=True, text=True, check=True)
    for line in res.stdout.strip().splitlines():
        r = json.loads(line)
        ratio = r["ferrotorch_s"] / r["mpi4py_s"]
        print(f"| {_size(r['bytes'])} | {r['ferrotorch_s'] * 1e6:.1f} us | {r['mpi4py_s'] * 1e6:.1f} us | {ratio:.2f} | {r['bytes'] / r['ferrotorch_s'] / 1e9:.2f} |", flush=True)
        out.append({"case": f"all_reduce {_size(r['bytes'])}, 2 ranks", "unit": "us", "median_s": {"ferrotorch": r["ferrotorch_s"], "mpi4py": r["mpi4py_s"]}, "ratio_vs_mpi4py": ratio})
    return out


if __name__ == "__main__":
    if "--worker" in sys.argv:
        allreduce_worker()
    else:
        rows()

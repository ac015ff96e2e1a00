"""``python -m ferrotorch.distributed.run``: torchrun's command line, on MPI.

    python -m ferrotorch.distributed.run --nproc-per-node 4 train.py --epochs 3

starts 4 ranks of ``train.py`` through ``mpirun`` (so MPI does the rendezvous) with the
variables torchrun sets (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, GROUP_RANK). If one rank fails, the others are ended and the exit status is
non-zero, as with torchrun.

Several machines: run the same command on each with ``--nnodes M --node-rank i
--master-addr HOST --master-port PORT``. The launchers meet at HOST:PORT; node 0 then starts
every rank with one ``mpirun --host`` over all nodes (Open MPI reaches them by ssh, as usual
for MPI: passwordless ssh and the same paths on every node), the other launchers wait for it
and exit with its status.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from typing import List, Optional, Sequence


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ferrotorch.distributed.run", description="Starts N ranks of a training script over MPI (torchrun's flags).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1", help="ranks per node: an int, 'cpu', 'gpu' or 'auto'")
    p.add_argument("--nnodes", default="1", help="number of nodes (an int; 'MIN:MAX' takes MAX)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0, help="this node's rank (0 starts the job)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1", help="address of node 0")
    p.add_argument("--master-port", "--master_port", type=int, default=29500, help="port on node 0 where launchers meet")
    p.add_argument("--standalone", action="store_true", help="single node on a free local port")
    p.add_argument("--rdzv-id", "--rdzv_id", default=None, help="job id (TORCHELASTIC_RUN_ID)")
    for ignored in ("--rdzv-backend", "--rdzv_backend", "--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-conf", "--rdzv_conf", "--log-dir", "--log_dir", "--redirects", "--tee", "--local-addr", "--local_addr"):
        p.add_argument(ignored, default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0, help="restarts are not supported: must be 0")
    p.add_argument("--monitor-interval", "--monitor_interval", type=float, default=0.1, help=argparse.SUPPRESS)
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true", help="run the script as an executable, not through python")
    p.add_argument("--mpirun-args", default="", help="extra arguments passed to mpirun (e.g. '--bind-to none')")
    p.add_argument("training_script", help="the script (or module with -m) every rank runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value: str) -> int:
    if value in ("cpu", "auto", "gpu"):
        if value != "cpu":
            try:
                from .. import cuda

                if cuda.is_available():
                    return cuda.device_count()
            except Exception:  # noqa: BLE001 - no CUDA build: fall back to CPUs
                pass
            if value == "gpu":
                raise SystemExit("ferrotorch.distributed.run: --nproc-per-node gpu but no CUDA device is available")
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise SystemExit(f"ferrotorch.distributed.run: --nproc-per-node must be at least 1, got {n}")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mpirun_command(nproc: int, hosts: Optional[Sequence[str]], script: Sequence[str], extra: str = "", executable: Optional[str] = None) -> List[str]:
    """The mpirun command line that starts the ranks (``hosts``: one per node, in node order)."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise SystemExit("ferrotorch.distributed.run: mpirun not found; install Open MPI (scripts/setup.sh does: apt-get install openmpi-bin libopenmpi-dev)")
    total = nproc * (len(hosts) if hosts else 1)
    cmd = [mpirun, "-n", str(total), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if hosts:
        cmd += ["--host", ",".join(f"{h}:{nproc}" for h in hosts)]
    for var in ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "LOCAL_WORLD_SIZE", "TORCHELASTIC_RUN_ID", "OMP_NUM_THREADS"):
        if var in os.environ:
            cmd += ["-x", var]
    cmd += extra.split()
    if executable is None:
        cmd += [sys.executable, "-m", "ferrotorch.distributed._launched"]
    return cmd + list(script)


def _rendezvous_as_master(addr: str, port: int, nnodes: int) -> tuple:
    """Node 0: wait for the other nodes' launchers; returns (hosts in node order, sockets)."""
    server = socket.create_server(("", port))
    server.settimeout(900)
    hosts, conns = {0: addr}, {}
    while len(hosts) < nnodes:
        conn, (peer, _) = server.accept()
        node = int(conn.recv(64).decode().strip())
        hosts[node], conns[node] = peer, conn
    server.close()
    return [hosts[i] for i in range(nnodes)], conns


def _wait_for_master(addr: str, port: int, node_rank: int) -> int:
    """Node i > 0: register with node 0, then wait for the job's exit status."""
    deadline = time.monotonic() + 900
    while True:
        try:
            conn = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"ferrotorch.distributed.run: could not reach the master launcher at {addr}:{port}")
            time.sleep(1)
    with conn:
        conn.settimeout(None)
        conn.sendall(f"{node_rank}\n".encode())
        reply = conn.recv(64).decode().strip()
    return int(reply or 1)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parses torchrun's flags, starts the ranks, returns the job's exit status."""
    args = _parser().parse_args(argv)
    if args.max_restarts:
        raise SystemExit("ferrotorch.distributed.run: --max-restarts is not supported (MPI jobs end when a rank fails)")
    nproc = _nproc(args.nproc_per_node)
    nnodes = int(str(args.nnodes).split(":")[-1])
    port = _free_port() if args.standalone else args.master_port
    os.environ.update(
        MASTER_ADDR=args.master_addr, MASTER_PORT=str(port), LOCAL_WORLD_SIZE=str(nproc),
        TORCHELASTIC_RUN_ID=args.rdzv_id or ("none" if nnodes == 1 else f"ferrotorch-{uuid.uuid4().hex[:8]}"),
    )
    if nnodes > 1 and args.node_rank > 0:
        return _wait_for_master(args.master_addr, port, args.node_rank)
    script = [args.training_script, *args.training_script_args]
    if args.module:
        script = ["-m", *script]
    hosts, conns = (None, {})
    if nnodes > 1:
        hosts, conns = _rendezvous_as_master(args.master_addr, port, nnodes)
    cmd = mpirun_command(nproc, hosts, script, args.mpirun_args, args.training_script if args.no_python else None)
    rc = subprocess.call(cmd)
    for conn in conns.values():
        with conn:
            conn.sendall(f"{rc}\n".encode())
    return rc


if __name__ == "__main__":
    sys.exit(main())

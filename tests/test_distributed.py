"""ferrotorch.distributed over MPI: every collective at 2 ranks (started by our launcher) and
4 ranks (started by mpirun) against NumPy, for many dtypes and layouts; mismatches, a killed
rank and a hung rank end in errors that name the op and the rank, within the timeout."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from distributed_cases import cases, expected, tolerance

import ferrotorch.distributed as dist
from torch_oracle import needs_torch, pt

HERE = Path(__file__).parent
PYTHONPATH = os.pathsep.join([str(HERE.parent / "python"), os.environ.get("PYTHONPATH", "")])
HAVE_MPI = shutil.which("mpirun") is not None and dist.is_mpi_available()
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="Open MPI (mpirun) and mpi4py are not installed; scripts/setup.sh installs them")
CASES = cases()


def mpirun(n: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs ``python args`` on ``n`` ranks under mpirun."""
    cmd = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    return subprocess.run([*cmd, sys.executable, *args], env=env, capture_output=True, text=True, timeout=timeout)


def launch(n: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs ``args`` on ``n`` ranks through python -m ferrotorch.distributed.run."""
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    cmd = [sys.executable, "-m", "ferrotorch.distributed.run", "--nproc-per-node", str(n), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


_results: dict = {}


def results(world: int, tmp_path_factory: pytest.TempPathFactory) -> list:
    """What each rank held after every case (one job per world size, run once)."""
    if world not in _results:
        out = tmp_path_factory.mktemp(f"world{world}")
        worker = str(HERE / "distributed_worker.py")
        proc = launch(world, worker, str(out)) if world == 2 else mpirun(world, worker, str(out))
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        _results[world] = [dict(np.load(out / f"rank{r}.npz")) for r in range(world)]
    return _results[world]


@needs_mpi
@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_collective_matches_numpy(case, world, tmp_path_factory):
    held = results(world, tmp_path_factory)
    want = expected(case, world)
    for rank in range(world):
        got = {k.split("/", 1)[1]: v for k, v in held[rank].items() if k.startswith(case.name + "/")}
        assert sorted(got) == sorted(want[rank]), (rank, sorted(got))
        for key, value in want[rank].items():
            assert got[key].shape == value.shape, (rank, key)
            np.testing.assert_allclose(got[key].astype(value.dtype), value, rtol=tolerance(case.dtype), atol=tolerance(case.dtype), err_msg=f"rank {rank} {key}")


@needs_mpi
@pytest.mark.parametrize("world", [2, 4])
def test_subgroups_and_object_collectives(world, tmp_path_factory):
    held = results(world, tmp_path_factory)
    evens = [r for r in range(world) if r % 2 == 0]
    for rank in range(world):
        h = held[rank]
        if rank in evens:
            assert h["subgroup/tensor"].item() == sum(evens) and h["subgroup/rank"] == evens.index(rank)
        else:  # not a member: the collective is a no-op, get_rank(group) is -1
            assert h["subgroup/tensor"].item() == rank and h["subgroup/rank"] == -1
        assert list(h["objects/ranks"]) == list(range(world))
        assert h["objects/broadcast"] == (world - 1) * 10


ERRORS = {
    "shape": ("all_reduce", "shape [2]", "shape [3]"),
    "dtype": ("broadcast", "torch.float64", "torch.float32"),
    "op": ("called broadcast", "called all_reduce"),
    "root": ("root rank",),
}


@needs_mpi
@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_mismatch_raises_on_every_rank(kind, world, tmp_path_factory):
    held = results(world, tmp_path_factory)
    for rank in range(world):
        msg = str(held[rank][f"errors/{kind}"])
        assert msg.startswith("ferrotorch.distributed: ") and f"on rank {rank}" in msg, msg
        # The ranks that differ from this one are named (rank 1 differs from the others).
        if rank != 1:
            assert "rank 1 " in msg, msg
        assert any(part in msg for part in ERRORS[kind]), msg
        assert held[rank]["errors/after"] == str([float(world)] * 3)


FAILING = textwrap.dedent(
    """
    import os, signal, sys, time
    from datetime import timedelta
    import ferrotorch as torch, ferrotorch.distributed as dist
    dist.init_process_group("mpi", timeout=timedelta(seconds=float(sys.argv[2])))
    dist.all_reduce(torch.ones(2))
    if dist.get_rank() == 1:
        if sys.argv[1] == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(60)
    dist.all_reduce(torch.ones(2))
    print("finished", flush=True)
    """
)


@needs_mpi
@pytest.mark.parametrize("how", ["kill", "hang"])
def test_failed_rank_ends_the_others_with_an_error(how, tmp_path):
    script = tmp_path / "failing.py"
    script.write_text(FAILING)
    start = time.monotonic()
    proc = mpirun(3, str(script), how, "2", timeout=60)
    elapsed = time.monotonic() - start
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "finished" not in out
    assert elapsed < 30, out  # bounded: never the 60 s the failed rank would take
    for rank in (0, 2):
        if how == "kill":  # the launcher ends the job; survivors name the op they were in
            assert "rank 1 with PID" in out
            assert f"all_reduce on rank {rank} was interrupted" in out or "Killed" in out, out
        else:  # the survivors time out and name the rank that never arrived; a survivor still
            # waiting when the first one's timeout ends the job is interrupted instead (under load)
            timed_out = f"all_reduce on rank {rank} timed out after 2 s waiting for rank(s) [1]"
            assert timed_out in out or f"all_reduce on rank {rank} was interrupted" in out, out
    if how == "hang":
        assert "timed out after 2 s waiting for rank(s) [1]" in out, out


SINGLE = textwrap.dedent(
    """
    import json, sys
    from datetime import timedelta
    import ferrotorch as torch, ferrotorch.distributed as dist
    out = {}
    def err(fn):
        try:
            fn()
            return "no error"
        except Exception as e:
            return f"{type(e).__name__}: {e}"
    out["before_init"] = err(dist.get_rank)
    out["too_many"] = err(lambda: dist.init_process_group("mpi", world_size=2, rank=0))
    out["bad_backend"] = err(lambda: dist.init_process_group("ucc"))
    dist.init_process_group("gloo", init_method="env://", timeout=timedelta(seconds=5))
    out["twice"] = err(lambda: dist.init_process_group("mpi"))
    out["ids"] = [dist.is_initialized(), dist.get_rank(), dist.get_world_size(), dist.get_backend()]
    t = torch.arange(4.0)
    dist.all_reduce(t, dist.ReduceOp.AVG)
    out["avg"] = t.tolist()
    out["avg_int"] = err(lambda: dist.all_reduce(torch.ones(2, dtype=torch.int64), dist.ReduceOp.AVG))
    out["max_complex"] = err(lambda: dist.all_reduce(torch.ones(2, dtype=torch.complex64), dist.ReduceOp.MAX))
    out["list_len"] = err(lambda: dist.all_gather([torch.zeros(2), torch.zeros(2)], torch.ones(2)))
    out["into_size"] = err(lambda: dist.all_gather_into_tensor(torch.zeros(3), torch.ones(2)))
    out["bad_dst"] = err(lambda: dist.reduce(torch.ones(2), dst=3))
    out["not_tensor"] = err(lambda: dist.all_reduce([1.0]))
    out["self_send"] = err(lambda: dist.send(torch.ones(1), 0))
    w = dist.all_reduce(torch.ones(2), async_op=True)
    out["work"] = [w.wait(), w.is_completed(), w.is_success(), w.exception() is None]
    dist.destroy_process_group()
    out["after_destroy"] = dist.is_initialized()
    print(json.dumps(out))
    """
)


@needs_mpi
def test_single_process_api_and_argument_errors(tmp_path):
    script = tmp_path / "single.py"
    script.write_text(SINGLE)
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json

    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["before_init"] == "ValueError: Default process group has not been initialized, please make sure to call init_process_group."
    assert out["too_many"].startswith("ValueError: init_process_group: world_size=2 but MPI started 1 process(es)") and "mpirun -n 2" in out["too_many"]
    assert out["bad_backend"].startswith("ValueError: init_process_group: unknown backend 'ucc'")
    assert out["twice"] == "ValueError: trying to initialize the default process group twice!"
    assert out["ids"] == [True, 0, 1, "mpi"]
    assert out["avg"] == [0.0, 1.0, 2.0, 3.0]
    assert out["avg_int"].startswith("ValueError: all_reduce: ReduceOp.AVG needs a floating point")
    assert out["max_complex"].startswith("ValueError: all_reduce: ReduceOp.MAX is not defined for complex")
    assert out["list_len"].startswith("RuntimeError: all_gather: tensor_list must be a list of 1 tensors")
    assert out["into_size"].startswith("RuntimeError: all_gather_into_tensor: output tensor size must be equal to world_size")
    assert out["bad_dst"].startswith("ValueError: reduce: dst=3 is not a rank of this group")
    assert out["not_tensor"].startswith("TypeError: all_reduce: tensor must be a Tensor")
    assert out["self_send"].startswith("ValueError: isend: Invalid destination rank")
    assert out["work"] == [True, True, True, True]
    assert out["after_destroy"] is False


def test_uninitialized_errors_match_torch():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_world_size()
    assert not dist.is_initialized() and dist.is_available()


API = [
    "init_process_group", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
    "reduce_scatter", "reduce", "gather", "scatter", "send", "recv", "isend", "irecv", "barrier", "new_group",
    "destroy_process_group", "get_rank", "get_world_size", "all_to_all_single", "get_backend",
    "all_to_all", "batch_isend_irecv", "monitored_barrier", "all_gather_object", "broadcast_object_list",
    "gather_object", "scatter_object_list", "send_object_list", "recv_object_list", "new_subgroups",
    "new_subgroups_by_enumeration", "get_node_local_rank", "is_backend_available", "get_default_backend_for_device",
]


@needs_torch
@pytest.mark.parametrize("name", API)
def test_signatures_match_torch(name):
    import torch.distributed as tdist

    ours = list(inspect.signature(getattr(dist, name)).parameters)
    theirs = [p for p in inspect.signature(getattr(tdist, name)).parameters if p not in ("_ranks", "enable_reconfigure", "sort_ranks")]
    assert ours == theirs
    for p in ours:
        d_ours = inspect.signature(getattr(dist, name)).parameters[p].default
        d_theirs = inspect.signature(getattr(tdist, name)).parameters[p].default
        if p not in ("timeout", "backend"):
            assert d_ours == d_theirs or (d_ours is None and d_theirs is None), p


@needs_torch
def test_reduce_op_and_backend_match_torch():
    import torch.distributed as tdist

    for name, member in tdist.ReduceOp.RedOpType.__members__.items():
        assert int(getattr(dist.ReduceOp, name)) == int(member)
        assert repr(getattr(dist.ReduceOp, name)) == repr(member)
    assert dist.Backend("MPI") == tdist.Backend("MPI") == "mpi"
    assert dist.default_pg_timeout == tdist.default_pg_timeout
    assert issubclass(dist.DistBackendError, RuntimeError)
    assert pt is not None


DDP_CLOSE = ["broadcast_at_construction", "one_step_grads", "several_steps_params", "no_sync_local_only", "no_sync_accumulated", "uneven_last_batch_params", "unused_branch_grads"]


@needs_mpi
@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("check", DDP_CLOSE)
def test_ddp_matches_single_process_training(check, world, tmp_path_factory):
    """DDP on `world` shards equals one process on the concatenated batch (float64)."""
    for rank, held in enumerate(results(world, tmp_path_factory)):
        assert float(held[f"ddp/{check}"]) < 1e-12, (rank, float(held[f"ddp/{check}"]))


@needs_mpi
@pytest.mark.parametrize("world", [2, 4])
def test_ddp_buckets_state_dict_sampler_and_unused_error(world, tmp_path_factory):
    for held in results(world, tmp_path_factory):
        assert int(held["ddp/buckets"]) > 1  # the tiny bucket cap split the parameters
        assert bool(held["ddp/state_dict_keys"]) and bool(held["ddp/sampler_uses_group"])
        assert str(held["ddp/unused_without_flag"]).startswith("Expected to have finished reduction in the prior iteration")
        assert "find_unused_parameters=True" in str(held["ddp/unused_without_flag"])


def test_ddp_needs_an_initialized_group():
    import ferrotorch as torch

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))

"""ferrotorch.distributed (MPI) against PyTorch's gloo backend, the oracle: one program
(tests/distributed_compat_worker.py) runs on 2 and 4 ranks with each library; every value
each rank holds, and every error class, must be the same. Where gloo refuses something
PyTorch's other backends do (pieces of different sizes in all_to_all, a stacked output of
all_gather_into_tensor), ours is checked against NumPy instead."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

import ferrotorch.distributed as dist
from torch_oracle import needs_torch

HERE = Path(__file__).parent
HAVE_MPI = shutil.which("mpirun") is not None and dist.is_mpi_available()
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="Open MPI (mpirun) and mpi4py are not installed; scripts/setup.sh installs them")
WORLDS = [2, 4]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]
# Keys whose values gloo cannot produce: ours are checked against NumPy.
GLOO_REFUSES = ("all_to_all/uneven/", "all_gather_into_tensor/stack/")
SECTIONS = [
    "all_to_all/even", "all_to_all_single/splits", "all_to_all_single/even", "all_to_all_single/1d", "all_gather_into_tensor/cat",
    "all_gather_into_tensor/empty", "reduce_scatter_tensor", "reduce_scatter/", "batch_isend_irecv",
    "async/", "new_group", "new_subgroups", "backend_queries", "objects", "monitored_barrier", "error/", "join/", "ddp/",
]

_runs: Dict[tuple, List[Dict[str, Any]]] = {}


def run(lib: str, world: int, tmp_path_factory: pytest.TempPathFactory) -> List[Dict[str, Any]]:
    """What each rank of the worker held, under ``lib`` (run once per library and world)."""
    if (lib, world) not in _runs:
        out = tmp_path_factory.mktemp(f"{lib}{world}")
        cmd = ["mpirun", "-n", str(world), "--oversubscribe"]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "python"), str(HERE), os.environ.get("PYTHONPATH", "")]))
        cmd += [sys.executable, str(HERE / "distributed_compat_worker.py"), lib, str(out), str(out / "store")]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        _runs[(lib, world)] = [pickle.loads((out / f"rank{r}.pkl").read_bytes()) for r in range(world)]
    return _runs[(lib, world)]


def assert_same(ours: Any, theirs: Any, where: str) -> None:
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{where}: {ours!r} vs {theirs!r}"
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, f"{where}: {ours.shape} {ours.dtype} vs {theirs.shape} {theirs.dtype}"
        tol = 1e-10 if theirs.dtype == np.float64 else 1e-6
        np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), rtol=tol, atol=tol, err_msg=where)
    else:
        assert ours == theirs, f"{where}: ours {ours!r}, PyTorch's {theirs!r}"


def np_values(shape: tuple, dtype: str, seed: int) -> np.ndarray:
    from distributed_compat_worker import np_values as values

    return values(shape, dtype, seed)


def numpy_expected(key: str, rank: int, world: int) -> Any:
    """What the NumPy reference says a rank holds for the keys gloo refuses."""
    dtype = key.rsplit("/", 1)[1]
    if key.startswith("all_to_all/uneven/"):
        return [np_values((i + rank, 3), dtype, 100 * i + rank) for i in range(world)]
    return np.stack([np_values((2, 3), dtype, 11 + i) for i in range(world)])


@needs_mpi
@needs_torch
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("section", SECTIONS)
def test_same_values_and_errors_as_gloo(section, world, tmp_path_factory):
    theirs_all, ours_all = run("torch", world, tmp_path_factory), run("ferrotorch", world, tmp_path_factory)
    checked = 0
    for rank in range(world):
        theirs, ours = theirs_all[rank], ours_all[rank]
        for key in sorted(k for k in theirs if k.startswith(section) and not k.endswith("/message")):
            assert key in ours, key
            where = f"rank {rank} {key}"
            if isinstance(ours[key], str) and ours[key].startswith("error:") and ours[key] != theirs[key]:
                pytest.fail(f"{where}: ours raised {ours[key]}: {ours.get(key + '/message')}; PyTorch gave {str(theirs[key])[:200]}")
            assert_same(ours[key], theirs[key], where)
            checked += 1
    assert checked >= world  # the section ran


@needs_mpi
@needs_torch
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", GLOO_REFUSES)
def test_what_gloo_refuses_matches_numpy(kind, dtype, world, tmp_path_factory):
    theirs_all, ours_all = run("torch", world, tmp_path_factory), run("ferrotorch", world, tmp_path_factory)
    key = kind + dtype
    for rank in range(world):
        assert str(theirs_all[rank][key]).startswith("error: RuntimeError")  # gloo's limitation, not PyTorch's API
        want = numpy_expected(key, rank, world)
        got = ours_all[rank][key]
        want_list = want if isinstance(want, list) else [want]
        got_list = got if isinstance(got, list) else [got]
        assert len(got_list) == len(want_list)
        for g, w in zip(got_list, want_list):
            assert g.shape == w.shape, (rank, key, g.shape, w.shape)
            np.testing.assert_array_equal(g.astype(np.float64), w.astype(dtype if dtype != "bfloat16" else np.float32).astype(np.float64))


@needs_mpi
@needs_torch
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous_output_gets_the_contiguous_result(dtype, world, tmp_path_factory):
    """all_to_all_single into a transposed view: gloo fills the view's storage in memory order
    (a quirk, not an API promise); ours equals gloo's result into a contiguous output."""
    theirs_all, ours_all = run("torch", world, tmp_path_factory), run("ferrotorch", world, tmp_path_factory)
    for rank in range(world):
        assert_same(ours_all[rank][f"all_to_all_single/transposed/{dtype}"], theirs_all[rank][f"all_to_all_single/even/{dtype}"], f"rank {rank} {dtype}")


OUR_MESSAGES = {
    "error/all_to_all/list_size": "all_to_all: output tensor list size 1 does not match world size",
    "error/all_to_all_single/split_sum": "all_to_all_single: input_split_sizes",
    "error/all_to_all_single/indivisible": "all_to_all_single: input has",
    "error/reduce_scatter/list_size": "reduce_scatter: input_list must be a list of",
    "error/all_gather/list_size": "all_gather: tensor_list must be a list of",
    "error/all_gather_into_tensor/size": "all_gather_into_tensor: output tensor size must be equal to world_size",
    "join/throw_on_early_termination": "exhausted",
}


@needs_mpi
@needs_torch
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("key", sorted(OUR_MESSAGES))
def test_argument_errors_name_the_op(key, world, tmp_path_factory):
    for rank, held in enumerate(run("ferrotorch", world, tmp_path_factory)):
        assert OUR_MESSAGES[key] in held[key + "/message"], (rank, held[key + "/message"])


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_cross_rank_mismatches_name_the_ranks(world, tmp_path_factory):
    """Errors only the ranks together can see (gloo hangs or aborts on these): every rank
    raises, naming the op and the ranks that disagree, and the group stays usable."""
    for rank, held in enumerate(run("ferrotorch", world, tmp_path_factory)):
        split = held["ours/all_to_all_single/split_mismatch/message"]
        assert split.startswith(f"ferrotorch.distributed: all_to_all_single on rank {rank}: rank 0 sends 2 elements to rank 1, which expects 1"), split
        dtype = held["ours/all_to_all/dtype_mismatch/message"]
        assert f"all_to_all on rank {rank}" in dtype and "torch.float64" in dtype, dtype
        assert held["ours/after_mismatch"].tolist() == [float(world)] * 2
        future = held["ours/future_of_mismatch/message"]  # the Work's error, through a chained Future
        assert future.startswith("Got the following error when running the callback: RuntimeError: ferrotorch.distributed: all_reduce on rank"), future
        if rank == 0:
            assert held["ours/monitored_barrier/first_missing/message"] == f"[Rank 0]: Rank {world - 1} failed to pass monitoredBarrier in 1000 ms"
            missing = ", ".join(str(r) for r in range(1, world))
            assert held["ours/monitored_barrier/all_missing/message"] == f"[Rank 0]: Ranks {missing} failed to pass monitoredBarrier in 1000 ms"
        elif rank != world - 1:  # arrived, but rank 0 gave up and never acknowledged
            assert held["ours/monitored_barrier/first_missing/message"].startswith(f"Rank {rank} successfully reached monitoredBarrier, but received errors")


def _signature(obj: Any) -> List[tuple]:
    import inspect

    return [(p.name, p.default) for p in inspect.signature(obj).parameters.values()]


@needs_torch
@pytest.mark.parametrize(
    "path",
    ["P2POp.__init__", "algorithms.Join.__init__", "algorithms.Join.notify_join_context", "algorithms.JoinHook.main_hook", "algorithms.JoinHook.post_hook"],
)
def test_join_and_p2p_signatures_match_torch(path):
    import torch.distributed as tdist

    def lookup(root: Any) -> Any:
        for part in path.split("."):
            root = getattr(root, part)
        return root

    assert _signature(lookup(dist)) == _signature(lookup(tdist))


@needs_torch
@pytest.mark.parametrize("name", ["join", "join_hook", "no_sync"])
def test_ddp_join_api_matches_torch(name):
    import torch.nn.parallel as tpar

    from ferrotorch.nn.parallel import DistributedDataParallel

    assert _signature(getattr(DistributedDataParallel, name)) == _signature(getattr(tpar.DistributedDataParallel, name))
    assert issubclass(DistributedDataParallel, dist.algorithms.Joinable)

"""examples/ddp_train.py runs end to end: one process, then two ranks through the launcher."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import ferrotorch.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(shutil.which("mpirun") is None or not dist.is_mpi_available(), reason="Open MPI and mpi4py are not installed; scripts/setup.sh installs them")
def test_ddp_example_trains_on_two_ranks_beside_one():
    pytest.importorskip("sklearn")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "ddp_train.py"), "--nproc", "2", "--epochs", "2"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    accs = {int(n): float(a) for n, a in re.findall(r"(\d) process\(es\): test accuracy ([\d.]+)%", out.stdout)}
    assert set(accs) == {1, 2}, out.stdout
    assert accs[1] > 70 and accs[2] > 70, out.stdout  # two short epochs: well past chance (10%)
    assert "speed-up in samples/s" in out.stdout

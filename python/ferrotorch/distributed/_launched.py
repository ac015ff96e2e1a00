"""What each rank runs under ``ferrotorch.distributed.run``: sets torchrun's variables from
MPI's (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK ...) so scripts can read
them before ``init_process_group``, then runs the user's script or module as ``__main__``."""

from __future__ import annotations

import os
import runpy
import sys


def _set_rank_environment() -> None:
    env = os.environ
    rank = int(env.get("OMPI_COMM_WORLD_RANK", env.get("PMIX_RANK", "0")))
    local_rank = int(env.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    per_node = int(env.get("LOCAL_WORLD_SIZE") or env.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
    env["RANK"] = str(rank)
    env["LOCAL_RANK"] = str(local_rank)
    env["WORLD_SIZE"] = env.get("OMPI_COMM_WORLD_SIZE", env.get("WORLD_SIZE", "1"))
    env["LOCAL_WORLD_SIZE"] = str(per_node)
    env["GROUP_RANK"] = str(rank // per_node)
    env["ROLE_RANK"], env["ROLE_WORLD_SIZE"] = env["RANK"], env["WORLD_SIZE"]
    env.setdefault("TORCHELASTIC_RESTART_COUNT", "0")


def main(argv: list) -> None:
    _set_rank_environment()
    if argv[:1] == ["-m"]:
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Starting and ending the default process group, and asking about ranks.

Ranks rendezvous through MPI: started by ``mpirun -n N`` (or by
``python -m ferrotorch.distributed.run``, which runs mpirun), every process is already part
of MPI's world, so ``init_process_group`` needs no address or store. torchrun's variables
(RANK, WORLD_SIZE) and ``rank=``/``world_size=`` are checked against MPI's world; a script
started on its own is a world of one.
"""

from __future__ import annotations

import importlib.util
import os
from datetime import timedelta
from typing import Any, List, Optional, Sequence, Union

from ._mpi_group import ProcessGroup, install_termination_handler

default_pg_timeout = timedelta(minutes=30)

_INIT_SCHEMES = ("env://", "tcp://", "file://", "mpi://")


class Backend(str):
    """A backend name: ``Backend("MPI") == "mpi"``. ``gloo`` is served by the MPI engine."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str) -> "Backend":
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        return super().__new__(cls, value)


class GroupMember:
    """``GroupMember.WORLD`` is the default group; ranks outside a ``new_group`` get
    ``GroupMember.NON_GROUP_MEMBER``."""

    NON_GROUP_MEMBER = -100
    WORLD: Optional[ProcessGroup] = None


class _WorldProperty:
    @property
    def WORLD(self) -> Optional[ProcessGroup]:  # noqa: N802 (PyTorch's name)
        return GroupMember.WORLD


group = _WorldProperty()

_groups: List[ProcessGroup] = []


def is_available() -> bool:
    """True: the distributed package is built in (its engines may still be missing)."""
    return True


def is_mpi_available() -> bool:
    """True if mpi4py (the MPI engine's Python binding) is installed."""
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available() -> bool:
    """``backend="gloo"`` runs on the MPI engine: available when MPI is."""
    return is_mpi_available()


def is_nccl_available() -> bool:
    """True if this build has CUDA with NCCL."""
    from .. import _core

    return bool(getattr(_core, "_nccl_available", lambda: False)())


def is_backend_available(backend: str) -> bool:
    """True if ``backend`` ("mpi", "gloo" or "nccl") can run here."""
    checks = {"mpi": is_mpi_available, "gloo": is_gloo_available, "nccl": is_nccl_available}
    check = checks.get(str(backend).lower())
    return bool(check and check())


def get_default_backend_for_device(device: Any) -> str:
    """The backend PyTorch picks for a device type: gloo (served by MPI) for CPU, nccl for CUDA."""
    kind = device if isinstance(device, str) else getattr(device, "type", str(device))
    kind = kind.split(":")[0]
    backends = {"cpu": "gloo", "cuda": "nccl"}
    if kind not in backends:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backends[kind]


def get_pg_count() -> int:
    """How many process groups exist (the default group and every ``new_group``)."""
    return len(_groups)


def is_initialized() -> bool:
    """True once ``init_process_group`` ran (and until ``destroy_process_group``)."""
    return GroupMember.WORLD is not None


def is_torchelastic_launched() -> bool:
    """True when started by a torchrun-style launcher (ferrotorch's sets TORCHELASTIC_RUN_ID)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank: Optional[int] = None) -> int:
    """This process's rank on its node: LOCAL_RANK (torchrun, our launcher), else Open MPI's
    OMPI_COMM_WORLD_LOCAL_RANK (plain mpirun), else ``fallback_rank``."""
    for name in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"):
        if name in os.environ:
            return int(os.environ[name])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow `get_node_local_rank` to work, "
        "assuming you are not running in a multi-device context and want the code to run locally instead."
    )


def _default_group(op_name: str = "") -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
    return GroupMember.WORLD


def resolve_group(g: Optional[Any], op_name: str) -> Optional[ProcessGroup]:
    """The group an op runs on; None if this rank is not a member (the op is then a no-op)."""
    pg = _default_group(op_name)
    if g is None or g is GroupMember.WORLD:
        return pg
    if isinstance(g, int) and g == GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"{op_name}: group must be a ProcessGroup, got {type(g).__name__}")
    return g


def _env_int(name: str) -> Optional[int]:
    v = os.environ.get(name)
    return int(v) if v not in (None, "") else None


def _timeout_seconds(timeout: Optional[timedelta]) -> float:
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


def _check_launch(rank: int, world_size: int, mpi_rank: int, mpi_size: int) -> None:
    """The ranks a user asked for must be the processes MPI started."""
    how = f"start the ranks with `mpirun -n {world_size} python script.py` or `python -m ferrotorch.distributed.run --nproc-per-node {world_size} script.py`"
    if world_size != -1 and world_size != mpi_size:
        raise ValueError(f"init_process_group: world_size={world_size} but MPI started {mpi_size} process(es); {how}")
    if rank != -1 and rank != mpi_rank:
        raise ValueError(f"init_process_group: rank={rank} but MPI gave this process rank {mpi_rank}; ranks follow MPI's numbering")


def _parse_backend(backend: Optional[Union[str, Backend]], device_id: Any) -> str:
    if backend is None:
        backend = "nccl" if device_id is not None and "cuda" in str(device_id) else "mpi"
    if not isinstance(backend, str):
        raise TypeError(f"init_process_group: backend must be a string, got {type(backend).__name__}")
    names = {part.split(":")[-1].strip().lower() for part in backend.split(",")}
    unknown = names - {"mpi", "gloo", "nccl"}
    if unknown:
        raise ValueError(f"init_process_group: unknown backend {sorted(unknown)[0]!r}; ferrotorch has 'mpi' (also serving 'gloo') and 'nccl'")
    return "nccl" if "nccl" in names else "mpi"


def init_process_group(
    backend: Optional[Union[str, Backend]] = None,
    init_method: Optional[str] = None,
    timeout: Optional[timedelta] = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Joins this process to the default process group.

    ``backend="mpi"`` (also ``"gloo"``) runs CPU tensors over MPI; ``"nccl"`` runs CUDA
    tensors over NCCL (CPU tensors still go over MPI). Processes must have been started by
    ``mpirun`` or ``python -m ferrotorch.distributed.run``; ``rank``/``world_size`` (or the
    RANK/WORLD_SIZE variables torchrun sets) must agree with MPI's numbering. ``init_method``
    (``env://``, ``tcp://``, ``file://``) and ``store`` are accepted for compatibility: MPI
    does the rendezvous. ``timeout`` bounds every collective: past it, the ranks still
    waiting raise DistBackendError naming the op and the ranks that did not arrive.
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if init_method is not None and not str(init_method).startswith(_INIT_SCHEMES):
        raise ValueError(f"init_process_group: init_method {init_method!r} must start with one of {', '.join(_INIT_SCHEMES)}")
    name = _parse_backend(backend, device_id)
    timeout_s = _timeout_seconds(timeout)
    if name == "nccl" and not is_nccl_available():
        raise RuntimeError("init_process_group: backend 'nccl' needs ferrotorch built with CUDA (the 'cuda' feature) and a GPU")
    if not is_mpi_available():
        raise RuntimeError(
            "init_process_group: the MPI engine is missing: install Open MPI (apt-get install openmpi-bin libopenmpi-dev) "
            "and mpi4py (pip install mpi4py); scripts/setup.sh does both"
        )
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    rank = rank if rank != -1 else (_env_int("RANK") if _env_int("RANK") is not None else -1)
    world_size = world_size if world_size != -1 else (_env_int("WORLD_SIZE") or -1)
    _check_launch(rank, world_size, world.Get_rank(), world.Get_size())
    pg = ProcessGroup(world.Dup(), list(range(world.Get_size())), timeout_s, name)
    GroupMember.WORLD = pg
    _groups.append(pg)
    if name == "nccl":
        from ._nccl import attach_nccl

        try:
            attach_nccl(pg, device_id)
        except BaseException:
            destroy_process_group()
            raise
    if world.Get_size() > 1:
        install_termination_handler()


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    """Ends a group (the default one and every other when ``group`` is None)."""
    if group is None or group is GroupMember.WORLD:
        for g in reversed(_groups):
            g.free()
        _groups.clear()
        GroupMember.WORLD = None
    elif isinstance(group, ProcessGroup):
        group.free()
        if group in _groups:
            _groups.remove(group)


def get_rank(group: Optional[ProcessGroup] = None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 outside the group."""
    pg = resolve_group(group, "get_rank")
    return -1 if pg is None else pg.rank()


def get_world_size(group: Optional[ProcessGroup] = None) -> int:
    """The number of ranks in ``group`` (the default group when None); -1 outside the group."""
    pg = resolve_group(group, "get_world_size")
    return -1 if pg is None else pg.size()


def get_backend(group: Optional[ProcessGroup] = None) -> str:
    """The backend name of ``group``."""
    pg = resolve_group(group, "get_backend")
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg.backend


def get_process_group_ranks(group: ProcessGroup) -> List[int]:
    """The global ranks of ``group``'s members, in group order."""
    pg = resolve_group(group, "get_process_group_ranks")
    return [] if pg is None else list(pg.global_ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group_rank`` in ``group``."""
    pg = resolve_group(group, "get_global_rank")
    if pg is None or not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return pg.global_ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank in ``group`` of the process with global rank ``global_rank``."""
    pg = resolve_group(group, "get_group_rank")
    if pg is None or global_rank not in pg.global_ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return pg.global_ranks.index(global_rank)


def new_group(
    ranks: Optional[Sequence[int]] = None,
    timeout: Optional[timedelta] = None,
    backend: Optional[str] = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: Optional[str] = None,
    device_id: Any = None,
) -> Union[ProcessGroup, int]:
    """A group of the given global ``ranks`` (all ranks when None). Every rank of the default
    group must call it, members or not; non-members get ``GroupMember.NON_GROUP_MEMBER``."""
    world = _default_group("new_group")
    members = sorted(set(range(world.size()) if ranks is None else ranks))
    for r in members:
        if not isinstance(r, int) or not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r!r} is not in the default group (world size {world.size()})")
    from mpi4py import MPI

    world.wait_all()  # Split is a collective on the data communicator: nothing may be pending
    me = world.global_rank
    sub = world._comm.Split(0 if me in members else MPI.UNDEFINED, members.index(me) if me in members else 0)
    if me not in members:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(sub, members, _timeout_seconds(timeout) if timeout is not None else world.timeout_s, world.backend)
    _groups.append(pg)
    return pg


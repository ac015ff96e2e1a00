"""``ferrotorch.distributed``: PyTorch's ``torch.distributed`` on MPI (CPU tensors) and
NCCL (CUDA tensors).

Start N ranks with ``mpirun -n N python script.py`` or
``python -m ferrotorch.distributed.run --nproc-per-node N script.py``, then in the script::

    import ferrotorch.distributed as dist
    dist.init_process_group("mpi")        # "gloo" is served by MPI too; "nccl" for CUDA
    t = torch.ones(3) * dist.get_rank()
    dist.all_reduce(t)                    # in place, on the tensor's own memory

Every collective first exchanges a small header: a rank that calls a different collective,
or passes another shape or dtype, makes every rank raise an error that names it; a rank
that dies or hangs makes the others raise DistBackendError after the group's ``timeout``.
"""

from __future__ import annotations

from . import algorithms
from ._all_to_all import all_to_all, all_to_all_single
from ._batch_p2p import P2POp, batch_isend_irecv
from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from ._init import (
    Backend,
    GroupMember,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_default_backend_for_device,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_pg_count,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_backend_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
)
from ._monitored_barrier import monitored_barrier
from ._mpi_group import ProcessGroup
from ._object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from ._point_to_point import irecv, isend, recv, send
from ._reduce_op import ReduceOp
from ._subgroups import new_subgroups, new_subgroups_by_enumeration
from ._work import Work

__all__ = [
    "Backend", "DistBackendError", "algorithms", "DistError", "DistNetworkError", "DistStoreError", "GroupMember",
    "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
    "all_reduce", "all_to_all", "all_to_all_single", "batch_isend_irecv", "gather_object", "monitored_barrier",
    "recv_object_list", "scatter_object_list", "send_object_list", "barrier", "broadcast", "broadcast_object_list",
    "default_pg_timeout", "destroy_process_group", "gather", "get_backend", "get_default_backend_for_device", "get_global_rank",
    "get_group_rank", "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_available", "is_backend_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend", "new_group", "new_subgroups", "new_subgroups_by_enumeration",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send",
]

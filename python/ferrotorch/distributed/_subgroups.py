"""``new_subgroups`` and ``new_subgroups_by_enumeration``: the world cut into disjoint
groups at once (every rank calls them, and gets the group it belongs to)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._init import get_process_group_ranks, get_rank, get_world_size, new_group
from ._mpi_group import ProcessGroup

Subgroup = Union[ProcessGroup, int]


def new_subgroups_by_enumeration(ranks_per_subgroup_list: Sequence[Sequence[int]], timeout: Optional[timedelta] = None, backend: Optional[str] = None, pg_options: Any = None, group_desc: Optional[str] = None) -> Tuple[Optional[Subgroup], List[Subgroup]]:
    """One group per list of global ranks (disjoint lists); returns (this rank's group, all)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups: List[Subgroup] = []
    mine: Optional[Subgroup] = None
    owner: Dict[int, Sequence[int]] = {}
    me = get_rank()
    for ranks in ranks_per_subgroup_list:
        group = new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc)
        subgroups.append(group)
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and {ranks}")
            owner[r] = ranks
            if r == me:
                mine = group
    return mine, subgroups


def new_subgroups(group_size: Optional[int] = None, group: Optional[ProcessGroup] = None, timeout: Optional[timedelta] = None, backend: Optional[str] = None, pg_options: Any = None, group_desc: Optional[str] = None) -> Tuple[Subgroup, List[Subgroup]]:
    """Cuts ``group`` (the world by default) into consecutive groups of ``group_size`` ranks."""
    if group_size is None:
        raise ValueError(
            "Default group size only takes effect when CUDA/XPU is available."
            "If your subgroup using a backend that does not depend on CUDA/XPU,"
            "please pass in 'group_size' correctly."
        )
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = get_world_size(group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})")
    if world_size % group_size:
        raise ValueError(f"The world size ({world_size}) must be divisible by 'group_size={group_size}'")
    ranks = get_process_group_ranks(group) if group is not None else list(range(world_size))
    mine, subgroups = new_subgroups_by_enumeration([ranks[i : i + group_size] for i in range(0, len(ranks), group_size)], timeout, backend, pg_options, group_desc)
    if not isinstance(mine, ProcessGroup):
        raise AssertionError("Current rank was not assigned to a subgroup")
    return mine, subgroups

"""``Join``: lets ranks with fewer inputs than the others leave a training loop early.

While any rank still trains, each rank that ran out of inputs ("joined") runs its
joinables' ``main_hook`` once per iteration of the others: the hook issues the same
collectives as a training step (with neutral values), so the ranks still training never
wait on a missing partner. When every rank has joined, each ``post_hook`` runs once.

Each iteration, a rank still training contributes 1 to an all-reduce (in
``notify_join_context``) where joined ranks contribute 0: the sum is how many still train.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, List, NamedTuple, Optional, Type

from ... import _core
from .._collectives import all_reduce
from .._init import get_rank
from .._work import Work

# Past this many shadowed iterations, uneven inputs are skewed enough to warn about.
_SKEW_WARNING = 1000


class JoinHook:
    """What a joinable does for a joined rank: ``main_hook`` once per iteration the other
    ranks still train, ``post_hook`` once when all have joined."""

    def main_hook(self) -> None:
        """Shadows one training iteration's collectives (default: nothing)."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Runs once every rank joined; ``is_last_joiner`` is True on the ranks that joined last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config() -> "_JoinConfig":
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class that takes part in ``Join``: it gives a ``join_hook``, the device for the
    join all-reduces, and its process group, and calls ``Join.notify_join_context(self)``
    at the start of every iteration."""

    @abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook that shadows this object's collectives on a joined rank."""

    @property
    @abstractmethod
    def join_device(self) -> Any:
        """The device the join all-reduces run on."""

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        """The process group the join all-reduces run on."""


class Join:
    """Context manager around a training loop whose ranks may run out of inputs at
    different iterations.

    >>> # with ddp_model.join():          # or Join([ddp_model, optimizer])
    >>> #     for x, y in my_uneven_shard:
    >>> #         loss_fn(ddp_model(x), y).backward(); opt.step()
    """

    def __init__(self, joinables: List[Joinable], enable: bool = True, throw_on_early_termination: bool = False, **kwargs: Any) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, j in enumerate(joinables):
            j._join_config = _JoinConfig(enable, throw_on_early_termination, is_first_joinable=i == 0)
        groups = {id(j.join_process_group) for j in joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = joinables[0].join_process_group
        self._device = joinables[-1].join_device
        self._rank = get_rank(self._process_group)

    def __enter__(self) -> "Join":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        """Shadows the other ranks until all joined, then runs the post hooks (skipped when
        the block raised: the error goes on)."""
        if not self._enable or kind is not None:
            return
        is_last_joiner = True
        shadowed = 0
        while self._get_num_nonjoined_procs() > 0:
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            if shadowed == _SKEW_WARNING:
                warnings.warn(
                    f"Detected uneven input skew of greater than {_SKEW_WARNING}. This means that rank {self._rank} has at "
                    f"least {_SKEW_WARNING} fewer inputs than other currently-active ranks. This level of skew could lead "
                    "to performance degradation during training.",
                    stacklevel=2,
                )
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _get_num_nonjoined_procs(self) -> int:
        count = _core.zeros(1)
        all_reduce(count, group=self._process_group)
        return int(count.item())

    def _notify_procs_to_terminate(self) -> None:
        all_reduce(_core.ones(1), group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable) -> Optional[Work]:
        """Called by a joinable at the start of each iteration: tells joined ranks that this
        one still trains. Returns the all-reduce's Work (its tensor holds how many ranks still
        train) for the first joinable of an enabled Join, else None."""
        config = getattr(joinable, "_join_config", None)
        if config is None:
            raise RuntimeError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        if not config.is_first_joinable or not config.enable:
            return None
        group = joinable.join_process_group
        work = all_reduce(_core.ones(1), group=group, async_op=True)
        if config.throw_on_early_termination:
            flag = _core.zeros(1)
            all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work

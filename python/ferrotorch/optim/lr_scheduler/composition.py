"""Schedulers made of schedulers: ``ChainedScheduler`` steps all of them every epoch,
``SequentialLR`` hands over from one to the next at the milestones."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Dict, List, Optional, Sequence

from ..optimizer import Optimizer
from .base import LRScheduler, _group_values, _set_group_value
from .plateau import ReduceLROnPlateau


def _check_members(owner: str, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it "
                "requires additional kwargs to be specified when calling `step`, "
                f"but got one at index {i} in the given schedulers sequence."
            )
        if optimizer != s.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but "
                f"got scheduler {s.__class__.__name__} at index {i} has {s.optimizer}, "
                f"which is different from {optimizer.__class__.__name__}."
            )


class _NestedStateMixin:
    """The state holds each member scheduler's own state under ``_schedulers``."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> Dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        members = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        # The caller's dict is left as it was given.
        state_dict["_schedulers"] = members
        for s, member_state in zip(self._schedulers, members):
            s.load_state_dict(member_state)


class SequentialLR(_NestedStateMixin, LRScheduler):
    """Runs ``schedulers[i]`` between ``milestones[i - 1]`` and ``milestones[i]``; each one restarts
    from epoch 0 when its turn comes."""

    def __init__(self, optimizer: Optimizer, schedulers: List[LRScheduler], milestones: List[int], last_epoch: int = -1) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_members(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The members' constructors already stepped: restore the rates and take those steps back.
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched: Optional[Any] = None) -> None:
        """Moves every (nested) member's ``last_epoch`` back by the step its constructor took."""
        target = self if sched is None else sched
        if hasattr(target, "_schedulers"):
            for s in target._schedulers:
                self.recursive_undo(s)
        elif hasattr(target, "last_epoch"):
            target.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Steps the scheduler whose interval holds the new epoch (restarting it at a milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            current._update_lr(0)
        else:
            current.step()
        self._last_lr = current.get_last_lr()


class ChainedScheduler(_NestedStateMixin, LRScheduler):
    """Steps every scheduler in turn on each ``step()``, so that their chainable forms compose."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optional[Optimizer] = None) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_members(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """One step of every member."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

"""``LRScheduler``: the base every epoch-driven scheduler builds on, plus the helpers that read and
write one option across all parameter groups (a group's value may be a float or a 0-d tensor)."""

from __future__ import annotations

import warnings
import weakref
from functools import wraps
from typing import Any, Dict, List, Optional

from ... import _core
from ..optimizer import Optimizer

Tensor = _core.Tensor

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _copy_value(value: Any) -> Any:
    """Tensors are cloned so that a list we hand out never aliases a group's value."""
    return value.clone() if isinstance(value, Tensor) else value


def _per_group(name: str, optimizer: Optimizer, param: Any) -> List[Any]:
    """One value per parameter group: a scalar is repeated, a list must match the group count."""
    n = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(param)} values, param_groups has {n}.")
        return [_copy_value(v) for v in param]
    return [_copy_value(param) for _ in range(n)]


def _group_values(optimizer: Optimizer, key: str) -> List[Any]:
    """``group[key]`` of every group (KeyError where a group lacks it)."""
    return [_copy_value(g[key]) for g in optimizer.param_groups]


def _set_group_value(param_group: Dict[str, Any], key: str, val: Any) -> None:
    """A tensor-valued option is filled in place so that whoever holds it sees the change."""
    if isinstance(param_group[key], Tensor):
        param_group[key].fill_(val.item() if isinstance(val, Tensor) else val)
    else:
        param_group[key] = val


def _mark_optimizer_steps(optimizer: Optimizer) -> None:
    """Wraps ``optimizer.step`` (once) so that it records ``_opt_called``; the scheduler reads it to
    warn when it is stepped before the optimizer ever was."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    owner = weakref.ref(optimizer)
    unbound = getattr(optimizer.step, "__func__", None)
    if unbound is None:
        return

    @wraps(unbound)
    def step_and_mark(*args: Any, **kwargs: Any) -> Any:
        opt = owner()
        opt._opt_called = True  # type: ignore[union-attr]
        return unbound.__get__(opt, opt.__class__)(*args, **kwargs)

    step_and_mark._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = step_and_mark  # type: ignore[method-assign]


class _enable_get_lr_call:
    """Marks ``get_lr()`` as called by ``step()`` (so that it does not warn) for the block."""

    def __init__(self, o: "LRScheduler") -> None:
        self.o = o

    def __enter__(self) -> "_enable_get_lr_call":
        self.o._get_lr_called_within_step = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self.o._get_lr_called_within_step = False


class _initial_mode:
    """Marks the constructor's step, which must not advance a resumed schedule."""

    def __init__(self, o: "LRScheduler") -> None:
        self.o = o

    def __enter__(self) -> None:
        self.o._is_initial = True

    def __exit__(self, *exc: Any) -> None:
        self.o._is_initial = False


def _warn_if_get_lr_called_directly(lr_scheduler: "LRScheduler") -> None:
    if not lr_scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.", UserWarning, stacklevel=2)


class LRScheduler:
    """Base class: ``step()`` advances ``last_epoch`` and writes ``get_lr()`` into the groups.

    Subclasses implement ``get_lr()`` (the chainable form, which may read the groups' current
    ``lr``) and optionally ``_get_closed_form_lr()`` (used by the deprecated ``step(epoch)``).
    Building a scheduler records ``initial_lr`` in every group and performs one initial step.

    >>> sched = StepLR(optimizer, step_size=30)  # doctest: +SKIP
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy_value(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: List[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Resets the step count and takes the step that sets the epoch-0 rates."""
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self) -> Dict[str, Any]:
        """Every attribute except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores attributes saved by ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> List[Any]:
        """The rates set by the last ``step()`` (copies, never the groups' own tensors)."""
        return self._last_lr

    def get_lr(self) -> List[Any]:
        """The rates for the current ``last_epoch``; call ``get_last_lr()`` to read them."""
        raise NotImplementedError

    def step(self, epoch: Optional[int] = None) -> None:
        """Advances one epoch (``epoch`` is deprecated: it jumps there with the closed form)."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                    "initialization. Please, make sure to call `optimizer.step()` before "
                    "`lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: Optional[int] = None) -> None:
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        self._write_lrs(values)

    def _write_lrs(self, values: List[Any]) -> None:
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(f"zip() argument 2 is {'shorter' if len(values) < len(groups) else 'longer'} than argument 1")
        for group, lr in zip(groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr: List[Any] = _group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The old name of ``LRScheduler``, kept for code that subclasses it."""


# PyTorch's private helper names, for code written against them.
_format_param = _per_group
_param_groups_val_list = _group_values
_update_param_group_val = _set_group_value
_warn_get_lr_called_within_step = _warn_if_get_lr_called_directly

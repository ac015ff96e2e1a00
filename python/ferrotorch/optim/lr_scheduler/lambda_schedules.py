"""Schedules given by user functions: ``LambdaLR`` (a factor of the base rate) and
``MultiplicativeLR`` (a factor of the current rate)."""

from __future__ import annotations

import types
from typing import Any, Callable, Dict, List, Sequence, Union

from ..optimizer import Optimizer
from .base import LRScheduler, _group_values, _warn_if_get_lr_called_directly

LrLambda = Union[Callable[[int], float], Sequence[Callable[[int], float]]]


def _one_lambda_per_group(optimizer: Optimizer, lr_lambda: LrLambda) -> List[Callable[[int], float]]:
    n = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * n
    if len(lr_lambda) != n:
        raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class _LambdaStateMixin:
    """Plain functions and lambdas cannot be saved, so the state keeps ``None`` for them and the
    ``__dict__`` of callable objects (which ``load_state_dict`` writes back into the objects)."""

    lr_lambdas: List[Callable[[int], float]]

    def state_dict(self) -> Dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        saved = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        # The caller's dict is left as it was given.
        state_dict["lr_lambdas"] = saved
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


class LambdaLR(_LambdaStateMixin, LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, with one function for all groups or one per group."""

    def __init__(self, optimizer: Optimizer, lr_lambda: LrLambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_lambda_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaStateMixin, LRScheduler):
    """Each step multiplies the current rate by ``lr_lambda(epoch)``."""

    def __init__(self, optimizer: Optimizer, lr_lambda: LrLambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_lambda_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        # strict: a group added after construction has no lambda (PyTorch raises there too).
        return [g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]

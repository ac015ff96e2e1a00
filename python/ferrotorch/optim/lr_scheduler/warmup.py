"""Warm-up factors: ``ConstantLR`` (a fixed factor until ``total_iters``) and ``LinearLR`` (a
factor moving linearly from ``start_factor`` to ``end_factor``)."""

from __future__ import annotations

from typing import Any, List

from ..optimizer import Optimizer
from .base import LRScheduler, _group_values, _warn_if_get_lr_called_directly


class ConstantLR(LRScheduler):
    """Multiplies the rate by ``factor`` until epoch ``total_iters``, then restores it."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[Any]:
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Multiplies the rate by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        # factor(e) / factor(e - 1), written so that it scales the current rate.
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [g["lr"] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[Any]:
        done = min(self.total_iters, self.last_epoch)
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done / self.total_iters) for base in self.base_lrs]

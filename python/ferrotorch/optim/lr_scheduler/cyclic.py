"""``CyclicLR``: the cyclical learning-rate policy (triangular, triangular2, exp_range or a
custom scale function), cycling momentum inversely."""

from __future__ import annotations

import math
import types
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Union

from ..optimizer import Optimizer
from .base import LRScheduler, _per_group, _set_group_value, _warn_if_get_lr_called_directly
from .momentum_cycling import _check_momentum_support, _set_momentum


def _triangular_scale(x: float) -> float:
    return 1.0


def _triangular2_scale(x: float) -> float:
    # The amplitude halves every cycle.
    return 1 / (2.0 ** (x - 1))


def _exp_range_scale(gamma: float, x: float) -> float:
    return gamma**x


class CyclicLR(LRScheduler):
    """Cycles the rate between ``base_lr`` and ``max_lr`` (rising for ``step_size_up`` steps,
    falling for ``step_size_down``), the amplitude scaled per cycle or per iteration; with
    ``cycle_momentum`` the momentum moves the other way between ``max_momentum`` and
    ``base_momentum``. Step it after every batch."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: Union[float, List[float]],
        max_lr: Union[float, List[float]],
        step_size_up: int = 2000,
        step_size_down: Optional[int] = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Optional[Callable[[float], float]] = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for top, bottom, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    _set_momentum(group, top, self.use_beta1)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        # A built-in mode fixes its own scale_mode; a custom scale_fn keeps the one given.
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref: Callable[[float], float] = _triangular_scale
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = _triangular2_scale
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(_exp_range_scale, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude factor at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [lo + (hi - lo) * scale_factor * self.scale_fn(at) for lo, hi in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            moms = [hi - (hi - lo) * scale_factor * self.scale_fn(at) for lo, hi in zip(self.base_momentums, self.max_momentums)]
            for group, m in zip(self.optimizer.param_groups, moms):
                _set_momentum(group, m, self.use_beta1)
        return lrs

    def state_dict(self) -> Dict[str, Any]:
        """As the base, without the built-in scale function; a custom one is kept only as the
        ``__dict__`` of a callable object (functions and lambdas cannot be saved)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the state and rebuilds the scale function."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()

"""Shared by the cyclical schedulers: SGD-style optimizers cycle ``momentum``, Adam-style ones
cycle ``betas[0]``."""

from __future__ import annotations

from typing import Any, Dict

from ..optimizer import Optimizer


def _check_momentum_support(optimizer: Optimizer) -> bool:
    """Whether the optimizer cycles ``betas[0]`` (else ``momentum``); raises if it has neither."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


def _set_momentum(group: Dict[str, Any], value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value

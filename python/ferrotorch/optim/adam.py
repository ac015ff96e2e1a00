"""Adam and AdamW."""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Tuple

from .. import _core
from .optimizer import Optimizer, _fusable, _grads


def _check(lr: float, eps: float, betas: Tuple[float, float], weight_decay: float) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam with bias correction, optional AMSGrad, L2 weight decay and maximize."""

    _rule = "adam"

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: Any = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused))

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _grads(group)
        if not params:
            return
        b1, b2 = group["betas"]
        lr, eps, wd, ams, maximize = float(group["lr"]), float(group["eps"]), float(group["weight_decay"]), bool(group["amsgrad"]), bool(group["maximize"])
        for p in params:
            st = self.state[p]
            if not st:
                st["step"] = _core.tensor(0.0)
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_avg_sq"] = _core.zeros_like(p)
                if ams:
                    st["max_exp_avg_sq"] = _core.zeros_like(p)
            st["step"] += 1
        # Parameters at the same step count share one fused call.
        by_step: Dict[float, list] = {}
        for p in params:
            by_step.setdefault(self.state[p]["step"].item(), []).append(p)
        for step, ps in by_step.items():
            if _fusable(ps):
                states = [[self.state[p]["exp_avg"], self.state[p]["exp_avg_sq"]] + ([self.state[p]["max_exp_avg_sq"]] if ams else []) for p in ps]
                _core._fused_step(self._rule, ps, [p.grad for p in ps], states, dict(lr=lr, beta1=float(b1), beta2=float(b2), eps=eps, weight_decay=wd, amsgrad=ams, maximize=maximize, step=float(step)))
                continue
            for p in ps:
                self._reference_update(p, step, lr, b1, b2, eps, wd, ams, maximize)

    def _reference_update(self, p: Any, step: float, lr: float, b1: float, b2: float, eps: float, wd: float, ams: bool, maximize: bool) -> None:
        st = self.state[p]
        g = -p.grad if maximize else p.grad
        if wd:
            if self._rule == "adamw":
                p.mul_(1 - lr * wd)
            else:
                g = g + wd * p
        st["exp_avg"].mul_(b1).add_(g, alpha=1 - b1)
        st["exp_avg_sq"].mul_(b2).add_(g * g, alpha=1 - b2)
        v = st["exp_avg_sq"]
        if ams:
            st["max_exp_avg_sq"].copy_(_core.maximum(st["max_exp_avg_sq"], v))
            v = st["max_exp_avg_sq"]
        denom = v.sqrt() / math.sqrt(1 - b2**step) + eps
        p.sub_(st["exp_avg"] / denom * (lr / (1 - b1**step)))


class AdamW(Adam):
    """Adam with decoupled weight decay (p *= 1 - lr * weight_decay before the update)."""

    _rule = "adamw"

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: Any = None, capturable: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable, fused=fused)

"""RAdam: Adam whose adaptive step is switched on once the variance estimate is tractable."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import Optimizer, _check_betas_eps_wd, _check_lr, _step_counter, _with_grads


class RAdam(Optimizer):
    """RAdam (Liu et al., 2019): SGD with momentum while rho_t <= 5, rectified Adam after."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("decoupled_weight_decay", False), ("capturable", False))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One RAdam update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        b1, b2 = group["betas"]
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        rho_inf = 2 / (1 - b2) - 1
        for p in _with_grads(group, "RAdam"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_avg_sq"] = _core.zeros_like(p)
            g = -p.grad if group["maximize"] else p.grad
            st["step"] += 1
            step = st["step"].item()
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * wd)
                else:
                    g = g.add(p, alpha=wd)
            st["exp_avg"].lerp_(g, 1 - b1)
            st["exp_avg_sq"].mul_(b2).addcmul_(g, g, value=1 - b2)
            bc1, bc2 = 1 - b1**step, 1 - b2**step
            corrected = st["exp_avg"] / bc1
            rho_t = rho_inf - 2 * step * (b2**step) / bc2
            if rho_t > 5.0:
                adaptive = (bc2**0.5) / st["exp_avg_sq"].sqrt().add_(eps)
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
            else:
                p.add_(corrected * lr, alpha=-1.0)

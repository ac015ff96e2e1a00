"""Adamax: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import Optimizer, _check_betas_eps_wd, _check_lr, _step_counter, _with_grads


class Adamax(Optimizer):
    """Adamax: u = max(beta2 u, |g| + eps); p -= lr / (1 - beta1^t) m / u."""

    def __init__(self, params: Iterable[Any], lr: Any = 2e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0, foreach: Optional[bool] = None, *, maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Adamax update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        b1, b2 = group["betas"]
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        for p in _with_grads(group, "Adamax"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_inf"] = _core.zeros_like(p)
            g = -p.grad if group["maximize"] else p.grad
            st["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            st["exp_avg"].lerp_(g, 1 - b1)
            inf = st["exp_inf"]
            inf.copy_(inf.mul_(b2).maximum(g.abs().add_(eps)))
            clr = lr / (1 - b1 ** st["step"].item())
            p.addcdiv_(st["exp_avg"], inf, value=-float(clr))

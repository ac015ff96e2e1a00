"""Adadelta: step sizes from the ratio of running RMS of updates to running RMS of gradients."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from .. import _core
from .optimizer import Optimizer, _check_lr, _scalar, _step_counter, _with_grads


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g."""

    def __init__(self, params: Iterable[Any], lr: Any = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0, foreach: Optional[bool] = None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Adadelta update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        lr, rho, eps, wd = _scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        for p in _with_grads(group, "Adadelta"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["square_avg"] = _core.zeros_like(p)
                st["acc_delta"] = _core.zeros_like(p)
            st["step"] += 1
            g = -p.grad if group["maximize"] else p.grad
            if wd != 0:
                g = g.add(p, alpha=wd)
            sq, acc = st["square_avg"], st["acc_delta"]
            sq.mul_(rho).addcmul_(g, g, value=1 - rho)
            std = sq.add(eps).sqrt_()
            delta = acc.add(eps).sqrt_().div_(std).mul_(g)
            acc.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-float(lr))

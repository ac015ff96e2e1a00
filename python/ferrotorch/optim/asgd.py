"""ASGD: SGD with a decaying step size and a running (Polyak) average of the iterates."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from .. import _core
from .optimizer import Optimizer, _check_lr, _step_counter, _with_grads


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky, 1992): eta_t = lr / (1 + lambd lr t)^alpha, and the
    average ``ax`` starts following the iterates after ``t0`` steps."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0, foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= lambd:
            raise ValueError(f"Invalid lambd value: {lambd}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach, maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))
    _scalar_state_keys = ("step", "eta", "mu")

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One ASGD update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        lr, lambd, alpha, t0, wd = group["lr"], group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
        for p in _with_grads(group, "ASGD"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["eta"] = _step_counter(float(lr))
                st["mu"] = _step_counter(1.0)
                st["ax"] = _core.zeros_like(p)
            g = -p.grad if group["maximize"] else p.grad
            st["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            # eta and mu are read back from their 0-d tensors, rounded to those tensors' dtype.
            eta = st["eta"].item()
            p.mul_(1 - lambd * eta)
            p.add_(g, alpha=-eta)
            ax = st["ax"]
            if st["mu"].item() != 1:
                ax.add_(p.sub(ax).mul_(st["mu"]))
            else:
                ax.copy_(p)
            step = st["step"].item()
            # New values pass through a default-dtype tensor, as PyTorch's as_tensor copies do.
            st["eta"].copy_(_step_counter(float(lr / ((1 + lambd * lr * step) ** alpha))))
            st["mu"].copy_(_step_counter(1 / max(1, step - t0)))

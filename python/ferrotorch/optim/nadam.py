"""NAdam: Adam with Nesterov momentum (Dozat, 2016), with PyTorch's momentum schedule."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import Optimizer, _check_betas_eps_wd, _check_lr, _step_counter, _with_grads


class NAdam(Optimizer):
    """NAdam: mu_t = beta1 (1 - 0.5 * 0.96^(t psi)); the step mixes g and m by the mu schedule."""

    def __init__(self, params: Iterable[Any], lr: Any = 2e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_betas_eps_wd(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False), ("decoupled_weight_decay", False))
    _scalar_state_keys = ("step", "mu_product")

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One NAdam update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        b1, b2 = group["betas"]
        lr, eps, wd, psi = group["lr"], group["eps"], group["weight_decay"], group["momentum_decay"]
        for p in _with_grads(group, "NAdam"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["mu_product"] = _step_counter(1.0)
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_avg_sq"] = _core.zeros_like(p)
            g = -p.grad if group["maximize"] else p.grad
            st["step"] += 1
            step = st["step"].item()
            bc2 = 1 - b2**step
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * wd)
                else:
                    g = g.add(p, alpha=wd)
            mu = b1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
            mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
            # The running product lives in a 0-d tensor of the default dtype, rounded as PyTorch's.
            st["mu_product"] *= mu
            st["exp_avg"].lerp_(g, 1 - b1)
            st["exp_avg_sq"].mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = st["exp_avg_sq"].div(bc2).sqrt().add_(eps)
            mu_product = st["mu_product"].item()
            # A tensor lr makes these step sizes tensors of its dtype, rounded as in PyTorch.
            p.addcdiv_(g, denom, value=float(-lr * (1.0 - mu) / (1.0 - mu_product)))
            p.addcdiv_(st["exp_avg"], denom, value=float((-lr * mu_next) / (1.0 - mu_product * mu_next)))

"""Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of successive gradients."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import Optimizer, _check_lr, _scalar, _step_counter, _with_grads


class Rprop(Optimizer):
    """Resilient backpropagation: step sizes times etaplus on agreeing signs, etaminus on a flip
    (and the flipped coordinate skips its update), clamped to ``step_sizes``."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-2, etas: Tuple[float, float] = (0.5, 1.2), step_sizes: Tuple[float, float] = (1e-6, 50), *, capturable: bool = False, foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Rprop update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        eta_minus, eta_plus = group["etas"]
        size_min, size_max = group["step_sizes"]
        for p in _with_grads(group, "Rprop"):
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["prev"] = _core.zeros_like(p)
                st["step_size"] = _core.full_like(p.grad, _scalar(group["lr"]))
            g = -p.grad if group["maximize"] else p.grad
            st["step"] += 1
            sign = g.mul(st["prev"]).sign()
            flipped = sign.lt(0)
            factor = sign.masked_fill_(sign.gt(0), eta_plus).masked_fill_(flipped, eta_minus).masked_fill_(sign.eq(0), 1)
            st["step_size"].mul_(factor).clamp_(size_min, size_max)
            # A coordinate whose gradient changed sign takes no step and forgets that gradient.
            g = g.clone().masked_fill_(flipped, 0)
            p.addcmul_(g.sign(), st["step_size"], value=-1)
            st["prev"].copy_(g)

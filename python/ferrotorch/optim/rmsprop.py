"""RMSprop (optionally centered, with momentum)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from .. import _core
from .optimizer import Optimizer, _check_lr, _fusable, _scalar, _step_counter, _with_grads


class RMSprop(Optimizer):
    """RMSprop: v = alpha v + (1 - alpha) g^2; p -= lr g / (sqrt(v - centered mean^2) + eps)."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One RMSprop update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _with_grads(group, "RMSprop")
        if not params:
            return
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["square_avg"] = _core.zeros_like(p)
                if group["momentum"] > 0:
                    st["momentum_buffer"] = _core.zeros_like(p)
                if group["centered"]:
                    st["grad_avg"] = _core.zeros_like(p)
            st["step"] += 1
        h = dict(lr=float(_scalar(group["lr"])), alpha=float(group["alpha"]), eps=float(group["eps"]), weight_decay=float(group["weight_decay"]), momentum=float(group["momentum"]), centered=bool(group["centered"]), maximize=bool(group["maximize"]))
        if _fusable(params):
            # In the order the fused step reads them: only the buffers this group uses.
            states = [[self.state[p][k] for k in ("square_avg", "grad_avg", "momentum_buffer") if k in self.state[p]] for p in params]
            _core._fused_step("rmsprop", params, [p.grad for p in params], states, h)
            return
        for p in params:
            self._reference_update(p, h)

    def _reference_update(self, p: Any, h: Dict[str, Any]) -> None:
        """PyTorch's per-tensor RMSprop, for parameters the fused kernel does not take."""
        st = self.state[p]
        g = -p.grad if h["maximize"] else p.grad
        if h["weight_decay"] != 0:
            g = g.add(p, alpha=h["weight_decay"])
        sq = st["square_avg"]
        sq.mul_(h["alpha"]).addcmul_(g, g, value=1 - h["alpha"])
        if h["centered"]:
            ga = st["grad_avg"]
            ga.lerp_(g, 1 - h["alpha"])
            avg = sq.addcmul(ga, ga, value=-1).sqrt_()
        else:
            avg = sq.sqrt()
        avg = avg.add_(h["eps"])
        if h["momentum"] > 0:
            buf = st["momentum_buffer"]
            buf.mul_(h["momentum"]).addcdiv_(g, avg)
            p.add_(buf, alpha=-h["lr"])
        else:
            p.addcdiv_(g, avg, value=-h["lr"])

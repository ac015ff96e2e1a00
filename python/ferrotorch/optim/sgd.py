"""Stochastic gradient descent (with momentum, dampening, Nesterov, weight decay, maximize)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from .. import _core
from .optimizer import Optimizer, _check_fused_flags, _check_lr, _fusable, _scalar, _with_grads


class SGD(Optimizer):
    """PyTorch's SGD: d = g (+ wd p); with momentum b = mu b + (1 - dampening) d (b = d at
    the first step), d = d + mu b (Nesterov) or b; p -= lr d."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-3, momentum: float = 0, dampening: float = 0, weight_decay: Any = 0, nesterov: bool = False, *, maximize: bool = False, foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)
        for g in self.param_groups:
            g.setdefault("nesterov", False)
            g.setdefault("maximize", False)
            g.setdefault("foreach", None)
            g.setdefault("differentiable", False)
            g.setdefault("fused", False)

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One SGD update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _with_grads(group)
        if not params:
            return
        mu = group["momentum"]
        hyper = dict(lr=float(_scalar(group["lr"])), momentum=float(mu), dampening=float(group["dampening"]), weight_decay=float(_scalar(group["weight_decay"])), nesterov=bool(group["nesterov"]), maximize=bool(group["maximize"]))
        if _fusable(params) and not any(p.grad.is_sparse for p in params):
            # Parameters whose momentum buffer exists and those starting now run as two calls.
            starting = [mu != 0 and self.state[p].get("momentum_buffer") is None for p in params]
            for first in (True, False):
                ps = [p for p, s in zip(params, starting) if s == first]
                if not ps:
                    continue
                states = []
                for p in ps:
                    if mu != 0:
                        if first:
                            self.state[p]["momentum_buffer"] = _core.zeros_like(p)
                        states.append([self.state[p]["momentum_buffer"]])
                    else:
                        states.append([])
                _core._fused_step("sgd", ps, [p.grad for p in ps], states, dict(hyper, first=first))
            return
        for p in params:
            self._reference_update(p, hyper)

    def _reference_update(self, p: Any, h: Dict[str, Any]) -> None:
        """PyTorch's per-tensor SGD, for parameters the fused kernel does not take."""
        d = p.grad if not h["maximize"] else -p.grad
        if h["weight_decay"] != 0:
            d = d.add(p, alpha=h["weight_decay"])
        if h["momentum"] != 0:
            st = self.state[p]
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = d.clone().detach()
                st["momentum_buffer"] = buf
            else:
                buf.mul_(h["momentum"]).add_(d, alpha=1 - h["dampening"])
            d = d.add(buf, alpha=h["momentum"]) if h["nesterov"] else buf
        p.add_(d, alpha=-h["lr"])

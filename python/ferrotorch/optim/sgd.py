"""Stochastic gradient descent (with momentum, dampening, Nesterov, weight decay, maximize)."""

from __future__ import annotations

from typing import Any, Dict, Iterable

from .. import _core
from .optimizer import Optimizer, _fusable, _grads


class SGD(Optimizer):
    """PyTorch's SGD: d = g (+ wd p); with momentum b = mu b + (1 - dampening) d (b = d at
    the first step), d = d + mu b (Nesterov) or b; p -= lr d."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach: Any = None, differentiable: bool = False, fused: Any = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused))

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _grads(group)
        if not params:
            return
        mu = group["momentum"]
        hyper = dict(lr=float(group["lr"]), momentum=float(mu), dampening=float(group["dampening"]), weight_decay=float(group["weight_decay"]), nesterov=bool(group["nesterov"]), maximize=bool(group["maximize"]))
        if _fusable(params):
            # Parameters whose momentum buffer exists and those starting now run as two calls.
            starting = [mu != 0 and "momentum_buffer" not in self.state[p] for p in params]
            for first in (True, False):
                ps = [p for p, s in zip(params, starting) if s == first]
                if not ps:
                    continue
                states = []
                for p in ps:
                    if mu != 0:
                        buf = self.state[p].setdefault("momentum_buffer", _core.zeros_like(p))
                        states.append([buf])
                    else:
                        states.append([])
                _core._fused_step("sgd", ps, [p.grad for p in ps], states, dict(hyper, first=first))
            return
        for p in params:
            d = p.grad if not hyper["maximize"] else -p.grad
            if hyper["weight_decay"]:
                d = d + hyper["weight_decay"] * p
            if mu != 0:
                st = self.state[p]
                if "momentum_buffer" not in st:
                    st["momentum_buffer"] = d.clone()
                else:
                    st["momentum_buffer"].mul_(mu).add_(d, alpha=1 - hyper["dampening"])
                buf = st["momentum_buffer"]
                d = d + mu * buf if hyper["nesterov"] else buf
            p.sub_(d * hyper["lr"])

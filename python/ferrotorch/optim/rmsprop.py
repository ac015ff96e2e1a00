"""RMSprop and Adagrad."""

from __future__ import annotations

from typing import Any, Dict, Iterable

from .. import _core
from .optimizer import Optimizer, _fusable, _grads


class RMSprop(Optimizer):
    """RMSprop (optionally centered, with momentum)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: Any = None, maximize: bool = False, differentiable: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum, centered=centered, capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable))

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _grads(group)
        if not params:
            return
        for p in params:
            st = self.state[p]
            if not st:
                st["step"] = _core.tensor(0.0)
                st["square_avg"] = _core.zeros_like(p)
                if group["momentum"] > 0:
                    st["momentum_buffer"] = _core.zeros_like(p)
                if group["centered"]:
                    st["grad_avg"] = _core.zeros_like(p)
            st["step"] += 1
        hyper = dict(lr=float(group["lr"]), alpha=float(group["alpha"]), eps=float(group["eps"]), weight_decay=float(group["weight_decay"]), momentum=float(group["momentum"]), centered=bool(group["centered"]), maximize=bool(group["maximize"]))
        if not _fusable(params):
            raise RuntimeError("RMSprop: only contiguous float32/float64 parameters are supported")
        states = []
        for p in params:
            st = self.state[p]
            # In the order the fused step reads them: only the buffers this group uses.
            states.append([st[k] for k in ("square_avg", "grad_avg", "momentum_buffer") if k in st])
        _core._fused_step("rmsprop", params, [p.grad for p in params], states, hyper)


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Any = None, *, maximize: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay, initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize, differentiable=differentiable, fused=fused))
        for g in self.param_groups:
            for p in g["params"]:
                self.state[p]["step"] = _core.tensor(0.0)
                self.state[p]["sum"] = _core.full_like(p, g["initial_accumulator_value"])

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _grads(group)
        if not params:
            return
        if not _fusable(params):
            raise RuntimeError("Adagrad: only contiguous float32/float64 parameters are supported")
        by_step: Dict[float, list] = {}
        for p in params:
            self.state[p]["step"] += 1
            by_step.setdefault(self.state[p]["step"].item(), []).append(p)
        for step, ps in by_step.items():
            hyper = dict(lr=float(group["lr"]), lr_decay=float(group["lr_decay"]), weight_decay=float(group["weight_decay"]), eps=float(group["eps"]), maximize=bool(group["maximize"]), step=float(step))
            _core._fused_step("adagrad", ps, [p.grad for p in ps], [[self.state[p]["sum"]] for p in ps], hyper)

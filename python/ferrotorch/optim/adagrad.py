"""Adagrad: per-coordinate step sizes from the running sum of squared gradients."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from .. import _core
from .optimizer import (
    Optimizer,
    Tensor,
    _check_fused_flags,
    _check_lr,
    _fusable,
    _scalar,
    _step_counter,
    _with_grads,
)


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay: clr = lr / (1 + (t - 1) lr_decay); p -= clr g / (sqrt(sum) + eps)."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-2, lr_decay: float = 0, weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Optional[bool] = None, *, maximize: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay, initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)
        # Adagrad's state exists from construction (PyTorch creates it here, not at the first step).
        for g in self.param_groups:
            for p in g["params"]:
                st = self.state[p]
                st["step"] = _step_counter()
                st["sum"] = _core.full_like(p, initial_accumulator_value)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None))

    def share_memory(self) -> None:
        """Moves the accumulators to shared memory (for Hogwild-style training)."""
        for g in self.param_groups:
            for p in g["params"]:
                self.state[p]["sum"].share_memory_()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Adagrad update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _with_grads(group)
        if not params:
            return
        h = dict(lr=float(_scalar(group["lr"])), lr_decay=float(group["lr_decay"]), weight_decay=float(group["weight_decay"]), eps=float(group["eps"]), maximize=bool(group["maximize"]))
        by_step: Dict[float, list] = {}
        for p in params:
            self.state[p]["step"] += 1
            by_step.setdefault(self.state[p]["step"].item(), []).append(p)
        # A tensor lr takes the per-tensor path: PyTorch's clr is then a tensor of lr's dtype.
        fuse = not isinstance(group["lr"], Tensor)
        if not fuse:
            h["lr"] = group["lr"]
        for step, ps in by_step.items():
            if fuse and _fusable(ps):
                _core._fused_step("adagrad", ps, [p.grad for p in ps], [[self.state[p]["sum"]] for p in ps], dict(h, step=float(step)))
                continue
            for p in ps:
                self._reference_update(p, step, h)

    def _reference_update(self, p: Any, step: float, h: Dict[str, Any]) -> None:
        """PyTorch's per-tensor Adagrad, for parameters the fused kernel does not take."""
        g = -p.grad if h["maximize"] else p.grad
        if h["weight_decay"] != 0:
            g = g.add(p, alpha=h["weight_decay"])
        clr = h["lr"] / (1 + (step - 1) * h["lr_decay"])
        total = self.state[p]["sum"]
        total.addcmul_(g, g, value=1)
        p.addcdiv_(g, total.sqrt().add_(h["eps"]), value=-float(clr))

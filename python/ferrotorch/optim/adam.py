"""Adam and AdamW (AdamW is Adam with decoupled weight decay, as in PyTorch)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import (
    Optimizer,
    _check_betas_eps_wd,
    _check_fused_flags,
    _check_lr,
    _fusable,
    _scalar,
    _step_counter,
    _with_grads,
)

Tensor = _core.Tensor


def _check_adam_args(lr: Any, betas: Tuple[Any, Any], eps: float, weight_decay: float, foreach: Any, capturable: bool) -> Tuple[float, float]:
    """Adam's argument checks, in PyTorch's order; returns the betas as Python floats."""
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    _check_lr(lr)
    _check_betas_eps_wd(betas, eps, weight_decay)
    both_float = isinstance(betas[0], float) and isinstance(betas[1], float)
    if not (both_float or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    # Tensor betas stay tensors in the group (1-element ones squeezed to 0-d), as in PyTorch.
    return tuple(b.squeeze() if isinstance(b, Tensor) and b.ndim != 0 else b for b in betas)  # type: ignore[return-value]


class Adam(Optimizer):
    """Adam with bias correction, optional AMSGrad, L2 or decoupled weight decay, and maximize."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-3, betas: Tuple[Any, Any] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False, fused: Optional[bool] = None, decoupled_weight_decay: bool = False) -> None:
        betas = _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    # Keys that groups pickled by older versions lack.
    _group_key_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Adam update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        params = _with_grads(group, "Adam")
        if not params:
            return
        b1, b2 = (float(_scalar(b)) for b in group["betas"])
        h = dict(lr=float(_scalar(group["lr"])), beta1=b1, beta2=b2, eps=float(group["eps"]), weight_decay=float(group["weight_decay"]), amsgrad=bool(group["amsgrad"]), maximize=bool(group["maximize"]))
        decoupled = bool(group["decoupled_weight_decay"])
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_avg_sq"] = _core.zeros_like(p)
                if h["amsgrad"]:
                    st["max_exp_avg_sq"] = _core.zeros_like(p)
            st["step"] += 1
        # Parameters at the same step count share one fused call.
        by_step: Dict[float, list] = {}
        for p in params:
            by_step.setdefault(self.state[p]["step"].item(), []).append(p)
        # A tensor lr or betas take the per-tensor path, whose scalar math rounds in the tensors'
        # dtype as PyTorch's does.
        fuse = not any(isinstance(x, Tensor) for x in (group["lr"], *group["betas"]))
        if not fuse:
            h.update(lr=group["lr"], beta1=group["betas"][0], beta2=group["betas"][1])
        for step, ps in by_step.items():
            if fuse and _fusable(ps):
                names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if h["amsgrad"] else ("exp_avg", "exp_avg_sq")
                states = [[self.state[p][k] for k in names] for p in ps]
                _core._fused_step("adamw" if decoupled else "adam", ps, [p.grad for p in ps], states, dict(h, step=float(step)))
                continue
            for p in ps:
                self._reference_update(p, step, h, decoupled)

    def _reference_update(self, p: Any, step: float, h: Dict[str, Any], decoupled: bool) -> None:
        """PyTorch's per-tensor Adam, for parameters the fused kernel does not take."""
        st = self.state[p]
        lr, b1, b2, wd = h["lr"], h["beta1"], h["beta2"], h["weight_decay"]
        g = -p.grad if h["maximize"] else p.grad
        if wd != 0:
            if decoupled:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        # PyTorch casts a tensor beta1 to the parameter's dtype before taking 1 - beta1.
        st["exp_avg"].lerp_(g, float(1 - (b1.to(p.dtype) if isinstance(b1, Tensor) else b1)))
        st["exp_avg_sq"].mul_(b2).addcmul_(g, g, value=float(1 - b2))
        bc2_sqrt = (1 - b2**step) ** 0.5
        v = st["exp_avg_sq"]
        if h["amsgrad"]:
            st["max_exp_avg_sq"].copy_(st["max_exp_avg_sq"].maximum(v))
            v = st["max_exp_avg_sq"]
        denom = (v.sqrt() / bc2_sqrt).add_(h["eps"])
        # With a tensor lr, PyTorch's step size is a tensor of lr's dtype: read it back rounded.
        bc1 = 1 - b1**step
        # number / tensor is reciprocal-then-multiply in PyTorch: the same rounding, here too.
        step_size = bc1.reciprocal() * lr if isinstance(bc1, Tensor) and not isinstance(lr, Tensor) else lr / bc1
        p.addcdiv_(st["exp_avg"], denom, value=-float(step_size))


class AdamW(Adam):
    """Adam with decoupled weight decay (p *= 1 - lr * weight_decay before the update)."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-3, betas: Tuple[Any, Any] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: Optional[bool] = None, capturable: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable, fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)
        for g in self.param_groups:
            g["decoupled_weight_decay"] = True

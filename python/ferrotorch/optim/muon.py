"""Muon: momentum SGD whose update matrix is orthogonalized by a Newton-Schulz iteration."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .optimizer import Optimizer, Tensor

_ADJUST_LR_FNS = ("original", "match_rms_adamw", "spectral_unclamped")


def orthogonalize(update: Tensor, coefficients: Tuple[float, float, float], steps: int, eps: float) -> Tensor:
    """Approximates U V^T of the matrix U S V^T with a quintic Newton-Schulz iteration run in
    bfloat16 (the coefficients push small singular values up fast; they end near, not at, 1)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(update.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    x = update.to(dtype=_core.bfloat16, copy=True)
    # Iterate on the wide orientation so the Gram matrix is the smaller one.
    tall = update.size(0) > update.size(1)
    if tall:
        x = x.T
    # The norm is accumulated in float32 and rounded once to bfloat16, as PyTorch reduces it.
    x.div_(x.float().norm().to(_core.bfloat16).clamp(min=eps))
    for _ in range(steps):
        gram = _bf16_addmm(None, x, x.T)
        poly = _bf16_addmm(gram, gram, gram, beta=b, alpha=c)
        x = _bf16_addmm(x, poly, x, beta=a)
    return x.T if tall else x


def _bf16_addmm(input: Optional[Tensor], m1: Tensor, m2: Tensor, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """beta input + alpha m1 @ m2 of bfloat16 matrices, accumulated in float32 and rounded to
    bfloat16 once at the end, as PyTorch's bfloat16 matmul kernels do."""
    out = m1.float() @ m2.float()
    if alpha != 1.0:
        out = out * alpha
    if input is not None:
        out = out + input.float() * beta if beta != 1.0 else out + input.float()
    return out.to(_core.bfloat16)


def adjusted_lr(lr: float, adjust_lr_fn: Optional[str], shape: Any) -> float:
    """Scales lr by the matrix shape (rows A, columns B) so updates have a comparable size."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    elif adjust_lr_fn == "spectral_unclamped":
        ratio = math.sqrt(rows / cols)
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """PyTorch's Muon for 2-D parameters: b = lerp(b, g, 1 - momentum); the update (Nesterov:
    lerp(g, b, momentum)) is orthogonalized, then p *= 1 - lr wd; p -= adjusted lr * update."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95, nesterov: bool = True, ns_coefficients: Tuple[float, float, float] = (3.4445, -4.7750, 2.0315), eps: float = 1e-7, ns_steps: int = 5, adjust_lr_fn: Optional[str] = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov, ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for g in self.param_groups:
            for p in g["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}")

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Muon update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        lr, wd, mu = group["lr"], group["weight_decay"], group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            st = self.state[p]
            if "momentum_buffer" not in st:
                st["momentum_buffer"] = _core.zeros_like(p.grad)
            g, buf = p.grad, st["momentum_buffer"]
            if g.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf.lerp_(g, 1 - mu)
            update = g.lerp(buf, mu) if group["nesterov"] else buf
            update = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
            p.mul_(1 - lr * wd)
            p.add_(update, alpha=-float(adjusted_lr(lr, group["adjust_lr_fn"], p.shape)))

"""Adafactor: second moments kept as row and column factors for matrices (sublinear memory)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from .. import _core
from .._type_info import finfo
from .optimizer import Optimizer, Tensor, _step_counter


class Adafactor(Optimizer):
    """PyTorch's Adafactor (Shazeer & Stern, 2018): relative step rho_t = min(lr, 1/sqrt(t)),
    beta2_t = 1 - t^beta2_decay, factored variance for tensors of 2+ dims, update clipping by
    ``d`` and decoupled weight decay scaled by lr."""

    def __init__(self, params: Iterable[Any], lr: Any = 1e-2, beta2_decay: float = -0.8, eps: Tuple[Optional[float], float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *, foreach: Optional[bool] = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)
        for g in self.param_groups:
            g.setdefault("foreach", None)

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One Adafactor update of every parameter with a gradient; returns the closure's loss."""
        return self._step_groups(closure)

    def _group_step(self, group: Dict[str, Any]) -> None:
        lr, decay, wd, clip = group["lr"], group["beta2_decay"], group["weight_decay"], group["d"]
        eps1, eps2 = group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if p.grad.is_sparse:
                raise RuntimeError("Adafactor does not support sparse gradients")
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _step_counter()
                if p.grad.dim() > 1:
                    st["row_var"] = p.grad.new_zeros(list(p.grad.shape[:-1]) + [1])
                    st["col_var"] = p.grad.new_zeros(list(p.grad.shape[:-2]) + [1, p.grad.shape[-1]])
                else:
                    st["variance"] = _core.zeros_like(p.grad)
            g = -p.grad if group["maximize"] else p.grad
            # PyTorch fixes a missing eps1 from the first parameter's dtype for the whole group.
            if eps1 is None:
                eps1 = finfo(p.dtype).eps
            st["step"] += 1
            step = st["step"].item()
            one_minus_beta2 = step**decay
            rho = min(lr, 1 / (step**0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
            if wd != 0:
                p.mul_(1 - lr * wd)
            if g.dim() > 1:
                row_var, col_var = st["row_var"], st["col_var"]
                row_var.lerp_(g.norm(2, dim=-1, keepdim=True).square_().div_(g.size(-1)), one_minus_beta2)
                col_var.lerp_(g.norm(2, dim=-2, keepdim=True).square_().div_(g.size(-2)), one_minus_beta2)
                estimate = row_var @ col_var
                estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                st["variance"].lerp_(g * g, one_minus_beta2)
                estimate = st["variance"].clone()
            update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * clip))
            p.add_(update, alpha=float(-alpha / denom))

"""SparseAdam: Adam for sparse gradients (ferrotorch has no sparse tensors, so it refuses dense ones)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Tuple

from .._grad_mode import enable_grad
from .optimizer import Optimizer, Tensor


class SparseAdam(Optimizer):
    """PyTorch's SparseAdam interface. Only sparse gradients are accepted and ferrotorch produces
    none, so ``step`` raises PyTorch's dense-gradient error for any parameter with a gradient."""

    _scalar_state_keys = ()

    def __init__(self, params: Iterable[Any], lr: Any = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [[i, j] for i, g in enumerate(self.param_groups) for j, p in enumerate(g["params"]) if p.is_sparse]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")
        complex_ = [[i, j] for i, g in enumerate(self.param_groups) for j, p in enumerate(g["params"]) if p.is_complex()]
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not support complex parameters")

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Raises for dense gradients, as PyTorch's SparseAdam does; returns the closure's loss otherwise."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None and not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss


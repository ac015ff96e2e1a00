"""The functional softmax family: softmax, log_softmax, softmin and gumbel_softmax
(re-exported by ``nn.functional``)."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from .. import _core
from ._functional_activation import _floating_only

Tensor = _core.Tensor


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_kernel_check(name: str, input: Tensor, dim: int, dtype: Any) -> bool:
    """PyTorch's checks in its order: the dim, then the dtype, which only matters when there
    are elements (an empty integer input comes back as it is). True when nothing is computed."""
    n = max(input.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{name}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    if dtype is None and not input.dtype.is_floating_point:
        if input.numel() == 0:
            return True
        last = input.ndim == 0 or dim % input.ndim == input.ndim - 1
        _floating_only(f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl", input)
    return False


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) over ``dim`` (fused kernel)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    if _softmax_kernel_check("softmax", input, dim, dtype):
        return input.clone()
    return input.softmax(dim, dtype)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """log(softmax(x)) over ``dim``, computed stably (fused kernel)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    if _softmax_kernel_check("log_softmax", input, dim, dtype):
        return input.clone()
    return input.log_softmax(dim, dtype)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """softmax(-x) over ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    if _softmax_kernel_check("softmax", input, dim, dtype):
        return input.clone()
    return (-input).softmax(dim, dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample from the Gumbel-softmax (concrete) distribution over ``dim``; with ``hard``,
    a one-hot sample whose gradient is the soft sample's (straight-through). ``eps`` is
    accepted for PyTorch compatibility and unused, as there."""
    # -log(E), E ~ Exp(1), is a standard Gumbel sample.
    noise = -_core.empty(tuple(logits.shape), dtype=logits.dtype).exponential_().log()
    soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = _core.zeros(tuple(logits.shape), dtype=logits.dtype).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft

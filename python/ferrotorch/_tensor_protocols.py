"""Python protocols of Tensor written in Python: deep copy, pickling, ``in`` and ``format``
(no ``__round__``: PyTorch's Tensor has none either)."""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor


def _deepcopy(self: Tensor, memo: dict) -> Tensor:
    """Deep copy of a leaf: same values and ``requires_grad``, new storage (as PyTorch)."""
    if id(self) in memo:
        return memo[id(self)]
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
        )
    new = self.detach().clone()
    if type(self) is not Tensor:
        new = type(self).__new__(type(self), new)  # subclasses (Parameter) alias the copy
    new.requires_grad_(self.requires_grad)
    if self.grad is not None:
        new.grad = self.grad.detach().clone()
    new.__dict__.update({k: v for k, v in self.__dict__.items()})
    memo[id(self)] = new
    return new


def _rebuild_tensor(array: Any, dtype_name: str, requires_grad: bool) -> Tensor:
    t = _core.from_numpy(array).to(getattr(_core, dtype_name))
    return t.requires_grad_(True) if requires_grad else t


def _reduce_ex(self: Tensor, proto: Any) -> Any:
    """Pickles values, dtype and requires_grad (through a NumPy copy of the data)."""
    t = self.detach()
    arr = (t.float() if t.dtype == _core.bfloat16 else t).contiguous().numpy().copy()
    return (_rebuild_tensor, (arr, t.dtype.name, self.requires_grad))


def _contains(self: Tensor, element: Any) -> bool:
    """``x in t``: True if any element equals ``x``."""
    if not isinstance(element, (Tensor, int, float, bool)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")
    return bool((self == element).any().item())


def _format(self: Tensor, spec: str) -> str:
    """0-d tensors format as their Python number (``f"{loss:.3f}"``); others as objects do."""
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec)


def install() -> None:
    """Attaches the protocols to Tensor."""
    Tensor.__deepcopy__ = _deepcopy  # type: ignore[attr-defined]
    Tensor.__reduce_ex__ = _reduce_ex  # type: ignore[method-assign]
    Tensor.__contains__ = _contains  # type: ignore[method-assign]
    Tensor.__format__ = _format  # type: ignore[method-assign]

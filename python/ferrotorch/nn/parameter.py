"""``nn.Parameter``: a tensor that a Module registers as a learnable parameter."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core

Tensor = _core.Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and shares memory with ``data``.

    >>> import ferrotorch as torch
    >>> p = torch.nn.Parameter(torch.zeros(2))
    >>> p.requires_grad, p.is_leaf
    (True, True)
    """

    def __new__(cls, data: Optional[Tensor] = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = _core.empty(0)
        t = Tensor.__new__(cls, data.detach() if isinstance(data, Tensor) else _core.tensor(data))
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, data: Optional[Tensor] = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto: Any) -> Any:
        return (Parameter, (self.detach().clone(), self.requires_grad))

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            new.grad = self.grad.detach().clone()
        memo[id(self)] = new
        return new


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute."""

    def __new__(cls, data: Optional[Tensor] = None, *, persistent: bool = True) -> "Buffer":
        t = Tensor.__new__(cls, data if data is not None else _core.empty(0))
        t.persistent = persistent
        return t


def __getattr__(name: str) -> Any:
    # The lazy placeholders live with the lazy modules (which import this file); PyTorch users
    # reach them as torch.nn.parameter.UninitializedParameter/UninitializedBuffer.
    if name in ("UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin"):
        from .modules import lazy

        if hasattr(lazy, name):
            return getattr(lazy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

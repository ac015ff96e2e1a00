"""Applying a Python callable to every element, in place: ``apply_``, ``map_`` and ``map2_``.

These are Python-speed by nature (PyTorch also calls the callable once per element); the
values go out as Python numbers and come back through one tensor built from the results."""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, Tuple

from . import _core

Tensor = _core.Tensor


def _check_writable(self: Tensor, name: str, *others: Tensor) -> None:
    if any(t.requires_grad for t in (self,) + others):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _check_callable(fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")


def _elements(t: Tensor) -> List[Any]:
    return t.reshape(-1).tolist()


def _write_back(self: Tensor, values: List[Any]) -> Tensor:
    for v in values:
        if not isinstance(v, numbers.Number):
            raise TypeError(f"must be real number, not {type(v).__name__}")
    if values:
        new = _core.tensor(values, dtype=self.dtype).reshape(tuple(self.shape))
        self.copy_(new)
    return self


def _same_dtype(name: str, self: Tensor, other: Tensor, arg: str) -> None:
    if other.dtype != self.dtype:
        raise TypeError(f"{name}: expected a {self.dtype} tensor for '{arg}' (got {other.dtype})")


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:
    """Replaces each element ``v`` with ``callable(v)`` (CPU only). Returns ``self``."""
    _check_callable(callable)
    _check_writable(self, "apply_")
    return _write_back(self, [callable(v) for v in _elements(self)])


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
    """Replaces each element ``a`` with ``callable(a, b)``, ``b`` from ``tensor`` broadcast to
    ``self``'s shape (same dtype required). Returns ``self``."""
    _check_callable(callable)
    _same_dtype("map_", self, tensor, "other")
    _check_writable(self, "map_", tensor)
    b = tensor.expand(tuple(self.shape))
    return _write_back(self, [callable(u, v) for u, v in zip(_elements(self), _elements(b))])


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Tensor:
    """Replaces each element ``a`` with ``callable(a, b, c)``, ``b`` and ``c`` from ``x`` and
    ``y`` broadcast to ``self``'s shape (same dtype required). Returns ``self``."""
    _check_callable(callable)
    _same_dtype("map2_", self, x, "x")
    _same_dtype("map2_", self, y, "y")
    _check_writable(self, "map2_", x, y)
    shape = tuple(self.shape)
    triples = zip(_elements(self), _elements(x.expand(shape)), _elements(y.expand(shape)))
    return _write_back(self, [callable(a, b, c) for a, b, c in triples])


__all__: Tuple[str, ...] = ()
METHODS: Tuple[Any, ...] = (apply_, map_, map2_)

"""Handles returned by ``register_hook`` calls."""

from __future__ import annotations

from typing import Any


class RemovableHandle:
    """Removes a hook from a dict of hooks when ``remove()`` is called."""

    _next_id = 0

    def __init__(self, hooks_dict: dict) -> None:
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _TensorHookHandle:
    """Handle for a hook registered on a tensor through the Rust core."""

    def __init__(self, tensor: Any, hook_id: int) -> None:
        self.tensor = tensor
        self.id = hook_id

    def remove(self) -> None:
        self.tensor._remove_hook(self.id)

    def __enter__(self) -> "_TensorHookHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

"""The exceptions ``torch._dynamo`` raises that programs catch."""

from __future__ import annotations

__all__ = ["InvalidBackend", "TorchDynamoException"]


class TorchDynamoException(RuntimeError):
    """Base of the compiler's errors."""


class InvalidBackend(TorchDynamoException):
    """``torch.compile(backend=...)`` named no known backend."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid backend: {name!r}. See `torch._dynamo.list_backends()` for available backends.")

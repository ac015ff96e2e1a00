"""Utilities: data loading (``utils.data``), hook handles, activation checkpointing."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]

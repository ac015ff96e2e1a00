"""Utilities: hooks handles (data loading lives in ``utils.data``, a later addition)."""

from . import hooks

__all__ = ["hooks"]

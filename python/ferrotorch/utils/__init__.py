"""Utilities: data loading (``utils.data``) and hook handles."""

from . import data, hooks

__all__ = ["data", "hooks"]

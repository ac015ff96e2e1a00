"""``torch.compiler``: the public face of compilation (``compile``, ``reset``, ``disable``,
``is_compiling``, ...). Programs run eagerly here; see ``torch.compile``."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from .. import _dynamo
from .._compile import compile

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends", "reset"]

reset = _dynamo.reset
disable = _dynamo.disable
allow_in_graph = _dynamo.allow_in_graph


def list_backends(exclude_tags: Optional[Sequence[str]] = ("debug", "experimental")) -> List[str]:
    return _dynamo.list_backends(exclude_tags)


def is_compiling() -> bool:
    """False: nothing is traced here."""
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def assume_constant_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs are recorded here."""

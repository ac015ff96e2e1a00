"""``torch._dynamo``: the names programs touch around ``torch.compile``. ferrotorch runs
compiled programs eagerly (its ops already go straight to Rust), so these keep state only."""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional, Sequence

from . import config, eval_frame, exc
from .eval_frame import OptimizedModule

__all__ = ["OptimizedModule", "allow_in_graph", "config", "disable", "eval_frame", "exc", "is_compiling", "list_backends", "mark_dynamic", "mark_static", "reset"]

# PyTorch's registered backends and their tags (those tagged debug/experimental are listed
# only when asked for).
_BACKENDS = {
    "aot_eager": "debug",
    "aot_eager_decomp_partition": "debug",
    "aot_eager_default_partitioner": "debug",
    "aot_ts": "experimental",
    "cudagraphs": "",
    "eager": "debug",
    "inductor": "",
    "openxla": "",
    "ts": "experimental",
    "tvm": "",
}


def list_backends(exclude_tags: Optional[Sequence[str]] = ("debug", "experimental")) -> List[str]:
    """The backend names ``torch.compile`` accepts."""
    skip = set(exclude_tags or ())
    return sorted(n for n, tag in _BACKENDS.items() if tag not in skip)


def check_backend(backend: Any) -> None:
    """Raises ``InvalidBackend`` for a name that is no backend (callables are accepted)."""
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise exc.InvalidBackend(backend)


def reset() -> None:
    """Forgets compiled code (there is none to forget)."""


def is_compiling() -> bool:
    """False: code never runs under a tracer here."""
    return False


def disable(fn: Optional[Callable[..., Any]] = None, recursive: bool = True, *, reason: Optional[str] = None) -> Any:
    """Marks ``fn`` not to be compiled; returns it (or a decorator) unchanged in behaviour."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def allow_in_graph(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


def mark_dynamic(t: Any, index: Any, *, min: Optional[int] = None, max: Optional[int] = None) -> None:
    """A shape hint for the tracer; nothing to record here."""


def mark_static(t: Any, index: Any = None) -> None:
    """A shape hint for the tracer; nothing to record here."""

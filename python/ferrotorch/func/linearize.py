"""``torch.func.linearize``: the output of a function and its Jacobian-vector product at fixed
primals, as a function of the tangents."""

from __future__ import annotations

from typing import Any, Callable, Tuple

from .jvp import jvp


def linearize(func: Callable[..., Any], *primals: Any) -> Tuple[Any, Callable[..., Any]]:
    """Returns ``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the directional
    derivative of ``func`` at ``primals`` along ``tangents``.

    >>> import ferrotorch as torch
    >>> out, jvp_fn = torch.func.linearize(torch.sin, torch.tensor([0.0]))
    >>> jvp_fn(torch.tensor([3.0]))
    tensor([3.])
    """
    output, _ = jvp(func, primals, tuple(p.detach() * 0 for p in primals))

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn

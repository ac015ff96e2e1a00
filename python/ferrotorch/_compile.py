"""``torch.compile``: accepted as a function, a decorator and on modules, with PyTorch's
argument checks; what it returns runs eagerly, with the same results, since ferrotorch's ops
already run from Python straight into Rust kernels."""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional, Union

from . import _dynamo

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(
    model: Optional[Callable[..., Any]] = None,
    *,
    fullgraph: bool = False,
    dynamic: Optional[bool] = None,
    backend: Union[str, Callable[..., Any]] = "inductor",
    mode: Optional[str] = None,
    options: Optional[Dict[str, Any]] = None,
    disable: bool = False,
) -> Any:
    """A module becomes an ``OptimizedModule`` (``_orig_mod`` holds it), a function a wrapper
    of it; without ``model``, a decorator. ``disable=True`` returns ``model`` itself.

    >>> import ferrotorch as torch
    >>> @torch.compile(mode="max-autotune")
    ... def double(x):
    ...     return x * 2
    >>> double(torch.ones(2))
    tensor([2., 2.])
    """
    if model is None:

        def decorate(fn: Callable[..., Any]) -> Any:
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options, disable=disable)

        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    _dynamo.check_backend(backend)
    from .nn.modules.module import Module

    settings = {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend, "mode": mode, "options": options}
    if isinstance(model, Module):
        return _dynamo.OptimizedModule(model, settings)

    @functools.wraps(model)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return model(*args, **kwargs)

    return compiled

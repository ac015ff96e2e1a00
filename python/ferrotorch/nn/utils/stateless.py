"""``nn.utils.stateless.functional_call``: call a module with some of its parameters and
buffers replaced for the duration of the call, so that the module is a pure function of them
(the basis of ``torch.func`` over models)."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ... import _core

Tensor = _core.Tensor
_MISSING = object()


def _owner(module: Any, dotted: str) -> Tuple[Any, str]:
    """The submodule that holds ``dotted``'s last component, and that component."""
    *path, name = dotted.split(".")
    mod = module
    for part in path:
        child = mod._modules.get(part) if hasattr(mod, "_modules") else None
        if child is None:
            raise AttributeError(f"{type(mod).__name__} has no attribute `{part}`")
        mod = child
    return mod, name


def _tied_names(module: Any) -> List[List[str]]:
    """Groups of names under which one tensor is registered more than once."""
    groups: Dict[int, List[str]] = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(name)
    return [g for g in groups.values() if len(g) > 1]


def _untie(module: Any, given: Dict[str, Any]) -> Dict[str, Any]:
    """``given`` extended so that each tensor given under one name of a tied group replaces all
    of its names, as PyTorch does with ``tie_weights=True``."""
    out = dict(given)
    for group in _tied_names(module):
        present = [n for n in group if n in given]
        if not present:
            continue
        value = given[present[0]]
        if any(given[n] is not value for n in present[1:]):
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(present)}, which are tied. "
                "Consider using tie_weights=False"
            )
        for n in group:
            out[n] = value
    return out


def _check_strict(module: Any, given: Dict[str, Any]) -> None:
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    unexpected = sorted(k for k in given if k not in names)
    missing = sorted(n for n in names if n not in given)
    if unexpected or missing:
        lines = []
        if unexpected:
            lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))


@contextlib.contextmanager
def _reparametrize_module(module: Any, tensors: Dict[str, Any], tie_weights: bool = True, strict: bool = False) -> Iterator[None]:
    """Swaps ``tensors`` into ``module`` (by dotted name) inside the block and puts the
    originals back afterwards, whatever happens inside."""
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise TypeError(f"{v} is not an instance of torch.Tensor")
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        _check_strict(module, tensors)
    swapped: List[Tuple[Any, str, str, Any]] = []
    try:
        for dotted, value in tensors.items():
            mod, name = _owner(module, dotted)
            for store in ("_parameters", "_buffers"):
                d = mod.__dict__.get(store)
                if d is not None and name in d:
                    swapped.append((mod, store, name, d[name]))
                    d[name] = value
                    break
            else:
                # Neither a parameter nor a buffer: a plain attribute for the call, as in PyTorch.
                swapped.append((mod, "", name, mod.__dict__.get(name, _MISSING)))
                object.__setattr__(mod, name, value)
        yield
    finally:
        for mod, store, name, old in reversed(swapped):
            if store:
                mod.__dict__[store][name] = old
            elif old is _MISSING:
                mod.__dict__.pop(name, None)
            else:
                object.__setattr__(mod, name, old)


def _functional_call(
    module: Any,
    parameters_and_buffers: Dict[str, Tensor],
    args: Optional[Any] = None,
    kwargs: Optional[Dict[str, Any]] = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, dict(parameters_and_buffers), tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(
    module: Any,
    parameters_and_buffers: Dict[str, Tensor],
    args: Optional[Any] = None,
    kwargs: Optional[Dict[str, Any]] = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Deprecated (with a FutureWarning, as in PyTorch) for ``torch.func.functional_call``.
    Calls ``module(*args, **kwargs)`` with the tensors in ``parameters_and_buffers`` (dotted
    names) standing in for its parameters and buffers; the module is unchanged afterwards.
    ``args`` that is not a tuple is the single positional argument. With ``tie_weights``, a
    tensor given for one name of a tied parameter replaces all of them; with ``strict``, every
    parameter and buffer must be given and no other name.

    >>> import ferrotorch as torch
    >>> lin = torch.nn.Linear(2, 1)
    >>> w = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.nn.utils.stateless.functional_call(lin, w, (torch.tensor([1.0, 2.0]),))  # doctest: +SKIP
    tensor([3.])
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
        "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


__all__ = ["functional_call"]

"""``torch.func.functional_call``: a module called as a pure function of parameter and buffer
dictionaries."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

from ..nn.utils.stateless import _functional_call as _stateless_call


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Union[Dict[str, Any], Sequence[Dict[str, Any]]],
    args: Any = None,
    kwargs: Optional[Dict[str, Any]] = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Calls ``module(*args, **kwargs)`` with its parameters and buffers replaced by the
    tensors in ``parameter_and_buffer_dicts`` (a dict of dotted names, or a sequence of dicts
    with disjoint keys, e.g. ``(params, buffers)``); the module itself is left unchanged.
    Combined with :func:`grad` and :func:`vmap` it gives per-sample gradients.

    >>> import ferrotorch as torch
    >>> lin = torch.nn.Linear(2, 1)
    >>> params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.func.functional_call(lin, params, (torch.tensor([1.0, 2.0]),))
    tensor([3.])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        seen: Dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                seen[k] = seen.get(k, 0) + 1
        repeated = [k for k, n in seen.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    return _stateless_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)

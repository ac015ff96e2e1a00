"""``torch.func.stack_module_state``: the parameters and buffers of several models of one
class stacked along a new leading dimension (for ``vmap`` over an ensemble)."""

from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

from .. import _core


def _stacked_leaf(tensors: Sequence[Any], name: str) -> Any:
    needs = [t.requires_grad for t in tensors]
    if any(needs) and not all(needs):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = _core.stack([t.detach() for t in tensors])
    return stacked.requires_grad_() if all(needs) else stacked


def stack_module_state(models: Sequence[Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """``(params, buffers)``: for each name, the models' tensors stacked on a new dim 0.
    Stacked parameters are new leaves (requiring grad when the models' do), not views of
    the models' parameters.

    >>> import ferrotorch as torch
    >>> params, buffers = torch.func.stack_module_state([torch.nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape
    torch.Size([4, 2, 3])
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _core.stack([b[k] for b in all_buffers]) for k in all_buffers[0]}
    return params, buffers

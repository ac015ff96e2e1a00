"""``torch.cond`` and ``torch.while_loop``: higher-order control flow, run eagerly (no graph
capture in ferrotorch): ``cond`` calls ``true_fn(*operands)`` or ``false_fn(*operands)`` as
``pred`` says; ``while_loop`` calls ``body_fn`` while ``cond_fn`` holds."""

from __future__ import annotations

from typing import Any, Callable, Tuple, Union

from . import _core

Tensor = _core.Tensor


def cond(
    pred: Union[bool, int, float, Tensor],
    true_fn: Callable[..., Any],
    false_fn: Callable[..., Any],
    operands: Union[tuple, list] = (),
) -> Any:
    """``true_fn(*operands)`` if ``pred`` (a bool, number or one-element tensor) is true, else
    ``false_fn(*operands)``."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        take = bool(pred.item())
    elif isinstance(pred, (bool, int, float)):
        take = bool(pred)
    else:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    return (true_fn if take else false_fn)(*operands)


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any], carried_inputs: Union[tuple, list]) -> Tuple[Any, ...]:
    """Runs ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` (a bool or one-element
    tensor) is true; returns the final ``carried`` as a tuple."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list, got {type(carried_inputs)}")
    carried = tuple(carried_inputs)
    while True:
        pred = cond_fn(*carried)
        if isinstance(pred, Tensor):
            if pred.numel() != 1:
                raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean, got {pred}")
            pred = bool(pred.item())
        if not pred:
            return carried
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)


__all__: Tuple[str, ...] = ("cond", "while_loop")
METHODS: Tuple[Any, ...] = ()

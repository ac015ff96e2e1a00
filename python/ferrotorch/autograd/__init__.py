"""``ferrotorch.autograd``: reverse-mode differentiation of imperative programs.

The graph is built by the Rust core as ops run; this module exposes ``backward``, ``grad``,
custom ``Function`` subclasses, and finite-difference checks.
"""

from __future__ import annotations

import threading
from typing import Any, Optional, Sequence, Union

from .. import _core
from .._grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import profiler
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .gradcheck import gradcheck, gradgradcheck

_TensorOrTensors = Union[Any, Sequence[Any]]
# How deep this thread is in grad() or backward(inputs=...): reentrant checkpoints refuse them.
_partial_backward = threading.local()


def grad_call_active() -> bool:
    """True inside ``autograd.grad`` or ``autograd.backward(inputs=...)`` on this thread."""
    return getattr(_partial_backward, "depth", 0) > 0


def _run_partial(fn: Any, *args: Any) -> Any:
    _partial_backward.depth = getattr(_partial_backward, "depth", 0) + 1
    try:
        return fn(*args)
    finally:
        _partial_backward.depth -= 1


def backward(
    tensors: _TensorOrTensors,
    grad_tensors: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    inputs: Optional[_TensorOrTensors] = None,
) -> None:
    """Accumulates the gradients of ``tensors`` into the ``.grad`` of the graph's leaves."""
    if inputs is not None:
        _run_partial(_core._backward, tensors, grad_tensors, retain_graph, create_graph, inputs)
        return
    _core._backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(
    outputs: _TensorOrTensors,
    inputs: _TensorOrTensors,
    grad_outputs: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Optional[bool] = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Returns the gradients of ``outputs`` with respect to ``inputs`` without touching ``.grad``.

    >>> import ferrotorch as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> torch.autograd.grad(x * x, x)
    (tensor(6.),)
    """
    if is_grads_batched:
        raise NotImplementedError("autograd.grad(is_grads_batched=True) is not supported")
    return _run_partial(_core._grad, outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)


__all__ = [
    "Function",
    "FunctionCtx",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "set_detect_anomaly",
    "inference_mode",
    "no_grad",
    "profiler",
    "set_grad_enabled",
]

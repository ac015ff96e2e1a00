"""The module table: each case builds one ``nn`` module the same way in ferrotorch and in
PyTorch (``make(lib)`` is called with either library as ``lib``) and names sample inputs.
tests/test_module_table.py checks every case against PyTorch: parameter and buffer names,
shapes and dtypes, state_dict keys, repr, outputs and gradients (inputs and parameters) from
the same weights in train and eval mode, and load_state_dict both ways.

Cases live in ``module_cases_<family>.py`` beside this file, one list ``CASES`` each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np


@dataclass
class ModCase:
    """One constructor call and its inputs.

    - ``make(lib)`` builds the module with ``lib`` = ferrotorch or torch, e.g.
      ``lambda t: t.nn.Conv2d(3, 4, 3, bias=False, dtype=t.float64)``.
    - ``inputs(rng)`` returns the positional inputs: NumPy arrays become tensors of both
      libraries (float arrays require grad unless ``grad_inputs`` says which do), anything
      else is passed as it is. ``kwargs`` go to forward the same way.
    - ``random_train``: the train-mode output is random (dropout): only shapes are compared.
    - ``modes``: which of "train"/"eval" to run.
    - ``adapt_inputs(lib, inputs)``: turns the tensors made from ``inputs`` into what forward
      takes, with either library (e.g. packing them into a PackedSequence); gradients are still
      checked on the tensors it was given.
    - ``error``: forward must raise this exception class, with PyTorch's exact message.
    """

    id: str
    make: Callable[[Any], Any]
    inputs: Callable[[np.random.Generator], Tuple[Any, ...]]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    grad_inputs: Optional[Tuple[int, ...]] = None
    random_train: bool = False
    modes: Tuple[str, ...] = ("train", "eval")
    rtol: float = 1e-4
    atol: float = 1e-5
    backward: bool = True
    adapt_inputs: Optional[Callable[[Any, List[Any]], List[Any]]] = None
    error: Optional[type] = None


def randn(*shape: int, dtype: Any = np.float32) -> Callable[[np.random.Generator], np.ndarray]:
    """An input factory: standard normal values of the given shape."""
    return lambda rng: rng.standard_normal(shape).astype(dtype)


def one(*shape: int, dtype: Any = np.float32) -> Callable[[np.random.Generator], Tuple[np.ndarray]]:
    """Inputs factory for a module with one normal input."""
    return lambda rng: (rng.standard_normal(shape).astype(dtype),)


def ints(high: int, *shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    """An input factory: int64 values in [0, high)."""
    return lambda rng: rng.integers(0, high, shape).astype(np.int64)


def flatten_tensors(value: Any, is_tensor: Callable[[Any], bool]) -> List[Any]:
    """The tensors of a (nested) module output, in order."""
    if is_tensor(value):
        return [value]
    if isinstance(value, (tuple, list)):
        out: List[Any] = []
        for v in value:
            out.extend(flatten_tensors(v, is_tensor))
        return out
    if isinstance(value, dict):
        out = []
        for k in sorted(value):
            out.extend(flatten_tensors(value[k], is_tensor))
        return out
    return []

"""``DataLoader(pin_memory=True)``: each batch's tensors copied into page-locked host memory,
so that ``.to("cuda", non_blocking=True)`` runs asynchronously. Without a CUDA device the
loader warns once per pass and yields the batches as they are, as PyTorch does."""

import warnings
from typing import Any


def pinning_available() -> bool:
    """Whether batches can be pinned here (a CUDA device is present); warns when not."""
    from ... import cuda

    if cuda.is_available():
        return True
    warnings.warn(
        "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used.",
        stacklevel=3,
    )
    return False


def pin(data: Any) -> Any:
    """``data`` with every tensor in it (through dicts, lists, tuples and namedtuples) pinned;
    objects with a ``pin_memory()`` method (custom batch types) are asked to pin themselves."""
    from ... import Tensor

    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, dict):
        pinned = {k: pin(v) for k, v in data.items()}
        try:
            return pinned if type(data) is dict else type(data)(pinned)
        except TypeError:  # a mapping type that cannot be built from a dict
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(pin(v) for v in data)
    if hasattr(data, "pin_memory") and callable(data.pin_memory):
        return data.pin_memory()
    return data

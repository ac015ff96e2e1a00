"""Tensors as the buffers MPI reads and writes: a contiguous CPU tensor is handed over as a
NumPy view of its own memory (no copy), so in-place results land in the tensor itself.
Non-contiguous tensors, and the half types MPI cannot reduce, go through a staging copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core

Tensor = _core.Tensor

# dtypes MPI has no arithmetic for: reductions run on a float32 copy.
_STAGED_AS_FLOAT32 = {"float16", "bfloat16"}


class Buffer:
    """``array`` is what the engine reads/writes; ``finish()`` copies a staged result back."""

    __slots__ = ("tensor", "array", "staged")

    def __init__(self, tensor: Tensor, array: np.ndarray, staged: bool) -> None:
        self.tensor, self.array, self.staged = tensor, array, staged

    def finish(self) -> None:
        if self.staged:
            copy_into(self.tensor, self.array)

    def raw(self) -> np.ndarray:
        """The bytes of the buffer, for operations that only move data."""
        return self.array.reshape(-1).view(np.uint8)


def _dtype_name(t: Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def check_cpu_tensor(t: Any, op_name: str, arg: str = "tensor") -> Tensor:
    """``t`` itself, or a TypeError/ValueError naming the op when it is no CPU tensor."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{op_name}: {arg} must be a Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(
            f"{op_name}: the mpi backend takes CPU tensors, got one on {t.device} "
            "(init_process_group(backend='nccl') serves CUDA tensors)"
        )
    return t


def as_buffer(t: Tensor, for_reduction: bool) -> Buffer:
    """A Buffer over ``t``: zero-copy when contiguous (and of a dtype MPI can reduce)."""
    d = t.detach()
    if for_reduction and _dtype_name(d) in _STAGED_AS_FLOAT32:
        return Buffer(t, np.ascontiguousarray(np.asarray(d.float())), True)
    if d.dtype == _core.bfloat16:
        return Buffer(t, np.ascontiguousarray(np.asarray(d.float())), True)
    if d.is_contiguous():
        return Buffer(t, np.asarray(d), False)
    return Buffer(t, np.ascontiguousarray(np.asarray(d)), True)


def numpy_dtype(like: Tensor, for_reduction: bool) -> np.dtype:
    """The NumPy dtype the engine sees for ``like``'s elements."""
    name = _dtype_name(like)
    if name == "bfloat16" or (for_reduction and name in _STAGED_AS_FLOAT32):
        return np.dtype(np.float32)
    return np.dtype(name)


def copy_into(t: Tensor, values: np.ndarray) -> None:
    """Writes ``values`` (same numel, any dtype) into ``t`` in place, casting as ``copy_`` does."""
    src = _core.from_numpy(np.ascontiguousarray(values).reshape(tuple(t.shape)))
    t.detach().copy_(src)

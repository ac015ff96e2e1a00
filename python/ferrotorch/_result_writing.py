"""Writing results the way PyTorch's ops do: into ``self`` for in-place forms (no
broadcast growth, dtype must cast) and into ``out=`` tensors; dtype names for messages."""

from __future__ import annotations

from typing import Any, Sequence

from . import _core
from ._type_info import scalar_type_name as scalar_name

Tensor = _core.Tensor


def float_result_dtype(x: Tensor) -> Any:
    """The dtype of a unary float op on ``x``: its own if float/complex, else the default."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x.dtype
    return _core.get_default_dtype()


def assign_inplace(self: Tensor, result: Tensor, name: str) -> Tensor:
    """Writes ``result`` into ``self`` as PyTorch's in-place ops do: the shape may not grow by
    broadcasting and the result dtype must cast to self's; bumps the version, returns self."""
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(
            f"{name}: output with shape {list(self.shape)} doesn't match the broadcast shape {list(result.shape)}"
        )
    if result.dtype != self.dtype and not _core.can_cast(result.dtype, self.dtype):
        raise RuntimeError(
            f"{name}: result type {scalar_name(result.dtype)} can't be cast to the desired output type {scalar_name(self.dtype)}"
        )
    return self.copy_(result)


def source_of(self: Tensor) -> Tensor:
    """The input of an in-place op: a clone while self records gradients, so the graph keeps
    the value from before the write (the saved tensor is not overwritten)."""
    return self.clone() if self.requires_grad and _core.is_grad_enabled() else self


def write_out(result: Any, out: Any, op: str, inputs: Sequence[Any] = ()) -> Any:
    """``out=``: the result (a tensor or a tuple of them) copied into ``out``, which must have
    the result's shape (ferrotorch cannot resize in place) and a dtype the result casts to.
    As PyTorch, out= does not record gradients."""
    if out is None:
        return result
    if _core.is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    pairs = list(zip(result, out)) if isinstance(result, tuple) else [(result, out)]
    if isinstance(result, tuple) and (not isinstance(out, (tuple, list)) or len(out) != len(result)):
        raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(result)} Tensors")
    for r, o in pairs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(o).__name__}")
        if tuple(o.shape) != tuple(r.shape):
            raise RuntimeError(f"{op}: out= has shape {list(o.shape)} but the result has shape {list(r.shape)}")
        if o.dtype != r.dtype and not _core.can_cast(r.dtype, o.dtype):
            raise RuntimeError(
                f"{op}: result type {scalar_name(r.dtype)} can't be cast to the desired output type {scalar_name(o.dtype)}"
            )
        o.copy_(r.detach())
    return out

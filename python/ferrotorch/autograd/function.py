"""Custom differentiable functions: subclass ``Function`` with static ``forward`` and
``backward``, and call ``apply``."""

from __future__ import annotations

from typing import Any, Tuple

from .. import _core
from .._grad_mode import no_grad

Tensor = _core.Tensor


class FunctionCtx:
    """The ``ctx`` object handed to ``forward`` and ``backward``."""

    def __init__(self) -> None:
        self._saved: Tuple[Any, ...] = ()
        self._saved_versions: Tuple[int, ...] = ()
        self.needs_input_grad: Tuple[bool, ...] = ()
        self._non_differentiable: list = []
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Any) -> None:
        """Keeps tensors for ``backward``; modifying them in place afterwards is an error."""
        self._saved = tensors
        self._saved_versions = tuple(t._version if isinstance(t, Tensor) else 0 for t in tensors)

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        for t, v in zip(self._saved, self._saved_versions):
            if isinstance(t, Tensor) and t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: [torch.{t.type().split('.')[-1]} {list(t.shape)}] is at "
                    f"version {t._version}; expected version {v} instead."
                )
        return self._saved

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Declares outputs that get no gradient (indices, masks)."""
        self._non_differentiable.extend(tensors)

    def mark_dirty(self, *tensors: Any) -> None:
        """Accepted for compatibility: in-place outputs are handled like new outputs."""

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class Function:
    """Base class of custom autograd operations.

    >>> import ferrotorch as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> Square.apply(x).backward()
    >>> x.grad
    tensor(6.)
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: Any, output: Any) -> None:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        uses_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else tuple(outputs)
        positions = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        tensor_outs = [outs[i] for i in positions]
        nondiff = [any(o is n for n in ctx._non_differentiable) for o in tensor_outs]

        def run_backward(*grads: Any) -> Any:
            full = list(grads)
            if len(positions) != len(outs):
                full = [None] * len(outs)
                for p, g in zip(positions, grads):
                    full[p] = g
            result = cls.backward(ctx, *full)
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) < len(args):
                raise RuntimeError(
                    f"function {cls.__name__}Backward returned an incorrect number of gradients "
                    f"(expected {len(args)}, got {len(result)})"
                )
            return tuple(result[: len(args)])

        wrapped = _one_node(f"{cls.__name__}Backward", list(args), tensor_outs, run_backward, nondiff)
        outs_list = list(outs)
        for p, w in zip(positions, wrapped):
            outs_list[p] = w
        return outs_list[0] if single else tuple(outs_list)


def _differentiable(t: Tensor) -> bool:
    """Float and complex outputs carry gradients; integer and bool ones never do."""
    return t.dtype.is_floating_point or t.dtype.is_complex


def _one_node(name: str, args: list, outs: list, run_backward: Any, nondiff: list) -> list:
    """Records the function so that ``backward`` runs once with the gradients of all outputs,
    as PyTorch's does. The core's node calls backward once per differentiable output, so
    several differentiable outputs of one float dtype are packed into one flat tensor that is
    the node's single output; the outputs handed back are views of it."""
    diff = [i for i, o in enumerate(outs) if not nondiff[i] and _differentiable(o)]
    if len(diff) < 2 or len({outs[i].dtype for i in diff}) != 1:
        return _core._function_node(name, args, outs, run_backward, nondiff)
    sizes = [outs[i].numel() for i in diff]
    shapes = [tuple(outs[i].shape) for i in diff]
    with no_grad():
        packed = _core.cat([outs[i].reshape(-1) for i in diff]) if sum(sizes) else outs[diff[0]].new_zeros(0)

    def run_packed(g: Tensor) -> Any:
        grads = list(g.split(sizes)) if sizes else []
        full: list = [None] * len(outs)
        for k, i in enumerate(diff):
            full[i] = grads[k].view(shapes[k])
        for i, o in enumerate(outs):
            if full[i] is None:
                full[i] = _core.zeros_like(o) if _differentiable(o) else None
        return run_backward(*full)

    (packed,) = _core._function_node(name, args, [packed], run_packed, [False])
    wrapped = list(outs)
    if packed.requires_grad:
        start = 0
        for k, i in enumerate(diff):
            wrapped[i] = packed.narrow(0, start, sizes[k]).view(shapes[k])
            start += sizes[k]
    return wrapped
